/**
 * How wide a chart's text will be, without a DOM to measure it (charts are
 * built in core, and the HTML report is drawn by whatever browser opens it).
 * The widths are DejaVu Sans's, the widest of the common sans-serif fonts
 * `system-ui` resolves to (Segoe UI, San Francisco, Roboto, Liberation Sans
 * are all narrower), so text laid out by them fits in every one of them.
 */

/** Advance widths at 12 px of the printable ASCII characters (space to "~"), regular and bold, measured in Chromium. */
const REGULAR = [
  3.81, 4.81, 5.52, 10.05, 7.63, 11.4, 9.36, 3.3, 4.68, 4.68, 6, 10.05, 3.81, 4.33, 3.81, 4.04, 7.63, 7.63, 7.63, 7.63, 7.63, 7.63, 7.63, 7.63, 7.63, 7.63, 4.04, 4.04, 10.05, 10.05, 10.05, 6.37,
  12, 8.21, 8.23, 8.38, 9.24, 7.58, 6.9, 9.3, 9.02, 3.54, 3.54, 7.87, 6.69, 10.35, 8.98, 9.45, 7.24, 9.45, 8.34, 7.62, 7.33, 8.78, 8.21, 11.87, 8.22, 7.33, 8.22, 4.68, 4.04, 4.68, 10.05, 6,
  6, 7.35, 7.62, 6.6, 7.62, 7.38, 4.22, 7.62, 7.61, 3.33, 3.33, 6.95, 3.33, 11.69, 7.61, 7.34, 7.62, 7.62, 4.93, 6.25, 4.71, 7.61, 7.1, 9.81, 7.1, 7.1, 6.3, 7.63, 4.04, 7.63, 10.05,
];
const BOLD = [
  4.18, 5.47, 6.25, 10.05, 8.35, 12.02, 10.46, 3.67, 5.48, 5.48, 6.28, 10.05, 4.56, 4.98, 4.56, 4.38, 8.35, 8.35, 8.35, 8.35, 8.35, 8.35, 8.35, 8.35, 8.35, 8.35, 4.8, 4.8, 10.05, 10.05, 10.05, 6.96,
  12, 9.29, 9.15, 8.81, 9.96, 8.2, 8.2, 9.85, 10.04, 4.46, 4.46, 9.3, 7.65, 11.94, 10.04, 10.2, 8.79, 10.2, 9.24, 8.64, 8.19, 9.74, 9.29, 13.24, 9.25, 8.69, 8.7, 5.48, 4.38, 5.48, 10.05, 6,
  6, 8.1, 8.59, 7.11, 8.59, 8.14, 5.22, 8.59, 8.54, 4.11, 4.11, 7.98, 4.11, 12.5, 8.54, 8.24, 8.59, 8.59, 5.92, 7.14, 5.74, 8.54, 7.82, 11.09, 7.74, 7.82, 6.98, 8.54, 4.38, 8.54, 10.05,
];
/** Anything outside printable ASCII (dashes, accents, CJK) counts a full em: too wide rather than cut. */
const OTHER = 12;

/** Width in px of `text` at `size` px (12 by default). */
export function textWidth(text: string, options: { readonly size?: number; readonly bold?: boolean } = {}): number {
  const table = options.bold ? BOLD : REGULAR;
  let w = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    w += code >= 32 && code < 127 ? table[code - 32]! : OTHER;
  }
  return (w * (options.size ?? 12)) / 12;
}

/**
 * `text` broken into lines no wider than `width` px, at spaces, hyphens and
 * underscores; a word wider than a line is split inside the word. Never
 * drops a character: a long name is shown whole on several lines.
 */
export function wrapToWidth(text: string, width: number, options: { readonly size?: number; readonly bold?: boolean } = {}): string[] {
  const fits = (s: string) => textWidth(s, options) <= width;
  const words = text.split(/(?<=[\s_-])/).map((w) => w.replace(/\s+$/, '')).filter((w) => w !== '');
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    const joined = line === '' ? word : /[-_]$/.test(line) ? `${line}${word}` : `${line} ${word}`;
    if (fits(joined)) {
      line = joined;
      continue;
    }
    if (line) lines.push(line);
    let rest = word;
    while (!fits(rest)) {
      // The longest start of the word that fits (at least one character, so it always ends).
      let n = 1;
      while (n < rest.length && fits(rest.slice(0, n + 1))) n++;
      lines.push(rest.slice(0, n));
      rest = rest.slice(n);
    }
    line = rest;
  }
  if (line) lines.push(line);
  return lines.length ? lines : [''];
}
