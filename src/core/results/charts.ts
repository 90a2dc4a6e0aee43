/**
 * The result charts, as {@link SvgNode} trees: grouped bars with 95 %
 * intervals, scatter plots (two-axis view, speed vs quality), a reliability
 * diagram, a confusion-matrix heat map and line charts (degradation curves).
 * Pure functions of their data: the page and the HTML report draw the same.
 */
import { el, txt, type SvgNode } from './svg.ts';

/** Colour-blind-safe palette (Okabe–Ito), one colour per model. */
const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#F0E442'];

const W = 640;
const FONT = { 'font-family': 'system-ui, sans-serif', 'font-size': 12 };
/** A generous width of one character at FONT's size, for keeping labels inside the chart. */
const LABEL_CHAR_WIDTH = 7.2;
const pctLabel = (v: number) => `${Math.round(v * 100)}%`;
/** Labels this long are still drawn whole (longer ones end in "…" and carry a title); real labels are far shorter. */
const LONGEST_LABEL = 60;
const clip = (s: string, max = LONGEST_LABEL) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/**
 * A label broken into lines of at most `width` characters at spaces, hyphens
 * and underscores, so a category such as "multiple sclerosis" is shown whole
 * under a narrow bar group instead of cut to "multiple sclero…". A word longer
 * than a line is split inside the word.
 */
export function wrapLabel(label: string, width: number): string[] {
  const max = Math.max(4, Math.floor(width));
  const words = label.split(/(?<=[\s_-])/).map((w) => w.replace(/\s+$/, '')).filter((w) => w !== '');
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    const joined = line === '' ? word : /[-_]$/.test(line) ? `${line}${word}` : `${line} ${word}`;
    if (joined.length <= max) line = joined;
    else {
      if (line) lines.push(line);
      let rest = word;
      while (rest.length > max) {
        lines.push(rest.slice(0, max));
        rest = rest.slice(max);
      }
      line = rest;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** A text of several lines, one tspan per line, the first at (x, y). */
function lines(text: readonly string[], x: number, y: number, attrs: Readonly<Record<string, string | number>> = {}): SvgNode {
  return el('text', { x, y, ...attrs }, text.map((t, i) => txt('tspan', t, { x, dy: i === 0 ? 0 : 14 })));
}

interface Frame {
  readonly x0: number;
  readonly x1: number;
  readonly y0: number;
  readonly y1: number;
}

function frame(height: number, left = 56, bottom = 46): Frame {
  return { x0: left, x1: W - 16, y0: height - bottom, y1: 28 };
}

function svg(title: string, height: number, children: SvgNode[], width = W): SvgNode {
  return el('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': title, ...FONT }, [
    txt('title', title),
    txt('text', title, { x: 8, y: 16, 'font-weight': 'bold' }),
    ...children,
  ]);
}

function yAxis(f: Frame, max: number, percent: boolean, label: string): SvgNode[] {
  const out: SvgNode[] = [el('line', { x1: f.x0, y1: f.y0, x2: f.x0, y2: f.y1, stroke: '#555' })];
  for (let i = 0; i <= 4; i++) {
    const v = (max * i) / 4;
    const y = f.y0 - ((f.y0 - f.y1) * i) / 4;
    out.push(el('line', { x1: f.x0, y1: y, x2: f.x1, y2: y, stroke: '#ddd' }));
    out.push(txt('text', percent ? pctLabel(v) : v.toFixed(max < 2 ? 2 : 0), { x: f.x0 - 6, y: y + 4, 'text-anchor': 'end' }));
  }
  out.push(txt('text', label, { x: 12, y: (f.y0 + f.y1) / 2, transform: `rotate(-90 12 ${(f.y0 + f.y1) / 2})`, 'text-anchor': 'middle' }));
  return out;
}

/** A legend name this long still fits one row whole (it starts 74 px in): a catalogue display name with a variant does. */
const LONGEST_LEGEND = Math.floor((W - 74) / LABEL_CHAR_WIDTH);

/** Legend entries per row: as many as fit the longest name whole (four at most). */
function legendColumns(names: readonly string[]): number {
  const longest = Math.max(1, ...names.map((n) => clip(n, LONGEST_LEGEND).length));
  return Math.max(1, Math.min(4, Math.floor((W - 60) / (longest * LABEL_CHAR_WIDTH + 24))));
}

function legend(names: readonly string[], y: number): SvgNode[] {
  const per = legendColumns(names);
  const step = (W - 60) / per;
  return names.map((n, i) => el('g', {}, [
    el('rect', { x: 60 + (i % per) * step, y: y + Math.floor(i / per) * 16 - 9, width: 10, height: 10, fill: PALETTE[i % PALETTE.length]! }),
    txt('text', clip(n, LONGEST_LEGEND), { x: 74 + (i % per) * step, y: y + Math.floor(i / per) * 16 }),
  ]));
}

interface BarValue {
  readonly value: number;
  readonly lower?: number;
  readonly upper?: number;
  readonly n?: number;
}

interface BarGroup {
  readonly label: string;
  /** One value per series (model), in the order of `series`; null = no data. */
  readonly values: readonly (BarValue | null)[];
}

/** Grouped bars with 95 % interval whiskers (per-group breakdowns, error-class counts). */
export function barChart(opts: { title: string; series: readonly string[]; groups: readonly BarGroup[]; percent?: boolean; yLabel?: string }): SvgNode {
  const percent = opts.percent ?? true;
  const legendRows = Math.ceil(opts.series.length / legendColumns(opts.series));
  const gw0 = (W - 16 - 56) / Math.max(1, opts.groups.length);
  const groupLines = opts.groups.map((g) => wrapLabel(g.label, (gw0 - 6) / LABEL_CHAR_WIDTH));
  const labelRows = Math.max(1, ...groupLines.map((l) => l.length));
  const height = 300 + legendRows * 16 + (labelRows - 1) * 14;
  const f = frame(height - legendRows * 16, 56, 46 + (labelRows - 1) * 14);
  const max = percent ? 1 : Math.max(1, ...opts.groups.flatMap((g) => g.values.map((v) => Math.max(v?.upper ?? 0, v?.value ?? 0))));
  const scale = (v: number) => f.y0 - ((f.y0 - f.y1) * Math.max(0, Math.min(v, max))) / max;
  const gw = (f.x1 - f.x0) / Math.max(1, opts.groups.length);
  const bw = Math.min(28, (gw * 0.8) / Math.max(1, opts.series.length));
  const children: SvgNode[] = [...yAxis(f, max, percent, opts.yLabel ?? '')];
  opts.groups.forEach((g, gi) => {
    const gx = f.x0 + gi * gw + (gw - bw * opts.series.length) / 2;
    g.values.forEach((v, si) => {
      if (!v || !Number.isFinite(v.value)) return;
      const x = gx + si * bw;
      const fill = PALETTE[si % PALETTE.length]!;
      const label = `${opts.series[si]} · ${g.label}: ${percent ? `${(v.value * 100).toFixed(1)}%` : v.value.toFixed(3)}${v.lower !== undefined && Number.isFinite(v.lower) ? ` (95% CI ${percent ? `${(v.lower * 100).toFixed(1)}–${(v.upper! * 100).toFixed(1)}%` : `${v.lower.toFixed(3)}–${v.upper!.toFixed(3)}`})` : ''}${v.n !== undefined ? `, n=${v.n}` : ''}`;
      children.push(el('rect', { x: x + 1, y: scale(v.value), width: bw - 2, height: Math.max(0, f.y0 - scale(v.value)), fill }, [txt('title', label)]));
      if (v.lower !== undefined && v.upper !== undefined && Number.isFinite(v.lower) && Number.isFinite(v.upper)) {
        const cx = x + bw / 2;
        children.push(el('line', { x1: cx, y1: scale(v.lower), x2: cx, y2: scale(v.upper), stroke: '#222', 'stroke-width': 1.5 }));
        children.push(el('line', { x1: cx - 4, y1: scale(v.lower), x2: cx + 4, y2: scale(v.lower), stroke: '#222' }));
        children.push(el('line', { x1: cx - 4, y1: scale(v.upper), x2: cx + 4, y2: scale(v.upper), stroke: '#222' }));
      }
    });
    children.push(lines(groupLines[gi] ?? [g.label], f.x0 + gi * gw + gw / 2, f.y0 + 16, { 'text-anchor': 'middle' }));
  });
  children.push(...legend(opts.series, height - legendRows * 16 + 4));
  return svg(opts.title, height, children);
}

export interface ScatterPoint {
  readonly label: string;
  readonly x: number;
  readonly y: number;
  readonly xCi?: readonly [number, number];
  readonly yCi?: readonly [number, number];
}

/** Points with optional interval bars in both directions (two-axis view; accuracy vs tokens/s). */
export function scatterChart(opts: { title: string; xLabel: string; yLabel: string; points: readonly ScatterPoint[]; xPercent?: boolean; yPercent?: boolean }): SvgNode {
  const height = 360;
  const f = frame(height);
  const xMax = opts.xPercent ? 1 : Math.max(1, ...opts.points.map((p) => p.xCi?.[1] ?? p.x)) * 1.1;
  const yMax = opts.yPercent ?? true ? 1 : Math.max(1, ...opts.points.map((p) => p.yCi?.[1] ?? p.y)) * 1.1;
  const sx = (v: number) => f.x0 + ((f.x1 - f.x0) * Math.max(0, Math.min(v, xMax))) / xMax;
  const sy = (v: number) => f.y0 - ((f.y0 - f.y1) * Math.max(0, Math.min(v, yMax))) / yMax;
  const children: SvgNode[] = [...yAxis(f, yMax, opts.yPercent ?? true, opts.yLabel)];
  children.push(el('line', { x1: f.x0, y1: f.y0, x2: f.x1, y2: f.y0, stroke: '#555' }));
  for (let i = 0; i <= 4; i++) {
    const v = (xMax * i) / 4;
    children.push(txt('text', opts.xPercent ? pctLabel(v) : v.toFixed(xMax < 10 ? 1 : 0), { x: sx(v), y: f.y0 + 16, 'text-anchor': 'middle' }));
  }
  children.push(txt('text', opts.xLabel, { x: (f.x0 + f.x1) / 2, y: height - 8, 'text-anchor': 'middle' }));
  // Labels of points at (nearly) the same place are stacked instead of drawn over each other.
  const placed: { x: number; y: number }[] = [];
  opts.points.forEach((p, i) => {
    if (!Number.isFinite(p.x) || !Number.isFinite(p.y)) return;
    const color = PALETTE[i % PALETTE.length]!;
    let ly = sy(p.y) - 8;
    while (placed.some((q) => Math.abs(q.x - sx(p.x)) < 150 && Math.abs(q.y - ly) < 13)) ly -= 14;
    placed.push({ x: sx(p.x), y: ly });
    if (p.xCi && p.xCi.every(Number.isFinite)) children.push(el('line', { x1: sx(p.xCi[0]), y1: sy(p.y), x2: sx(p.xCi[1]), y2: sy(p.y), stroke: color, 'stroke-width': 1.5 }));
    if (p.yCi && p.yCi.every(Number.isFinite)) children.push(el('line', { x1: sx(p.x), y1: sy(p.yCi[0]), x2: sx(p.x), y2: sy(p.yCi[1]), stroke: color, 'stroke-width': 1.5 }));
    children.push(el('circle', { cx: sx(p.x), cy: sy(p.y), r: 6, fill: color }, [txt('title', `${p.label}: ${opts.xLabel} ${opts.xPercent ? pctLabel(p.x) : p.x.toFixed(1)}, ${opts.yLabel} ${opts.yPercent ?? true ? pctLabel(p.y) : p.y.toFixed(1)}`)]));
    const text = clip(p.label, 40);
    // A label that would run past the chart's right edge goes to the left of its point instead (never clipped).
    const right = sx(p.x) + 9 + text.length * LABEL_CHAR_WIDTH <= W;
    children.push(txt('text', text, right ? { x: sx(p.x) + 9, y: ly } : { x: sx(p.x) - 9, y: ly, 'text-anchor': 'end' }));
  });
  return svg(opts.title, height, children);
}

interface ReliabilityBin {
  readonly lower: number;
  readonly upper: number;
  readonly meanConfidence: number;
  readonly accuracy: number;
  readonly count: number;
}

/** Accuracy per confidence bin against the diagonal; bar width is the bin, opacity grows with its count. */
export function reliabilityDiagram(title: string, bins: readonly ReliabilityBin[]): SvgNode {
  const height = 340;
  const f = frame(height);
  const sx = (v: number) => f.x0 + (f.x1 - f.x0) * v;
  const sy = (v: number) => f.y0 - (f.y0 - f.y1) * v;
  const maxCount = Math.max(1, ...bins.map((b) => b.count));
  const children: SvgNode[] = [...yAxis(f, 1, true, 'Accuracy')];
  children.push(el('line', { x1: sx(0), y1: sy(0), x2: sx(1), y2: sy(1), stroke: '#999', 'stroke-dasharray': '4 3' }));
  for (const b of bins) {
    if (b.count === 0) continue;
    children.push(el('rect', { x: sx(b.lower) + 1, y: sy(b.accuracy), width: sx(b.upper) - sx(b.lower) - 2, height: f.y0 - sy(b.accuracy), fill: PALETTE[0]!, 'fill-opacity': 0.35 + (0.65 * b.count) / maxCount }, [
      txt('title', `confidence ${b.lower.toFixed(1)}–${b.upper.toFixed(1)}: accuracy ${(b.accuracy * 100).toFixed(1)}% over ${b.count} answers (mean confidence ${(b.meanConfidence * 100).toFixed(1)}%)`),
    ]));
    children.push(el('circle', { cx: sx(b.meanConfidence), cy: sy(b.accuracy), r: 3, fill: '#222' }));
  }
  for (let i = 0; i <= 5; i++) children.push(txt('text', (i / 5).toFixed(1), { x: sx(i / 5), y: f.y0 + 16, 'text-anchor': 'middle' }));
  children.push(txt('text', 'Stated confidence', { x: (f.x0 + f.x1) / 2, y: height - 8, 'text-anchor': 'middle' }));
  return svg(title, height, children);
}

/** Confusion matrix as a heat map: rows gold, columns answer; cell shade by row share. */
export function confusionHeatmap(title: string, rows: readonly string[], cols: readonly string[], matrix: readonly (readonly number[])[]): SvgNode {
  const cell = Math.min(56, Math.floor(440 / Math.max(1, cols.length)));
  // Room for the longest labels, whole: row labels to the left, column labels slanted at 40° above.
  const colText = Math.max(1, ...cols.map((c) => clip(c).length)) * LABEL_CHAR_WIDTH;
  const left = Math.max(90, Math.max(1, ...rows.map((r) => clip(r).length)) * LABEL_CHAR_WIDTH + 16);
  const top = Math.max(60, Math.ceil(colText * Math.sin((40 * Math.PI) / 180)) + 40);
  const height = top + cell * rows.length + 30;
  const children: SvgNode[] = [];
  cols.forEach((c, j) => children.push(txt('text', clip(c), { x: left + j * cell + cell / 2, y: top - 8, transform: `rotate(-40 ${left + j * cell + cell / 2} ${top - 8})` })));
  rows.forEach((r, i) => {
    const total = (matrix[i] ?? []).reduce((a, b) => a + b, 0) || 1;
    children.push(txt('text', clip(r), { x: left - 6, y: top + i * cell + cell / 2 + 4, 'text-anchor': 'end' }));
    cols.forEach((c, j) => {
      const n = matrix[i]?.[j] ?? 0;
      const share = n / total;
      children.push(el('rect', { x: left + j * cell, y: top + i * cell, width: cell - 1, height: cell - 1, fill: i === j ? '#009E73' : '#D55E00', 'fill-opacity': 0.08 + 0.92 * share }, [txt('title', `gold ${r}, answered ${c}: ${n} (${(share * 100).toFixed(0)}% of the row)`)]));
      children.push(txt('text', String(n), { x: left + j * cell + cell / 2, y: top + i * cell + cell / 2 + 4, 'text-anchor': 'middle', fill: share > 0.55 ? '#fff' : '#222' }));
    });
  });
  children.push(txt('text', 'rows: ground truth · columns: answer', { x: left, y: height - 8 }));
  const lastSlant = Math.ceil(colText * Math.cos((40 * Math.PI) / 180));
  return svg(title, height, children, Math.max(W, left + cell * (cols.length - 0.5) + lastSlant + 12, left + cell * cols.length + 20));
}

interface LineSeries {
  readonly name: string;
  readonly points: readonly { readonly x: number; readonly y: number }[];
}

/** Lines over severity levels (degradation curves); `yMin` below 0 for signed values such as calibration shift. */
export function lineChart(opts: { title: string; xLabel: string; yLabel: string; series: readonly LineSeries[]; yMin?: number; yMax?: number; percent?: boolean; xTicks: readonly number[] }): SvgNode {
  const legendRows = Math.ceil(opts.series.length / legendColumns(opts.series.map((s) => s.name)));
  const height = 300 + legendRows * 16;
  const f = frame(height - legendRows * 16);
  const yMin = opts.yMin ?? 0;
  const yMax = opts.yMax ?? 1;
  const xMax = Math.max(1, ...opts.xTicks);
  const sx = (v: number) => f.x0 + ((f.x1 - f.x0) * v) / xMax;
  const sy = (v: number) => f.y0 - ((f.y0 - f.y1) * (Math.max(yMin, Math.min(v, yMax)) - yMin)) / (yMax - yMin);
  const children: SvgNode[] = [el('line', { x1: f.x0, y1: f.y0, x2: f.x0, y2: f.y1, stroke: '#555' })];
  for (let i = 0; i <= 4; i++) {
    const v = yMin + ((yMax - yMin) * i) / 4;
    children.push(el('line', { x1: f.x0, y1: sy(v), x2: f.x1, y2: sy(v), stroke: v === 0 ? '#888' : '#ddd' }));
    children.push(txt('text', opts.percent ? pctLabel(v) : v.toFixed(2), { x: f.x0 - 6, y: sy(v) + 4, 'text-anchor': 'end' }));
  }
  for (const t of opts.xTicks) children.push(txt('text', String(t), { x: sx(t), y: f.y0 + 16, 'text-anchor': 'middle' }));
  children.push(txt('text', opts.xLabel, { x: (f.x0 + f.x1) / 2, y: f.y0 + 32, 'text-anchor': 'middle' }));
  children.push(txt('text', opts.yLabel, { x: 12, y: (f.y0 + f.y1) / 2, transform: `rotate(-90 12 ${(f.y0 + f.y1) / 2})`, 'text-anchor': 'middle' }));
  opts.series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length]!;
    const pts = s.points.filter((p) => Number.isFinite(p.y));
    if (pts.length > 1) children.push(el('polyline', { points: pts.map((p) => `${Math.round(sx(p.x) * 10) / 10},${Math.round(sy(p.y) * 10) / 10}`).join(' '), fill: 'none', stroke: color, 'stroke-width': 2 }));
    for (const p of pts) children.push(el('circle', { cx: sx(p.x), cy: sy(p.y), r: 4, fill: color }, [txt('title', `${s.name}, severity ${p.x}: ${opts.percent ? `${(p.y * 100).toFixed(1)}%` : p.y.toFixed(3)}`)]));
  });
  children.push(...legend(opts.series.map((s) => s.name), height - legendRows * 16 + 4));
  return svg(opts.title, height, children);
}

/**
 * Risk–coverage curves: selective risk (1 − accuracy of the answers kept)
 * against the share of answers kept, most confident first; a dashed line
 * marks a coverage of interest (80 %).
 */
export function riskCoverageChart(opts: { title: string; series: readonly { name: string; points: readonly { coverage: number; risk: number }[] }[]; mark?: number }): SvgNode {
  const legendRows = Math.ceil(opts.series.length / legendColumns(opts.series.map((s) => s.name)));
  const height = 320 + legendRows * 16;
  const f = frame(height - legendRows * 16);
  const sx = (v: number) => f.x0 + (f.x1 - f.x0) * v;
  const sy = (v: number) => f.y0 - (f.y0 - f.y1) * Math.max(0, Math.min(1, v));
  const children: SvgNode[] = [...yAxis(f, 1, true, 'Risk (1 − selective accuracy)')];
  for (let i = 0; i <= 5; i++) children.push(txt('text', pctLabel(i / 5), { x: sx(i / 5), y: f.y0 + 16, 'text-anchor': 'middle' }));
  children.push(txt('text', 'Coverage (answers kept, most confident first)', { x: (f.x0 + f.x1) / 2, y: f.y0 + 34, 'text-anchor': 'middle' }));
  if (opts.mark !== undefined) children.push(el('line', { x1: sx(opts.mark), y1: f.y0, x2: sx(opts.mark), y2: f.y1, stroke: '#999', 'stroke-dasharray': '4 3' }, [txt('title', `${pctLabel(opts.mark)} coverage`)]));
  opts.series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length]!;
    const pts = s.points.filter((p) => Number.isFinite(p.risk));
    if (pts.length) children.push(el('polyline', { points: pts.map((p) => `${Math.round(sx(p.coverage) * 10) / 10},${Math.round(sy(p.risk) * 10) / 10}`).join(' '), fill: 'none', stroke: color, 'stroke-width': 2 }, [txt('title', s.name)]));
  });
  children.push(...legend(opts.series.map((s) => s.name), height - legendRows * 16 + 4));
  return svg(opts.title, height, children);
}
