/**
 * Time left in a run of several models: each remaining model's part at its
 * own measured speed, summed; a model with nothing measured is named as not
 * known instead of being priced at the model now answering.
 */
import { describe, expect, it } from 'vitest';
import { LIVE_HALF_WEIGHT, type RunEstimate } from '../../../../src/core/runner/estimate.ts';
import { estimateText, remainingText } from '../../../../src/features/runs/estimate-text.ts';
import { liveRemaining, type RunPrior } from '../../../../src/features/runs/live-estimate.ts';

// A slow model (5 s an answer) then a fast one (0.5 s), 20 items each, as the self-test and demo-trained models on WASM.
const prior = (fastMeasured = true): RunPrior => ({
  device: 'wasm',
  models: [
    { modelId: 'slow', items: 20, perItemS: 5, loadS: 10 },
    { modelId: 'fast', items: 20, perItemS: fastMeasured ? 0.5 : null, loadS: fastMeasured ? 3 : 0 },
  ],
});
const labels: Record<string, string> = { slow: 'Self-test', fast: 'Demo-trained' };
const labelOf = (id: string) => labels[id] ?? id;

describe('time left sums each remaining model at its own speed', () => {
  it('before any answer: every model from its record, each load included', () => {
    const r = liveRemaining(prior(), { modelId: null, itemsLeft: 40, answers: 0, seconds: 0, started: false }, 40)!;
    expect(r.seconds).toBeCloseTo(20 * 5 + 10 + 20 * 0.5 + 3);
    expect(r.unknown).toEqual([]);
    expect(r.basis).toBe('record');
  });

  it('while the slow model answers: its items at its blended rate, then the fast model at its own rate, not the slow one', () => {
    // 5 answers in 30 s here: 6 s each live, blended with the record's 5 s.
    const r = liveRemaining(prior(), { modelId: 'slow', itemsLeft: 14, answers: 5, seconds: 30, started: true }, 34)!;
    const w = 5 / (5 + LIVE_HALF_WEIGHT);
    expect(r.seconds).toBeCloseTo(14 * (w * 6 + (1 - w) * 5) + 20 * 0.5 + 3);
    expect(r.basis).toBe('blend');
  });

  it('names a model with no measured speed as not known instead of borrowing the current model\'s rate', () => {
    const r = liveRemaining(prior(false), { modelId: 'slow', itemsLeft: 14, answers: 5, seconds: 30, started: true }, 34)!;
    const w = 5 / (5 + LIVE_HALF_WEIGHT);
    // Only the slow model's own part; the fast model's 20 items are not priced at 6 s each (120 s too many).
    expect(r.seconds).toBeCloseTo(14 * (w * 6 + (1 - w) * 5));
    expect(r.unknown).toEqual(['fast']);
    expect(remainingText(r, 5, labelOf)).toMatch(/^about 77 s left \(this run's rate over 5 answers, blended with earlier answers on this machine\), plus Demo-trained's part: not known yet/);
  });

  it('times the second model from its own answers once it starts, without its record', () => {
    const r = liveRemaining(prior(false), { modelId: 'fast', itemsLeft: 16, answers: 3, seconds: 1.5, started: true }, 16)!;
    expect(r.seconds).toBeCloseTo(16 * 0.5);
    expect(r.basis).toBe('live');
    expect(r.unknown).toEqual([]);
  });

  it('without a record of the run\'s models, prices only the current model\'s items and says the rest is not known', () => {
    const r = liveRemaining(null, { modelId: 'slow', itemsLeft: 10, answers: 4, seconds: 20, started: true }, 30)!;
    expect(r.seconds).toBeCloseTo(10 * 5);
    expect(r.unknown).toEqual(['']);
    expect(remainingText(r, 4, labelOf)).toContain("about 50 s left (at this run's rate over 4 answers), plus the other models' part: not known yet");
  });

  it('has no figure before anything is known', () => {
    expect(liveRemaining(null, { modelId: 'slow', itemsLeft: 10, answers: 1, seconds: 5, started: true }, 30)).toBeNull();
    expect(remainingText(null, 0)).toBe('time left: measuring the first answers…');
  });

  it('interleaved models: the other model\'s items left are priced at its rate whichever comes first in the plan', () => {
    const r = liveRemaining(prior(), { modelId: 'fast', itemsLeft: 10, answers: 0, seconds: 0, started: true }, 20)!;
    expect(r.seconds).toBeCloseTo(10 * 0.5 + 10 * 5 + 10);
  });
});

describe('the run form\'s estimate in words', () => {
  const estimate = (slow: number | null, fast: number | null): RunEstimate => ({
    items: 40,
    seconds: slow !== null && fast !== null ? slow + fast : null,
    perModel: [
      { modelId: 'slow', items: 20, seconds: slow, perItemS: slow && slow / 20, loadS: 0, warm: false, answers: slow ? 20 : 0, unmeasuredItems: 0 },
      { modelId: 'fast', items: 20, seconds: fast, perItemS: fast && fast / 20, loadS: 0, warm: false, answers: fast ? 20 : 0, unmeasuredItems: 0 },
    ],
  });

  it('is the sum of the models when every one is measured', () => {
    expect(estimateText(estimate(100, 13), labelOf)).toBe('about 1 min 50 s');
  });

  it('gives the measured models\' sum and names the part not known yet', () => {
    expect(estimateText(estimate(null, 13), labelOf)).toBe("about 13 s for Demo-trained, plus Self-test's part (not known yet)");
  });

  it('says not known yet when no model is measured', () => {
    expect(estimateText(estimate(null, null), labelOf)).toBe('not known yet');
  });
});
