import { describe, expect, it } from 'vitest';
import { barChart, confusionHeatmap, riskCoverageChart, scatterChart } from '../../../../src/core/results/charts.ts';
import { textWidth, wrapToWidth } from '../../../../src/core/results/text-width.ts';
import type { SvgNode } from '../../../../src/core/results/svg.ts';

/** Every text node with its attributes, depth first (a text of several lines is its lines joined by a space). */
function texts(node: SvgNode): { text: string; attrs: Readonly<Record<string, string | number>> }[] {
  if (node.tag === 'text' && node.text === undefined && node.children?.every((c) => c.tag === 'tspan')) return [{ text: node.children.map((c) => c.text ?? '').join(' '), attrs: node.attrs ?? {} }];
  const own = node.tag === 'text' && node.text !== undefined ? [{ text: node.text, attrs: node.attrs ?? {} }] : [];
  return [...own, ...(node.children ?? []).flatMap(texts)];
}

const CLASSES = ['tumor', 'stroke', 'multiple sclerosis', 'normal', 'other abnormalities'];

describe('category labels are drawn whole', () => {
  it('wraps a long label at spaces, hyphens and underscores, to a width in pixels', () => {
    expect(wrapToWidth('multiple sclerosis', 80)).toEqual(['multiple', 'sclerosis']);
    expect(wrapToWidth('pituitary_tumor', 70)).toEqual(['pituitary_', 'tumor']);
    expect(wrapToWidth('stroke', 80)).toEqual(['stroke']);
    // A word wider than the line is split inside it; no character is lost.
    const split = wrapToWidth('abcdefghij', 30);
    expect(split.join('')).toBe('abcdefghij');
    for (const line of split) expect(textWidth(line)).toBeLessThanOrEqual(30);
  });

  it('shows every group of a breakdown in full under its bars, and every legend name', () => {
    const chart = barChart({ title: 'by disease group', series: ['demo-trained [degrade:contrast:3]', 'self-test'], groups: CLASSES.map((label) => ({ label, values: [{ value: 0.5 }, { value: 0.2 }] })) });
    const shown = texts(chart).map((t) => t.text);
    for (const c of CLASSES) expect(shown).toContain(c);
    expect(shown).toContain('demo-trained [degrade:contrast:3]');
    expect(shown.some((t) => t.includes('…'))).toBe(false);
  });

  it('draws a catalogue display name with its variant whole in the legend, inside the chart', () => {
    const long = 'Demo-trained model (synthetic phantoms only; not a medical model) [text-only]';
    const chart = barChart({ title: 'by disease group', series: [long, 'Self-test model (random weights)'], groups: CLASSES.map((label) => ({ label, values: [{ value: 0.5 }, { value: 0.2 }] })) });
    const entry = texts(chart).find((t) => t.text === long);
    expect(entry).toBeDefined();
    const width = Number(chart.attrs?.width ?? String(chart.attrs?.viewBox ?? '').split(' ')[2]);
    // Drawn from x in the widest common sans-serif font, it ends inside the chart.
    expect(Number(entry!.attrs.x) + textWidth(long)).toBeLessThanOrEqual(width);
  });

  it('gives the confusion matrix room for its longest row and column names', () => {
    const matrix = CLASSES.map(() => CLASSES.map(() => 1));
    const chart = confusionHeatmap('Confusion', CLASSES, [...CLASSES, 'undetermined'], matrix);
    const labels = texts(chart);
    for (const c of CLASSES) expect(labels.filter((t) => t.text === c)).toHaveLength(2);
    // Row labels end at the grid and start inside the picture.
    const row = labels.find((t) => t.text === 'other abnormalities' && t.attrs['text-anchor'] === 'end')!;
    expect(Number(row.attrs.x) - textWidth('other abnormalities')).toBeGreaterThanOrEqual(0);
  });
});

describe('legends and titles are never cut', () => {
  // Two runs of one model: their names differ only at the end.
  const twins = [
    'SmolVLM 256M Instruct (q4 decoder, fp32 math) · Committee pilot: four local and on-prem models, greedy decoding, original images',
    'SmolVLM 256M Instruct (q4 decoder, fp32 math) · Committee pilot: four local and on-prem models, greedy decoding, degraded images',
  ];
  const width = (chart: SvgNode) => Number(chart.attrs?.width);
  const height = (chart: SvgNode) => Number(chart.attrs?.height);

  it('wraps a legend name wider than the chart onto more lines, every character kept, every line inside the chart', () => {
    const chart = riskCoverageChart({ title: 'Risk–coverage', series: twins.map((name) => ({ name, points: [{ coverage: 0.5, risk: 0.2 }, { coverage: 1, risk: 0.3 }] })) });
    const entries = texts(chart).filter((t) => t.text.startsWith('SmolVLM'));
    expect(entries.map((t) => t.text)).toEqual(twins);
    const lines = (node: SvgNode): SvgNode[] => (node.tag === 'tspan' ? [node] : (node.children ?? []).flatMap(lines));
    const legendLines = chart.children!.flatMap((c) => (c.tag === 'g' ? lines(c) : []));
    expect(legendLines.length).toBeGreaterThan(2);
    for (const l of legendLines) expect(Number(l.attrs!.x) + textWidth(l.text!)).toBeLessThanOrEqual(width(chart));
    // The last legend line's baseline is inside the picture, with room for descenders.
    const last = entries.at(-1)!;
    expect(Number(last.attrs.y) + (wrapToWidth(last.text, width(chart) - 82).length - 1) * 14 + 4).toBeLessThanOrEqual(height(chart));
  });

  it('ends the last x-axis label at the chart\'s edge instead of centring it past the edge', () => {
    const chart = riskCoverageChart({ title: 'Risk–coverage', series: [{ name: 'a', points: [{ coverage: 1, risk: 0.2 }] }] });
    const last = texts(chart).filter((t) => t.text === '100%').find((t) => t.attrs['text-anchor'] === 'end');
    expect(last).toBeDefined();
    expect(Number(last!.attrs.x)).toBeLessThanOrEqual(width(chart));
    const first = texts(chart).find((t) => t.text === '0%' && t.attrs['text-anchor'] === 'middle');
    expect(first).toBeDefined();
  });

  it('wraps a long title and moves the chart down under it', () => {
    const short = barChart({ title: 'Accuracy', series: ['a'], groups: [{ label: 'g', values: [{ value: 0.5 }] }] });
    const long = barChart({ title: `Reliability: ${twins[0]}`, series: ['a'], groups: [{ label: 'g', values: [{ value: 0.5 }] }] });
    const title = long.children!.find((c) => c.tag === 'text')!;
    const titleLines = title.children!.map((c) => c.text!);
    expect(titleLines.join(' ')).toBe(`Reliability: ${twins[0]}`);
    for (const l of titleLines) expect(8 + textWidth(l, { bold: true })).toBeLessThanOrEqual(width(long));
    expect(height(long) - height(short)).toBe((titleLines.length - 1) * 14);
    expect(long.children!.at(-1)!.attrs?.transform).toBe(`translate(0 ${(titleLines.length - 1) * 14})`);
  });
});

describe('scatter chart labels', () => {
  it('keeps a point label inside the chart: to the right of a point on the left, to the left of one near the right edge', () => {
    const chart = scatterChart({
      title: 'Breadth vs depth',
      xLabel: 'accuracy',
      yLabel: 'pass@1',
      xPercent: true,
      points: [
        { label: 'self-test [text-only]', x: 0, y: 0 },
        { label: 'demo-trained [degrade:contrast:1]', x: 0.96, y: 0 },
      ],
    });
    const labels = texts(chart);
    const left = labels.find((t) => t.text === 'self-test [text-only]')!;
    const right = labels.find((t) => t.text.startsWith('demo-trained'))!;
    expect(left.attrs['text-anchor']).toBeUndefined();
    expect(right.attrs['text-anchor']).toBe('end');
    const width = Number(chart.attrs?.width ?? String(chart.attrs?.viewBox ?? '').split(' ')[2]);
    expect(Number(right.attrs.x)).toBeLessThan(width);
  });
  it('keeps the long names of models at one spot apart, none drawn over another', () => {
    const names = [
      'Demo-trained model (synthetic phantoms only; not a medical model) · Repeat of the demo-trained model after the runtime update (same cases, same settings)',
      'Demo-trained model (synthetic phantoms only; not a medical model) · Committee pilot: four local and on-prem models, greedy decoding, original images',
      'endpoint:department-mirror-qwen2.5-vl-7b-instruct-awq-long-deployment-name',
      'MedGemma 4B it (q4, fp32 math)',
      'SmolVLM 256M Instruct (q4 decoder, fp32 math)',
    ];
    const chart = scatterChart({ title: 'Class vs speed', xLabel: 'decode speed (tokens/s)', yLabel: 'Class', yPercent: true, points: names.map((label, i) => ({ label, x: 31.4 + (i % 2) * 0.1, y: 0.64 - (i % 2) * 0.04 })) });
    // Each label's box, from its lines as drawn: the first line's baseline at y, 14 px a line, ascent 11 and descent 3.
    const nodes: SvgNode[] = [];
    const walk = (n: SvgNode) => { if (n.tag === 'text' && n.children?.every((c) => c.tag === 'tspan')) nodes.push(n); (n.children ?? []).forEach(walk); };
    walk(chart);
    const boxes = names.map((name) => {
      const n = nodes.find((t) => t.children!.map((c) => c.text ?? '').join(' ').replace(/ /g, '') === name.replace(/ /g, ''))!;
      expect(n, name).toBeDefined();
      const wide = Math.max(...n.children!.map((c) => textWidth(c.text ?? '')));
      const x = Number(n.attrs!.x);
      const y = Number(n.attrs!.y);
      const x0 = n.attrs!['text-anchor'] === 'end' ? x - wide : x;
      return { name, x0, x1: x0 + wide, top: y - 11, bottom: y + (n.children!.length - 1) * 14 + 3 };
    });
    for (const [i, a] of boxes.entries()) {
      for (const b of boxes.slice(i + 1)) {
        const clash = a.x0 < b.x1 && b.x0 < a.x1 && a.top < b.bottom && b.top < a.bottom;
        expect(clash, `"${a.name}" is drawn over "${b.name}"`).toBe(false);
      }
    }
  });
});

