import { describe, expect, it } from 'vitest';
import { scatterChart } from '../../../src/core/results/charts.ts';
import type { SvgNode } from '../../../src/core/results/svg.ts';

/** Every text node with its attributes, depth first. */
function texts(node: SvgNode): { text: string; attrs: Readonly<Record<string, string | number>> }[] {
  const own = node.tag === 'text' && node.text !== undefined ? [{ text: node.text, attrs: node.attrs ?? {} }] : [];
  return [...own, ...(node.children ?? []).flatMap(texts)];
}

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
