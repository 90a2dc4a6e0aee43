/**
 * Neural-MedBench figures beyond pass@1: pass@5 of each dialogue turn and of
 * the dialogue (ranked list, docs/protocols.md#passk), pass@k over samples of
 * whole dialogues (the unbiased estimator), BERTScore per turn against that
 * turn's reference rationale, and BERTScore of a differential's free text.
 * The encoder is a word-level one (one-hot vector per distinct word), so each
 * BERTScore can be worked out by hand: P = share of answer words found in the
 * reference, R = share of reference words found in the answer.
 */
import { describe, expect, it } from 'vitest';
import type { BenchCase } from '../../../../../src/core/bundle/types.ts';
import { buildLeaderboard } from '../../../../../src/core/results/leaderboard.ts';
import { overviewOf } from '../../../../../src/core/results/overview.ts';
import { buildHtmlReport } from '../../../../../src/core/results/report-html.ts';
import { agreementReport } from '../../../../../src/core/results/agreement.ts';
import { metricDefinition } from '../../../../../src/core/scoring/run/definitions.ts';
import { scoreRun, type RunScoringInput } from '../../../../../src/core/scoring/run/index.ts';
import type { SimilarityEncoder } from '../../../../../src/core/scoring/run/similarity.ts';
import type { ScoreRecord } from '../../../../../src/core/scoring/run/records.ts';
import { itemKeyOf } from '../../../../../src/core/runner/plan.ts';
import type { ResponseRecord, TurnRecord } from '../../../../../src/core/model/answer.ts';

/** One dimension per distinct lower-cased word: cosine 1 for the same word, 0 otherwise. */
function wordEncoder(): SimilarityEncoder {
  const vocab = new Map<string, number>();
  const DIM = 128;
  const vec = (w: string) => {
    if (!vocab.has(w)) vocab.set(w, vocab.size);
    const v = new Float32Array(DIM);
    v[vocab.get(w)!] = 1;
    return v;
  };
  return {
    id: 'test/word-encoder',
    sentenceEmbeddings: async (texts) => texts.map(() => Float32Array.of(1)),
    tokenEmbeddings: async (text) => {
      const tokens = text.toLowerCase().split(/\s+/).filter(Boolean);
      return { tokens, vectors: tokens.map(vec) };
    },
  };
}

const R1 = 'fever and confusion suggest encephalitis';
const R2 = 'positive pcr confirms herpes encephalitis';

const dialogue: BenchCase = {
  id: 'mr1',
  taskFamily: 'multi-turn',
  images: [{ path: 'a.png', sha256: 'aa' }],
  questions: [{
    id: '1',
    text: 'What is the most likely diagnosis?',
    reference: { diagnosis: 'Viral encephalitis', rationale: R1 },
    followUps: [
      { id: '2', text: 'CSF HSV PCR is positive. Does this change your assessment?', reference: { diagnosis: 'Herpes simplex encephalitis', rationale: R2 } },
      { id: '3', text: 'Any further thoughts?' },
    ],
  }],
};

const differential: BenchCase = {
  id: 'dd1',
  taskFamily: 'differential-diagnosis',
  images: [{ path: 'a.png', sha256: 'aa' }],
  questions: [{ id: '1', text: 'Differential?', reference: { diagnosis: 'Glioblastoma', rationale: 'ring enhancing necrotic mass with oedema' } }],
};

const noRationale: BenchCase = {
  id: 'dd2',
  taskFamily: 'differential-diagnosis',
  images: [{ path: 'a.png', sha256: 'aa' }],
  questions: [{ id: '1', text: 'Differential?', reference: { diagnosis: 'Multiple sclerosis' } }],
};

const cases = [dialogue, differential, noRationale];

const usage = { promptTokens: 1, completionTokens: 1, ttftMs: 1, prefillTps: 1, decodeTps: 1 };

const dx = (names: string[], extra: Record<string, unknown> = {}) => ({
  hypotheses: names.map((diagnosis, i) => ({ rank: i + 1, diagnosis, confidence: 0.5, evidence: null })),
  ...extra,
});

function turn(id: string, parsed: unknown): TurnRecord {
  return { id, rawText: JSON.stringify(parsed), parsed, parseError: null, finishReason: 'stop', usage: { promptTokens: 1, completionTokens: 1, ttftMs: 1, prefillTps: 1, decodeTps: 1, totalMs: 1 } as never, latencyMs: 1 };
}

function response(c: BenchCase, modelId: string, parsed: unknown, turns?: TurnRecord[], sample = 0): ResponseRecord {
  const itemKey = itemKeyOf({ caseId: c.id, questionId: '1', modelId, variant: 'none', sample });
  return {
    id: `run/${itemKey}`, runId: 'run', itemKey, caseId: c.id, questionId: '1', cacheKey: '', modelId, variant: 'none', sample,
    rawText: JSON.stringify(parsed), parsed, parseError: null, usage, latencyMs: 10, finishReason: 'stop', createdAt: 1, ...(turns ? { turns } : {}),
  };
}

const input = (responses: ResponseRecord[]): RunScoringInput => ({ protocolId: 'auto', cases, responses });

/** The dialogue answered in three turns: right at turn 1, right only at rank 3 at turn 2. */
const threeTurns = [
  turn('initial', dx(['Viral encephalitis', 'Autoimmune encephalitis'], { text: 'confusion suggest stroke' })),
  turn('2', dx(['Autoimmune encephalitis', 'Glioma', 'Herpes simplex encephalitis'], { text: 'pcr confirms herpes encephalitis' })),
  turn('3', dx(['Autoimmune encephalitis', 'Glioma', 'Herpes simplex encephalitis'], { text: 'no change' })),
];

describe('Neural-MedBench multi-round dialogue: pass@1 and pass@5 per turn and per dialogue', () => {
  it('scores the ranked differential of every turn against that turn\'s reference, and the dialogue at its last turn', async () => {
    const r = await scoreRun(input([response(dialogue, 'm', threeTurns.at(-1)!.parsed, threeTurns)]));
    const m = r.items[0]!.metrics;
    expect([m['turn1.pass@1']!.value, m['turn1.pass@5']!.value]).toEqual([1, 1]);
    // Turn 2: the herpes diagnosis is third, so pass@5 but not pass@1.
    expect([m['turn2.pass@1']!.value, m['turn2.pass@5']!.value]).toEqual([0, 1]);
    // Turn 3 has no reference of its own: it is scored against the dialogue's (turn 1).
    expect([m['turn3.pass@1']!.value, m['turn3.pass@5']!.value]).toEqual([0, 0]);
    // The dialogue ends at turn 3.
    expect([m['pass@1']!.value, m['pass@5']!.value]).toEqual([0, 0]);
    expect(r.items[0]!.primary).toBe('pass@1');
  });

  it('takes the dialogue\'s pass@k from its last turn that was answered, and counts only the top five', async () => {
    const twoTurns = threeTurns.slice(0, 2);
    const answered = await scoreRun(input([response(dialogue, 'm', twoTurns[1]!.parsed, twoTurns)]));
    expect([answered.items[0]!.metrics['pass@1']!.value, answered.items[0]!.metrics['pass@5']!.value]).toEqual([0, 1]);
    expect(answered.items[0]!.notes).toContain('Answered 2 of 3 turns.');

    const sixth = [threeTurns[0]!, turn('2', dx(['A', 'B', 'C', 'D', 'E', 'Herpes simplex encephalitis']))];
    const late = await scoreRun(input([response(dialogue, 'm', sixth[1]!.parsed, sixth)]));
    expect(late.items[0]!.metrics['turn2.pass@5']!.value).toBe(0);
  });

  it('summarises pass@5 per model with a Wilson interval, beside pass@1', async () => {
    const wrong = [threeTurns[0]!, turn('2', dx(['Glioma']))];
    const r = await scoreRun(input([
      response(dialogue, 'a', threeTurns[1]!.parsed, threeTurns.slice(0, 2)),
      response(dialogue, 'b', wrong[1]!.parsed, wrong),
    ]));
    const [a, b] = r.summary.arms;
    const get = (arm: typeof a, k: string) => arm!.metrics.find((x) => x.metric === k)!;
    expect(get(a, 'pass@5')).toMatchObject({ mean: 1, n: 1, ciMethod: 'wilson', label: 'pass@5' });
    expect(get(b, 'pass@5')).toMatchObject({ mean: 0, n: 1 });
    expect(get(a, 'turn2.pass@5').label).toBe('pass@5 at turn 2');
  });

  it('estimates pass@1 and pass@5 over five sampled dialogues with the unbiased estimator', async () => {
    // Dialogue A: 2 of 5 samples end on the right diagnosis; a second model ends right in none of 5.
    const ending = (right: boolean) => [threeTurns[0]!, turn('2', dx([right ? 'Herpes simplex encephalitis' : 'Glioma']))];
    const responses = [0, 1, 2, 3, 4].flatMap((s) => [
      response(dialogue, 'a', null, ending(s < 2), s),
      response(dialogue, 'b', null, ending(false), s),
    ]);
    const r = await scoreRun(input(responses));
    const [a, b] = r.summary.arms;
    const get = (arm: typeof a, k: string) => arm!.metrics.find((x) => x.metric === k);
    // n = 5, c = 2: pass@1 = 1 − C(3,1)/C(5,1) = 2/5; pass@5 = 1 − C(3,5)/C(5,5) = 1.
    expect(get(a, 'pass@1 (samples)')!.mean).toBeCloseTo(0.4, 12);
    expect(get(a, 'pass@5 (samples)')!.mean).toBe(1);
    expect(get(b, 'pass@5 (samples)')!.mean).toBe(0);
  });
});

describe('Neural-MedBench BERTScore', () => {
  it('scores each turn\'s reply against that turn\'s reference rationale, and the dialogue as their mean', async () => {
    const r = await scoreRun(input([response(dialogue, 'm', threeTurns.at(-1)!.parsed, threeTurns)]), { encoder: wordEncoder() });
    const m = r.items[0]!.metrics;
    // Turn 1: "confusion suggest stroke" vs R1 (5 words): P = 2/3, R = 2/5, F = 1/2.
    expect(m['turn1.bertscore.p']!.value).toBeCloseTo(2 / 3, 6);
    expect(m['turn1.bertscore.r']!.value).toBeCloseTo(2 / 5, 6);
    expect(m['turn1.bertscore.f']!.value).toBeCloseTo(1 / 2, 6);
    // Turn 2: "pcr confirms herpes encephalitis" vs R2: P = 1, R = 4/5, F = 8/9.
    expect(m['turn2.bertscore.f']!.value).toBeCloseTo(8 / 9, 6);
    // Turn 3 falls back to the dialogue's reference: "no change" shares nothing with R1.
    expect(m['turn3.bertscore.f']!.value).toBe(0);
    expect(m['bertscore.f']).toEqual({ value: expect.closeTo((1 / 2 + 8 / 9 + 0) / 3, 6), source: 'encoder', sourceId: 'test/word-encoder' });
    expect(m['bertscore.p']!.value).toBeCloseTo((2 / 3 + 1 + 0) / 3, 6);
    // pass@k is unchanged by the encoder.
    expect(m['pass@1']!.value).toBe(0);
  });

  it('summarises per-turn BERTScore as a continuous figure with a bootstrap interval', async () => {
    const r = await scoreRun(input([response(dialogue, 'm', threeTurns.at(-1)!.parsed, threeTurns)]), { encoder: wordEncoder(), resamples: 50 });
    const turn2 = r.summary.arms[0]!.metrics.find((x) => x.metric === 'turn2.bertscore.f')!;
    expect(turn2).toMatchObject({ label: 'BERTScore F at turn 2', ciMethod: 'bootstrap', encoder: 'test/word-encoder' });
    expect(turn2.mean).toBeCloseTo(8 / 9, 6);
  });

  it('scores a differential\'s free text against the reference rationale where the reference has one', async () => {
    const withText = response(differential, 'm', dx(['Glioblastoma'], { text: 'necrotic mass with oedema' }));
    const withEvidence = response(differential, 'n', { hypotheses: [{ rank: 1, diagnosis: 'Glioblastoma', confidence: 0.8, evidence: 'ring enhancing' }] });
    const without = response(noRationale, 'm', dx(['Multiple sclerosis']));
    const r = await scoreRun(input([withText, withEvidence, without]), { encoder: wordEncoder() });
    const [a, b, c] = r.items;
    // "necrotic mass with oedema" vs 6 reference words: P = 1, R = 4/6, F = 0.8.
    expect(a!.metrics['bertscore.f']!.value).toBeCloseTo(0.8, 6);
    expect(a!.metrics['pass@1']!.value).toBe(1);
    // No reply text: the hypothesis and its evidence, "glioblastoma: ring enhancing" → P = 2/3, R = 2/6, F = 4/9.
    expect(b!.metrics['bertscore.f']!.value).toBeCloseTo(4 / 9, 6);
    // No rationale in the reference: no BERTScore, pass@k as before.
    expect(c!.metrics['bertscore.f']).toBeUndefined();
    expect(c!.metrics['pass@1']!.value).toBe(1);
  });

  it('gives a differential no BERTScore without an encoder', async () => {
    const r = await scoreRun(input([response(differential, 'm', dx(['Glioblastoma'], { text: 'necrotic mass' }))]));
    expect(Object.keys(r.items[0]!.metrics).sort()).toEqual(['pass@1', 'pass@5']);
  });
});

describe('whose definition each Neural-MedBench figure follows', () => {
  it('labels pass@1 and pass@5 as the benchmark\'s, and BERTScore, per-turn and sample figures as NeuroEval\'s own', () => {
    expect(metricDefinition('pass@1')).toMatchObject({ origin: 'benchmark', benchmark: 'Neural-MedBench' });
    expect(metricDefinition('pass@5')).toMatchObject({ origin: 'benchmark', benchmark: 'Neural-MedBench' });
    expect(metricDefinition('bertscore.f')!.origin).toBe('neuroeval');
    expect(metricDefinition('turn2.pass@5')!.origin).toBe('neuroeval');
    expect(metricDefinition('pass@5 (samples)')!.origin).toBe('neuroeval');
    expect(metricDefinition('lesion.all')!.origin).toBe('neuroeval');
    expect(metricDefinition('no-such-metric')).toBeUndefined();
  });

  it('says so in the HTML report, beside each column and in a table of definitions', async () => {
    const r = await scoreRun(input([response(dialogue, 'm', threeTurns[1]!.parsed, threeTurns.slice(0, 2))]), { encoder: wordEncoder(), resamples: 50 });
    const setId = 'run/v1';
    const scored = {
      run: { id: 'run', name: 'Run', benchmarkId: 'b', status: 'done' as const, createdAt: 1 },
      set: { id: setId, runId: 'run', version: 1, createdAt: 1, durationMs: 1, config: r.config, summary: r.summary },
      items: r.items.map((it): ScoreRecord => ({ ...it, id: `${setId}|${it.responseId}`, scoreSetId: setId, runId: 'run' })),
    };
    expect(buildLeaderboard([scored]).metrics.map((x) => x.key)).toEqual(expect.arrayContaining(['pass@1', 'pass@5', 'bertscore.f']));
    const overview = overviewOf({ benchmark: { id: 'b', name: 'NMB', version: '1', caseCount: 1, contentHash: 'f'.repeat(64) } as never, runs: [], scored: [scored], cases: new Map(), reviews: [], answers: [], signature: '' });
    const html = buildHtmlReport({ overview, metric: 'pass@1', comparisons: [], breakdowns: [], agreement: agreementReport([], []), generatedAt: new Date(0), appVersion: 'test' });
    const definitions = html.slice(html.indexOf('Whose definition each figure follows'));
    expect(definitions).toContain('<th scope="row">pass@5</th><td>Neural-MedBench&#39;s definition</td>');
    expect(definitions).toContain('<th scope="row">BERTScore F</th><td>NeuroEval&#39;s own</td>');
    expect(definitions).toContain('<th scope="row">BERTScore F at turn 1</th><td>NeuroEval&#39;s own</td>');
    expect(html).toContain('<th class="num">pass@5<br><span class="muted">Neural-MedBench&#39;s definition</span></th>');
  });
});
