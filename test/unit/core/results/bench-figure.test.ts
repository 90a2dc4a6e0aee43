/** How a benchmark evaluator's figure reads on the pages and in the report. */
import { describe, expect, it } from 'vitest';
import { benchFigure } from '../../../../src/core/results/format.ts';

describe('benchFigure', () => {
  it('shows shares to three decimals, per cent, milliseconds, and the evaluator\'s NaN as "no value"', () => {
    expect(benchFigure(0.56249, 'share')).toBe('0.562');
    expect(benchFigure(95.238, 'percent')).toBe('95.2%');
    expect(benchFigure(2853.4, 'ms')).toBe('2853 ms');
    expect(benchFigure(NaN, 'number')).toBe('no value');
    expect(benchFigure(undefined, 'share')).toBe('–');
  });
});
