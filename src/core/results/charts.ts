/**
 * The result charts, as {@link SvgNode} trees: grouped bars with 95 %
 * intervals, scatter plots (two-axis view, speed vs quality), a reliability
 * diagram, a confusion-matrix heat map and line charts (degradation curves).
 * Pure functions of their data: the page and the HTML report draw the same.
 */
import { el, txt, type SvgNode } from './svg.ts';
import { textWidth, wrapToWidth } from './text-width.ts';

/** Colour-blind-safe palette (Okabe–Ito), one colour per model. */
const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#F0E442'];

const W = 640;
const FONT = { 'font-family': 'system-ui, sans-serif', 'font-size': 12 };
const pctLabel = (v: number) => `${Math.round(v * 100)}%`;
/** Labels this long are still drawn whole (longer ones end in "…" and carry a title); real labels are far shorter. */
const LONGEST_LABEL = 60;
const clip = (s: string, max = LONGEST_LABEL) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
/** Distance between the baselines of a text's lines. */
const LINE = 14;

/** A text of several lines, one tspan per line, the first at (x, y). */
function lines(text: readonly string[], x: number, y: number, attrs: Readonly<Record<string, string | number>> = {}): SvgNode {
  return el('text', { x, y, ...attrs }, text.map((t, i) => txt('tspan', t, { x, dy: i === 0 ? 0 : LINE })));
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

/**
 * The chart's picture: its title, wrapped to the chart's width (a model's
 * display name can make it long), above the content, which moves down by
 * the title's extra lines.
 */
function svg(title: string, height: number, children: SvgNode[], width = W): SvgNode {
  const heading = wrapToWidth(title, width - 16, { bold: true });
  const extra = (heading.length - 1) * LINE;
  return el('svg', { viewBox: `0 0 ${width} ${height + extra}`, width, height: height + extra, role: 'img', 'aria-label': title, ...FONT }, [
    txt('title', title),
    lines(heading, 8, 16, { 'font-weight': 'bold' }),
    ...(extra ? [el('g', { transform: `translate(0 ${extra})` }, children)] : children),
  ]);
}

/** An x-axis tick label centred under its tick, or ending at the chart's edge where centring would cut it ("100%" at the right end). */
function tick(text: string, x: number, y: number): SvgNode {
  const half = textWidth(text) / 2;
  return x + half > W - 2 ? txt('text', text, { x: W - 2, y, 'text-anchor': 'end' }) : txt('text', text, { x, y, 'text-anchor': 'middle' });
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

/** Where legend entries start: the colour box, then the name after it. */
const LEGEND_X = 60;
const LEGEND_TEXT = 14;

interface Legend {
  /** Height the legend takes below the plot. */
  readonly height: number;
  /** The legend's nodes, its first row's baseline at `y`. */
  draw(y: number): SvgNode[];
}

/**
 * The legend: as many entries per row as fit the widest name (four at
 * most); with one per row, a name wider than the chart wraps onto more
 * lines instead of being cut, so two runs of one model that differ only at
 * the end of their names stay told apart.
 */
function legend(names: readonly string[]): Legend {
  const room = W - LEGEND_X;
  const widest = Math.max(1, ...names.map((n) => textWidth(n)));
  const per = Math.max(1, Math.min(4, Math.floor(room / (widest + LEGEND_TEXT + 24))));
  const step = room / per;
  const entries = names.map((n) => (per === 1 ? wrapToWidth(n, room - LEGEND_TEXT - 8) : [n]));
  const rows: number[] = [];
  for (let i = 0; i < entries.length; i += per) rows.push(Math.max(...entries.slice(i, i + per).map((e) => e.length)) * LINE + 2);
  return {
    height: rows.reduce((n, h) => n + h, 0),
    draw(y) {
      const tops = rows.map((_, r) => rows.slice(0, r).reduce((n, h) => n + h, 0));
      return entries.map((text, i) => {
        const x = LEGEND_X + (i % per) * step;
        const base = y + tops[Math.floor(i / per)]!;
        return el('g', {}, [
          el('rect', { x, y: base - 9, width: 10, height: 10, fill: PALETTE[i % PALETTE.length]! }),
          text.length === 1 ? txt('text', text[0]!, { x: x + LEGEND_TEXT, y: base }) : lines(text, x + LEGEND_TEXT, base),
        ]);
      });
    },
  };
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
  const key = legend(opts.series);
  const gw0 = (W - 16 - 56) / Math.max(1, opts.groups.length);
  const groupLines = opts.groups.map((g) => wrapToWidth(g.label, gw0 - 6));
  const labelRows = Math.max(1, ...groupLines.map((l) => l.length));
  const plot = 300 + (labelRows - 1) * LINE;
  const height = plot + key.height;
  const f = frame(plot, 56, 46 + (labelRows - 1) * LINE);
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
  children.push(...key.draw(plot + 4));
  return svg(opts.title, height, children);
}

export interface ScatterPoint {
  readonly label: string;
  readonly x: number;
  readonly y: number;
  readonly xCi?: readonly [number, number];
  readonly yCi?: readonly [number, number];
}

/** How wide a point's label may be before it wraps. */
const SCATTER_LABEL_WIDTH = 220;

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
    children.push(tick(opts.xPercent ? pctLabel(v) : v.toFixed(xMax < 10 ? 1 : 0), sx(v), f.y0 + 16));
  }
  children.push(txt('text', opts.xLabel, { x: (f.x0 + f.x1) / 2, y: height - 8, 'text-anchor': 'middle' }));
  // A label is its whole name on up to a few short lines; labels of points at (nearly) the same place are stacked instead of drawn over each other.
  type Block = { x0: number; x1: number; top: number; bottom: number };
  const placed: Block[] = [];
  const overlap = (b: Block) => placed.reduce((n, q) => n + Math.max(0, Math.min(q.x1, b.x1) - Math.max(q.x0, b.x0)) * Math.max(0, Math.min(q.bottom, b.bottom) - Math.max(q.top, b.top)), 0);
  opts.points.forEach((p, i) => {
    if (!Number.isFinite(p.x) || !Number.isFinite(p.y)) return;
    const color = PALETTE[i % PALETTE.length]!;
    const px = sx(p.x);
    const py = sy(p.y);
    const text = wrapToWidth(p.label, SCATTER_LABEL_WIDTH);
    const wide = Math.max(...text.map((t) => textWidth(t)));
    const rise = (text.length - 1) * LINE;
    // Where the label may go, best first: beside the point, then further up, then below it; to its right, or to its left
    // where the right would run past the chart's edge (never clipped) or is taken. The first free place wins; when none is
    // free (many long names at one spot), the place that covers the least of the labels already drawn.
    const sides = [px + 9 + wide <= W, px - 9 - wide >= 0].flatMap((ok, k) => (ok ? [k === 0] : []));
    if (!sides.length) sides.push(false);
    const candidates: { right: boolean; last: number; block: Block }[] = [];
    for (const right of sides) {
      const x0 = right ? px + 9 : px - 9 - wide;
      const block = (last: number): Block => ({ x0, x1: x0 + wide, top: last - rise - 11, bottom: last + 3 });
      for (let last = py - 8; block(last).top >= f.y1 - 12; last -= LINE) candidates.push({ right, last, block: block(last) });
      for (let last = py + 8 + rise + 11; block(last).bottom <= f.y0; last += LINE) candidates.push({ right, last, block: block(last) });
      if (!candidates.some((c) => c.right === right)) candidates.push({ right, last: Math.max(py - 8, f.y1 + rise + 11), block: block(Math.max(py - 8, f.y1 + rise + 11)) });
    }
    const chosen = candidates.find((c) => overlap(c.block) === 0) ?? candidates.reduce((a, b) => (overlap(b.block) < overlap(a.block) ? b : a));
    const { right, last } = chosen;
    placed.push(chosen.block);
    if (p.xCi && p.xCi.every(Number.isFinite)) children.push(el('line', { x1: sx(p.xCi[0]), y1: py, x2: sx(p.xCi[1]), y2: py, stroke: color, 'stroke-width': 1.5 }));
    if (p.yCi && p.yCi.every(Number.isFinite)) children.push(el('line', { x1: px, y1: sy(p.yCi[0]), x2: px, y2: sy(p.yCi[1]), stroke: color, 'stroke-width': 1.5 }));
    children.push(el('circle', { cx: px, cy: py, r: 6, fill: color }, [txt('title', `${p.label}: ${opts.xLabel} ${opts.xPercent ? pctLabel(p.x) : p.x.toFixed(1)}, ${opts.yLabel} ${opts.yPercent ?? true ? pctLabel(p.y) : p.y.toFixed(1)}`)]));
    children.push(lines(text, right ? px + 9 : px - 9, last - rise, right ? {} : { 'text-anchor': 'end' }));
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
  for (let i = 0; i <= 5; i++) children.push(tick((i / 5).toFixed(1), sx(i / 5), f.y0 + 16));
  children.push(txt('text', 'Stated confidence', { x: (f.x0 + f.x1) / 2, y: height - 8, 'text-anchor': 'middle' }));
  return svg(title, height, children);
}

/** Confusion matrix as a heat map: rows gold, columns answer; cell shade by row share. */
export function confusionHeatmap(title: string, rows: readonly string[], cols: readonly string[], matrix: readonly (readonly number[])[]): SvgNode {
  const cell = Math.min(56, Math.floor(440 / Math.max(1, cols.length)));
  // Room for the longest labels, whole: row labels to the left, column labels slanted at 40° above.
  const colText = Math.max(1, ...cols.map((c) => textWidth(clip(c))));
  const left = Math.max(90, Math.max(1, ...rows.map((r) => textWidth(clip(r)))) + 16);
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
  const key = legend(opts.series.map((s) => s.name));
  const plot = 300;
  const height = plot + key.height;
  const f = frame(plot);
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
  for (const t of opts.xTicks) children.push(tick(String(t), sx(t), f.y0 + 16));
  children.push(txt('text', opts.xLabel, { x: (f.x0 + f.x1) / 2, y: f.y0 + 32, 'text-anchor': 'middle' }));
  children.push(txt('text', opts.yLabel, { x: 12, y: (f.y0 + f.y1) / 2, transform: `rotate(-90 12 ${(f.y0 + f.y1) / 2})`, 'text-anchor': 'middle' }));
  opts.series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length]!;
    const pts = s.points.filter((p) => Number.isFinite(p.y));
    if (pts.length > 1) children.push(el('polyline', { points: pts.map((p) => `${Math.round(sx(p.x) * 10) / 10},${Math.round(sy(p.y) * 10) / 10}`).join(' '), fill: 'none', stroke: color, 'stroke-width': 2 }));
    for (const p of pts) children.push(el('circle', { cx: sx(p.x), cy: sy(p.y), r: 4, fill: color }, [txt('title', `${s.name}, severity ${p.x}: ${opts.percent ? `${(p.y * 100).toFixed(1)}%` : p.y.toFixed(3)}`)]));
  });
  children.push(...key.draw(plot + 4));
  return svg(opts.title, height, children);
}

/**
 * Risk–coverage curves: selective risk (1 − accuracy of the answers kept)
 * against the share of answers kept, most confident first; a dashed line
 * marks a coverage of interest (80 %).
 */
export function riskCoverageChart(opts: { title: string; series: readonly { name: string; points: readonly { coverage: number; risk: number }[] }[]; mark?: number }): SvgNode {
  const key = legend(opts.series.map((s) => s.name));
  const plot = 320;
  const height = plot + key.height;
  const f = frame(plot);
  const sx = (v: number) => f.x0 + (f.x1 - f.x0) * v;
  const sy = (v: number) => f.y0 - (f.y0 - f.y1) * Math.max(0, Math.min(1, v));
  const children: SvgNode[] = [...yAxis(f, 1, true, 'Risk (1 − selective accuracy)')];
  for (let i = 0; i <= 5; i++) children.push(tick(pctLabel(i / 5), sx(i / 5), f.y0 + 16));
  children.push(txt('text', 'Coverage (answers kept, most confident first)', { x: (f.x0 + f.x1) / 2, y: f.y0 + 34, 'text-anchor': 'middle' }));
  if (opts.mark !== undefined) children.push(el('line', { x1: sx(opts.mark), y1: f.y0, x2: sx(opts.mark), y2: f.y1, stroke: '#999', 'stroke-dasharray': '4 3' }, [txt('title', `${pctLabel(opts.mark)} coverage`)]));
  opts.series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length]!;
    const pts = s.points.filter((p) => Number.isFinite(p.risk));
    if (pts.length) children.push(el('polyline', { points: pts.map((p) => `${Math.round(sx(p.coverage) * 10) / 10},${Math.round(sy(p.risk) * 10) / 10}`).join(' '), fill: 'none', stroke: color, 'stroke-width': 2 }, [txt('title', s.name)]));
  });
  children.push(...key.draw(plot + 4));
  return svg(opts.title, height, children);
}
