import { describe, expect, it } from 'vitest';
import { barChart, confusionHeatmap, scatterChart, wrapLabel } from '../../../src/core/results/charts.ts';
import type { SvgNode } from '../../../src/core/results/svg.ts';

/** Every text node with its attributes, depth first (a text of several lines is its lines joined by a space). */
function texts(node: SvgNode): { text: string; attrs: Readonly<Record<string, string | number>> }[] {
  if (node.tag === 'text' && node.text === undefined && node.children?.every((c) => c.tag === 'tspan')) return [{ text: node.children.map((c) => c.text ?? '').join(' '), attrs: node.attrs ?? {} }];
  const own = node.tag === 'text' && node.text !== undefined ? [{ text: node.text, attrs: node.attrs ?? {} }] : [];
  return [...own, ...(node.children ?? []).flatMap(texts)];
}

const CLASSES = ['tumor', 'stroke', 'multiple sclerosis', 'normal', 'other abnormalities'];

describe('category labels are drawn whole', () => {
  it('wraps a long label at spaces, hyphens and underscores', () => {
    expect(wrapLabel('multiple sclerosis', 12)).toEqual(['multiple', 'sclerosis']);
    expect(wrapLabel('pituitary_tumor', 10)).toEqual(['pituitary_', 'tumor']);
    expect(wrapLabel('stroke', 12)).toEqual(['stroke']);
    expect(wrapLabel('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
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
    // Drawn from x at a generous 7.2 px per character, it ends inside the chart.
    expect(Number(entry!.attrs.x) + long.length * 7.2).toBeLessThanOrEqual(width);
  });

  it('gives the confusion matrix room for its longest row and column names', () => {
    const matrix = CLASSES.map(() => CLASSES.map(() => 1));
    const chart = confusionHeatmap('Confusion', CLASSES, [...CLASSES, 'undetermined'], matrix);
    const labels = texts(chart);
    for (const c of CLASSES) expect(labels.filter((t) => t.text === c)).toHaveLength(2);
    // Row labels end at the grid and start inside the picture.
    const row = labels.find((t) => t.text === 'other abnormalities' && t.attrs['text-anchor'] === 'end')!;
    expect(Number(row.attrs.x) - 'other abnormalities'.length * 7.2).toBeGreaterThanOrEqual(0);
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
});
