/**
 * The boxes a reply names, in the forms grounding models emit. Protocols parse
 * with it; scoring/answers/boxes.ts compares what it reads with the reference.
 */

export interface Box {
  readonly x1: number;
  readonly y1: number;
  readonly x2: number;
  readonly y2: number;
}

const NUMBER = String.raw`-?\d+(?:\.\d+)?`;
const QUAD = new RegExp(String.raw`[\[(]\s*(${NUMBER})\s*,\s*(${NUMBER})\s*,\s*(${NUMBER})\s*,\s*(${NUMBER})\s*[\])]`, 'g');
/** Qwen-VL's `<box>(x1,y1),(x2,y2)</box>`. */
const QWEN = new RegExp(String.raw`\(\s*(${NUMBER})\s*,\s*(${NUMBER})\s*\)\s*,?\s*\(\s*(${NUMBER})\s*,\s*(${NUMBER})\s*\)`, 'g');
/** JSON objects with x1/y1/x2/y2 or xmin/ymin/xmax/ymax, and `bbox_2d` lists (Qwen2.5-VL). */
const NAMED = /"?(x1|xmin|left)"?\s*[:=]\s*(-?\d+(?:\.\d+)?)[\s\S]*?"?(y1|ymin|top)"?\s*[:=]\s*(-?\d+(?:\.\d+)?)[\s\S]*?"?(x2|xmax|right)"?\s*[:=]\s*(-?\d+(?:\.\d+)?)[\s\S]*?"?(y2|ymax|bottom)"?\s*[:=]\s*(-?\d+(?:\.\d+)?)/g;

function ordered(a: number, b: number, c: number, d: number): Box {
  return { x1: Math.min(a, c), y1: Math.min(b, d), x2: Math.max(a, c), y2: Math.max(b, d) };
}

/**
 * Every box a reply names, in order: `[x1, y1, x2, y2]` (brackets or
 * parentheses), `(x1,y1),(x2,y2)` (Qwen-VL's `<box>`), and named
 * coordinates (`"x1": …` / `xmin` … / `left, top, right, bottom`). Corners
 * given in either order are put in order.
 */
export function parseBoxes(reply: string): Box[] {
  const found: { at: number; box: Box }[] = [];
  const taken: [number, number][] = [];
  const claim = (start: number, end: number): boolean => {
    if (taken.some(([s, e]) => start < e && end > s)) return false;
    taken.push([start, end]);
    return true;
  };
  for (const m of reply.matchAll(NAMED)) if (claim(m.index, m.index + m[0].length)) found.push({ at: m.index, box: ordered(+m[2]!, +m[4]!, +m[6]!, +m[8]!) });
  for (const m of reply.matchAll(QWEN)) if (claim(m.index, m.index + m[0].length)) found.push({ at: m.index, box: ordered(+m[1]!, +m[2]!, +m[3]!, +m[4]!) });
  for (const m of reply.matchAll(QUAD)) if (claim(m.index, m.index + m[0].length)) found.push({ at: m.index, box: ordered(+m[1]!, +m[2]!, +m[3]!, +m[4]!) });
  return found.sort((a, b) => a.at - b.at).map((f) => f.box);
}

