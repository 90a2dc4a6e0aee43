/**
 * The check before a run: the answers still to come, at the run's answer
 * budget, against what the browser says is free, with a margin.
 */
import { describe, expect, it } from 'vitest';
import { NeuroEvalError } from '../../../../src/core/errors.ts';
import { SPACE_MARGIN_BYTES, assertRunFits, bytesPerAnswer, runSpace } from '../../../../src/core/runner/space.ts';

const MiB = 1024 * 1024;

describe('does a run fit on the disk', () => {
  it('counts every answer at the budget, dialogues by their turns', () => {
    expect(bytesPerAnswer(480)).toBe(2 * (1024 + 480 * 8));
    expect(bytesPerAnswer(480, 3)).toBe(3 * bytesPerAnswer(480));
    expect(runSpace({ answers: 100, maxTokens: 480, estimate: { quota: 500 * MiB, usage: 100 * MiB } })).toEqual({ needed: 100 * bytesPerAnswer(480), free: 400 * MiB });
  });

  it('lets a run start that fits with the margin', () => {
    expect(() => assertRunFits({ answers: 1000, maxTokens: 480, estimate: { quota: 200 * MiB, usage: 10 * MiB } })).not.toThrow();
  });

  it('refuses one that does not, saying what it needs and what is free', () => {
    const c = { answers: 1000, maxTokens: 480, estimate: { quota: 40 * MiB, usage: 10 * MiB } };
    expect(() => assertRunFits(c)).toThrow(NeuroEvalError);
    expect(() => assertRunFits(c)).toThrow(
      'Not enough storage for this run: its 1000 remaining answers need about 9.3 MiB, plus 32 MiB kept free, and the browser has 30 MiB free for NeuroEval on this disk. Free space on the disk (or delete older runs), or run fewer items. Nothing was changed.',
    );
    // The margin alone can refuse: a disk with less than it free takes no run.
    expect(() => assertRunFits({ answers: 1, maxTokens: 16, estimate: { quota: SPACE_MARGIN_BYTES, usage: 0 } })).toThrow(/Not enough storage/);
  });

  it('does not guess where the browser gives no estimate', () => {
    expect(() => assertRunFits({ answers: 10 ** 6, maxTokens: 4096, estimate: undefined })).not.toThrow();
  });
});
