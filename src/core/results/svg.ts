/**
 * Charts as plain data: a tiny SVG element tree that the app renders with a
 * recursive Svelte component (text only ever as text nodes) and the HTML
 * report serialises with escaping. One chart implementation, two renderers,
 * and no untrusted string is ever parsed as markup.
 */

export interface SvgNode {
  readonly tag: SvgTag;
  readonly attrs?: Readonly<Record<string, string | number>>;
  readonly children?: readonly SvgNode[];
  /** Text content (for `text`, `title`, `tspan`); escaped when serialised. */
  readonly text?: string;
}

/** The only elements charts use; anything else is refused by the serialiser. */
const SVG_TAGS = ['svg', 'g', 'rect', 'line', 'circle', 'path', 'text', 'title', 'polyline', 'tspan'] as const;
type SvgTag = (typeof SVG_TAGS)[number];

const ATTR_NAME = /^[a-zA-Z][a-zA-Z0-9-]*$/;

export function el(tag: SvgTag, attrs: Readonly<Record<string, string | number>> = {}, children: readonly SvgNode[] = []): SvgNode {
  return { tag, attrs, children };
}

export function txt(tag: 'text' | 'title' | 'tspan', text: string, attrs: Readonly<Record<string, string | number>> = {}): SvgNode {
  return { tag, attrs, text };
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Serialises a chart to SVG markup; attribute names are checked and every value and text escaped. */
export function toSvgString(node: SvgNode): string {
  if (!(SVG_TAGS as readonly string[]).includes(node.tag)) throw new Error(`Unexpected SVG element "${node.tag}".`);
  const attrs = Object.entries(node.attrs ?? {})
    .map(([k, v]) => {
      if (!ATTR_NAME.test(k) || k.startsWith('on')) throw new Error(`Unexpected SVG attribute "${k}".`);
      return ` ${k}="${escapeXml(typeof v === 'number' ? fmt(v) : v)}"`;
    })
    .join('');
  const ns = node.tag === 'svg' ? ' xmlns="http://www.w3.org/2000/svg"' : '';
  const inner = node.text !== undefined ? escapeXml(node.text) : (node.children ?? []).map(toSvgString).join('');
  return `<${node.tag}${ns}${attrs}>${inner}</${node.tag}>`;
}

/** Coordinates with at most two decimals, so charts stay small and diff cleanly. */
function fmt(n: number): string {
  return Number.isFinite(n) ? String(Math.round(n * 100) / 100) : '0';
}
