/** How a benchmark evaluator's figure reads on the pages and in the report. */
import { describe, expect, it } from 'vitest';
import { benchFigure } from '../../../src/core/results/format.ts';

describe('benchFigure', () => {
  it('shows shares to three decimals, per cent, milliseconds, and NaN as the evaluator reports it', () => {
    expect(benchFigure(0.56249, 'share')).toBe('0.562');
    expect(benchFigure(95.238, 'percent')).toBe('95.2%');
    expect(benchFigure(2853.4, 'ms')).toBe('2853 ms');
    expect(benchFigure(NaN, 'number')).toBe('NaN');
    expect(benchFigure(undefined, 'share')).toBe('–');
  });
});
