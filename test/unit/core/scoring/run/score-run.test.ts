/**
 * Whole-run scoring: each protocol's item metrics with their sources, the
 * reviewer override, judge reuse on re-score, per-arm summaries with their
 * intervals, pass@k over samples, the MediConfusion set score, error-class
 * proposals and calibration shift. The judge here is a scripted engine (the
 * seam where a real model sits); the real self-test models run in
 * score-run-models.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { BenchCase, Question } from '../../../../../src/core/bundle/types.ts';
import { turnText } from '../../../../../src/core/chat/turn.ts';
import type { ReviewRecord } from '../../../../../src/core/model/review.ts';
import type { GenerateRequest, GenerateResult } from '../../../../../src/core/engines/engine.ts';
import { passAtKUnbiased } from '../../../../../src/core/scoring/metrics/passk.ts';
import { adjudications, scoreRun, type LocalJudge, type RunScoringInput } from '../../../../../src/core/scoring/run/index.ts';
import { wilsonInterval } from '../../../../../src/core/scoring/stats/wilson.ts';
import { itemKeyOf } from '../../../../../src/core/runner/plan.ts';
import type { ResponseRecord } from '../../../../../src/core/model/answer.ts';
import type { Variant } from '../../../../../src/core/runner/types.ts';

const RUN = 'run-1';

function kase(id: string, taskFamily: BenchCase['taskFamily'], question: Partial<Question> & { reference?: Question['reference'] }, extra: Partial<BenchCase> = {}): BenchCase {
  return { id, taskFamily, images: [{ path: 'a.png', sha256: 'aa' }], questions: [{ id: 'q1', text: `Question of ${id}?`, ...question }], ...extra };
}

function answer(caseId: string, modelId: string, parsed: unknown, over: Partial<ResponseRecord> & { variant?: Variant } = {}): ResponseRecord {
  const variant = over.variant ?? 'none';
  const sample = over.sample ?? 0;
  const itemKey = itemKeyOf({ caseId, questionId: 'q1', modelId, variant, sample });
  return {
    id: `${RUN}/${itemKey}`, runId: RUN, itemKey, caseId, questionId: 'q1', cacheKey: '', modelId, variant, sample,
    rawText: typeof parsed === 'string' ? parsed : JSON.stringify(parsed), parsed, parseError: null,
    usage: { promptTokens: 100, completionTokens: 20, ttftMs: 5, prefillTps: 100, decodeTps: 40 },
    latencyMs: 250, finishReason: 'stop', createdAt: 1, ...over,
  };
}

const dx = (...names: string[]) => ({ hypotheses: names.map((diagnosis, i) => ({ rank: i + 1, diagnosis, confidence: 0.9 - i * 0.2, evidence: null })) });

/** A judge engine that answers from a script keyed by a substring of the request. */
function scriptedJudge(script: Record<string, string>, log: string[] = []): LocalJudge {
  return {
    id: 'judge/test-llm',
    engine: {
      async generate(req: GenerateRequest): Promise<GenerateResult> {
        const text = req.messages.map((m) => turnText(m)).join('\n');
        log.push(text);
        const hit = Object.entries(script).find(([k]) => text.includes(k));
        return { text: hit ? hit[1] : 'no idea', finishReason: 'stop', usage: { promptTokens: 1, completionTokens: 1, ttftMs: 1, prefillTps: 1, decodeTps: 1, totalMs: 1 } };
      },
    },
  };
}

const cases: BenchCase[] = [
  kase('dd1', 'differential-diagnosis', { reference: { diagnosis: 'Glioblastoma', aliases: ['WHO grade 4 glioma'] } }),
  kase('dd2', 'differential-diagnosis', { reference: { diagnosis: 'Multiple sclerosis' } }),
  kase('dd3', 'differential-diagnosis', { reference: { diagnosis: 'Cerebral abscess' } }),
  kase('les', 'lesion-recognition', { reference: { lesion: { type: 'Glioblastoma', location: 'left frontal lobe', laterality: 'left', sequence: 'T1C+' } } }),
  kase('mc1', 'multiple-choice', { options: [{ key: 'A', text: 'x' }, { key: 'B', text: 'y' }], pairId: 'p1', reference: { answer: 'A' } }),
  kase('mc2', 'multiple-choice', { options: [{ key: 'A', text: 'x' }, { key: 'B', text: 'y' }], pairId: 'p1', reference: { answer: 'B' } }),
  kase('rat', 'rationale-generation', { reference: { rationale: 'Ring enhancing lesion with central necrosis and oedema suggests glioblastoma.' } }),
  kase('rub', 'open-question', { reference: { rubric: [{ id: 'r1', text: 'Mentions urgent CT', points: 5 }, { id: 'r2', text: 'Mentions anticoagulation reversal', points: 5 }, { id: 'r3', text: 'Recommends thrombolysis', points: -5 }] } }),
  kase('cls', 'classification', { reference: { labels: { diagnosis_name: 'tumor', diagnosis_detailed: 'glioma', modality: 'MRI', specialized_sequence: 'FLAIR', plane: null } } }),
  kase('mr', 'multi-turn', {
    reference: { diagnosis: 'Viral encephalitis' },
    followUps: [{ id: 'f1', text: 'CSF shows HSV PCR positive.', reference: { diagnosis: 'Herpes simplex encephalitis' } }],
  }),
];

const base = (responses: ResponseRecord[], over: Partial<RunScoringInput> = {}): RunScoringInput => ({ protocolId: 'auto', responses, cases, ...over });

describe('scoreRun: item metrics per protocol', () => {
  it('scores a differential by the rule chain: alias at rank 1, a match at rank 3, a miss', async () => {
    const r = await scoreRun(base([answer('dd1', 'm', dx('WHO grade-4 glioma', 'Metastasis')), answer('dd2', 'm', dx('ADEM', 'NMOSD', 'multiple sclerosis')), answer('dd3', 'm', dx('Metastasis'))]));
    const [a, b, c] = r.items;
    expect(a!.metrics['pass@1']).toEqual({ value: 1, source: 'rule', sourceId: 'rule:alias' });
    expect(a!.metrics['pass@5']!.value).toBe(1);
    expect(b!.metrics['pass@1']).toMatchObject({ value: 0, source: 'rule' });
    expect(b!.metrics['pass@5']).toMatchObject({ value: 1, sourceId: 'rule:exact' });
    expect(c!.metrics['pass@5']).toMatchObject({ value: 0 });
    expect(a!.confidence).toBeCloseTo(0.9);
    const arm = r.summary.arms[0]!;
    const p1 = arm.metrics.find((x) => x.metric === 'pass@1')!;
    const w = wilsonInterval(1, 3);
    expect(p1).toMatchObject({ n: 3, mean: 1 / 3, ciMethod: 'wilson', dependsOnJudge: false });
    expect(p1.ci.lower).toBeCloseTo(w.lower, 12);
    expect(p1.ci.upper).toBeCloseTo(w.upper, 12);
    expect(arm.metrics.find((x) => x.metric === 'pass@5')!.mean).toBeCloseTo(2 / 3);
  });

  it('asks the judge only where the rule says no, records its rationale, and marks the metric as judge-dependent', async () => {
    const log: string[] = [];
    const judge = scriptedJudge({ 'CANDIDATE diagnosis: Grade 4 astrocytoma': '{"equivalent": true, "confidence": 0.8, "rationale": "WHO grade 4 astrocytoma is the same entity."}' }, log);
    const r = await scoreRun(base([answer('dd1', 'm', dx('Grade 4 astrocytoma')), answer('dd2', 'm', dx('Multiple sclerosis'))]), { judge, taxonomy: false });
    expect(log).toHaveLength(1);
    expect(r.items[0]!.metrics['pass@1']).toEqual({ value: 1, source: 'judge', sourceId: 'judge/test-llm' });
    expect(r.items[0]!.verdicts[0]).toMatchObject({ source: 'judge', equivalent: true, rationale: 'WHO grade 4 astrocytoma is the same entity.' });
    expect(r.items[1]!.metrics['pass@1']!.source).toBe('rule');
    expect(r.summary.arms[0]!.metrics.find((x) => x.metric === 'pass@1')).toMatchObject({ mean: 1, dependsOnJudge: true, sources: { judge: 1, rule: 1 } });
    expect(r.config).toMatchObject({ judge: 'judge/test-llm', judgeRubricVersion: 'neuroeval/diagnosis-equivalence@1.0.0' });
  });

  it('leaves an unreadable judge reply undecided (not scorable), never a silent pass', async () => {
    const r = await scoreRun(base([answer('dd3', 'm', dx('Toxoplasmosis'))]), { judge: scriptedJudge({}), taxonomy: false });
    expect(r.items[0]!.metrics['pass@1']).toEqual({ value: null, source: 'judge', sourceId: 'judge/test-llm' });
    expect(r.items[0]!.verdicts[0]!.rationale).toMatch(/^undecided/);
    expect(r.summary.arms[0]!.metrics.find((x) => x.metric === 'pass@1')).toMatchObject({ n: 0, notScorable: 1 });
  });

  it('matches lesion fields one by one', async () => {
    const r = await scoreRun(base([answer('les', 'm', { type: 'glioblastoma multiforme', location: 'frontal lobe, left', laterality: 'left', sequence: 'T2 FLAIR' })]));
    const m = r.items[0]!.metrics;
    expect([m['lesion.type']!.value, m['lesion.location']!.value, m['lesion.laterality']!.value, m['lesion.sequence']!.value, m['lesion.all']!.value]).toEqual([1, 1, 1, 0, 0]);
    expect(r.items[0]!.primary).toBe('lesion.all');
  });

  it('scores multiple choice with invalid answers and the paired set score', async () => {
    const r = await scoreRun(base([
      answer('mc1', 'm', { choice: 'A', rule: 'boxed' }), answer('mc2', 'm', { choice: 'B', rule: 'boxed' }),
      answer('mc1', 'n', { choice: 'A', rule: 'boxed' }), answer('mc2', 'n', null, { parseError: 'invalid' }),
    ]));
    const [m, n] = r.summary.arms;
    expect(m!.metrics.find((x) => x.metric === 'mcq.set')).toMatchObject({ n: 1, mean: 1 });
    expect(n!.metrics.find((x) => x.metric === 'mcq.set')).toMatchObject({ n: 1, mean: 0 });
    expect(n!.metrics.find((x) => x.metric === 'mcq.invalid')).toMatchObject({ mean: 0.5 });
    expect(n!.metrics.find((x) => x.metric === 'mcq.correct')).toMatchObject({ mean: 0.5 });
  });

  it('scores NeuroVLM-style answers per field, with the full harness report per arm', async () => {
    const r = await scoreRun(base([answer('cls', 'm', { diagnosis_name: 'Tumor', diagnosis_detailed: 'Meningioma', modality: 'MR', specialized_sequence: 'flair', plane: 'axial', diagnosis_confidence: 0.7 })]));
    const m = r.items[0]!.metrics;
    expect(m['neurovlm.diagnosis_name']!.value).toBe(1);
    expect(r.items[0]!.primary).toBe('neurovlm.diagnosis_name');
    expect(m['neurovlm.diagnosis_detailed']!.value).toBe(0);
    expect(m['neurovlm.modality']!.value).toBe(1);
    expect(m['neurovlm.plane']).toBeUndefined(); // null ground truth: not scorable, never wrong
    expect(r.items[0]!.confidence).toBe(0.7);
    expect(r.summary.arms[0]!.neurovlm!.fields.diagnosis_name.accuracy.value).toBe(1);
  });

  it('needs a judge for rubric points and then computes clip(Σ met / Σ positive, 0, 1)', async () => {
    const text = { text: 'Get an urgent CT and give thrombolysis.' };
    const without = await scoreRun(base([answer('rub', 'm', text)]));
    expect(without.items[0]!.metrics.rubric).toBeUndefined();
    expect(without.items[0]!.notes.join(' ')).toMatch(/choose a local judge/);
    const judge = scriptedJudge({
      'CRITERION (+5 points): Mentions urgent CT': '{"met": true, "rationale": "says urgent CT"}',
      'CRITERION (+5 points): Mentions anticoagulation': '{"met": false, "rationale": "no"}',
      'CRITERION (-5 points): Recommends thrombolysis': '{"met": true, "rationale": "it does"}',
    });
    const withJudge = await scoreRun(base([answer('rub', 'm', text)]), { judge, taxonomy: false });
    expect(withJudge.items[0]!.metrics.rubric).toEqual({ value: 0, source: 'judge', sourceId: 'judge/test-llm' }); // (5 − 5) / 10
    expect(withJudge.items[0]!.verdicts.map((v) => v.for)).toEqual(['rubric:r1', 'rubric:r2', 'rubric:r3']);
  });

  it('scores each turn of a multi-round dialogue against that turn\'s reference', async () => {
    const turns = [
      { id: 'initial', rawText: '', parsed: dx('Viral encephalitis'), parseError: null, finishReason: 'stop', usage: answer('mr', 'm', null).usage, latencyMs: 1 },
      { id: 'f1', rawText: '', parsed: dx('Autoimmune encephalitis'), parseError: null, finishReason: 'stop', usage: answer('mr', 'm', null).usage, latencyMs: 1 },
    ];
    const r = await scoreRun(base([answer('mr', 'm', dx('Autoimmune encephalitis'), { turns })]));
    expect(r.items[0]!.metrics['turn1.pass@1']!.value).toBe(1);
    expect(r.items[0]!.metrics['turn2.pass@1']!.value).toBe(0);
    expect(r.items[0]!.metrics['pass@1']!.value).toBe(0);
  });

  it('gives rationales lexical scores and keeps a failed call out of every metric', async () => {
    const r = await scoreRun(base([
      answer('rat', 'm', { text: 'A ring enhancing lesion with necrosis and edema: glioblastoma.' }),
      answer('rat', 'm', null, { itemKey: 'rat#q1|m|none|s1', id: `${RUN}/rat#q1|m|none|s1`, sample: 1, error: 'engine crashed', parseError: 'engine crashed' }),
    ]));
    expect(r.items[0]!.metrics.rougeL!.value).toBeGreaterThan(0.3);
    expect(r.items[0]!.primary).toBe('rougeL');
    expect(r.items[1]!.metrics).toEqual({});
    expect(r.items[1]!.primary).toBeNull();
    expect(r.summary.arms[0]).toMatchObject({ responses: 2, failed: 1 });
    expect(r.summary.arms[0]!.metrics.find((x) => x.metric === 'rougeL')).toMatchObject({ n: 1, ciMethod: 'bootstrap' });
  });
});

describe('scoreRun: reviews, re-scoring and aggregates', () => {
  const review = (responseId: string, verdict: string, reviewerId: string, createdAt: number): ReviewRecord => ({
    id: `${responseId}/${reviewerId}`, responseId, runId: RUN, verdict, errorClasses: [], rationaleRating: null, reason: `${reviewerId} says ${verdict}`, reviewerId, createdAt, previous: [],
  });

  it('lets a clinician override the machine; majority of reviewers, tie to the latest', async () => {
    const a = answer('dd1', 'm', dx('GBM'));
    const r = await scoreRun(base([a], { reviews: [review(a.id, 'incorrect', 'dr-a', 10)] }));
    expect(r.items[0]!.metrics['pass@1']).toEqual({ value: 0, source: 'reviewer', sourceId: 'dr-a' });
    expect(r.items[0]!.verdicts.at(-1)).toMatchObject({ source: 'reviewer', rationale: 'dr-a says incorrect' });
    const tie = adjudications([review('x', 'correct', 'dr-a', 1), review('x', 'incorrect', 'dr-b', 2)]);
    expect(tie.get('x')).toMatchObject({ correct: false, reviewerId: 'dr-b' });
    const majority = adjudications([review('x', 'correct', 'dr-a', 1), review('x', 'correct', 'dr-c', 3), review('x', 'incorrect', 'dr-b', 2), review('x', 'unsure', 'dr-d', 4)]);
    expect(majority.get('x')).toMatchObject({ correct: true, reviewerId: 'dr-a, dr-c' });
  });

  it('lets reviewers mark rubric items: their marks replace the judge, and a verdict leaves rubric points alone', async () => {
    const a = answer('rub', 'm', { text: 'Urgent CT; reverse anticoagulation.' });
    const marks = (reviewerId: string, rubricMet: Record<string, boolean>, createdAt: number, verdict = 'correct'): ReviewRecord => ({ ...review(a.id, verdict, reviewerId, createdAt), rubricMet });
    // Every item marked by reviewers: no judge needed. r2 is a 1–1 tie between reviewers, so the later mark (met) counts.
    const reviews = [marks('dr-a', { r1: true, r2: false, r3: false }, 1), marks('dr-b', { r1: true, r2: true, r3: false }, 2, 'incorrect')];
    const r = await scoreRun(base([a], { reviews }));
    expect(r.items[0]!.metrics.rubric).toEqual({ value: 1, source: 'reviewer', sourceId: 'dr-a, dr-b' });
    expect(r.items[0]!.verdicts.map((v) => [v.for, v.equivalent, v.decidedBy])).toEqual([['rubric:r1', true, 'dr-a, dr-b'], ['rubric:r2', true, 'dr-b'], ['rubric:r3', false, 'dr-a, dr-b']]);
    // One item left to the judge: the judge decides it and the metric is judge-dependent.
    const judge = scriptedJudge({ 'CRITERION (-5 points)': '{"met": true, "rationale": "yes"}' });
    const partial = await scoreRun(base([a], { reviews: [marks('dr-a', { r1: true, r2: true }, 1)] }), { judge, taxonomy: false });
    expect(partial.items[0]!.metrics.rubric).toEqual({ value: 0.5, source: 'judge', sourceId: 'judge/test-llm' });
  });

  it('reuses the judge replies of a previous score set with the same judge', async () => {
    const log: string[] = [];
    const judge = scriptedJudge({ 'CANDIDATE diagnosis: Brain abscess': '{"equivalent": true, "confidence": 0.9, "rationale": "same"}' }, log);
    const responses = [answer('dd3', 'm', dx('Brain abscess')), answer('dd3', 'n', dx('Brain abscess'))];
    const first = await scoreRun(base(responses), { judge, taxonomy: false });
    expect(log).toHaveLength(1); // the same request twice is asked once
    expect(first.summary).toMatchObject({ judgeCalls: 1, judgeReused: 0 });
    const second = await scoreRun(base(responses, { previous: first.items }), { judge, taxonomy: false });
    expect(log).toHaveLength(1);
    expect(second.summary).toMatchObject({ judgeCalls: 0, judgeReused: 2 });
    expect(second.items.map((i) => i.metrics['pass@1']!.value)).toEqual([1, 1]);
  });

  it('turns a failed judge call into an undecided verdict with the reason, and asks again on re-score', async () => {
    let fail = true;
    const working = scriptedJudge({ 'CANDIDATE diagnosis: Brain abscess': '{"equivalent": true, "confidence": 0.9, "rationale": "same"}' });
    const judge: LocalJudge = {
      id: working.id,
      engine: { generate: (req, opts) => (fail ? Promise.reject(new Error('device lost')) : working.engine.generate(req, opts)) },
    };
    const stopped: LocalJudge = {
      id: working.id,
      engine: { generate: async (req, opts) => ({ ...(await working.engine.generate(req, opts)), finishReason: 'error' }) },
    };
    const responses = [answer('dd3', 'm', dx('Brain abscess'))];
    const first = await scoreRun(base(responses), { judge });
    expect(first.items[0]!.metrics['pass@1']).toEqual({ value: null, source: 'judge', sourceId: 'judge/test-llm' });
    expect(first.items[0]!.verdicts[0]!.rationale).toBe('undecided: the judge call failed: device lost');
    expect((await scoreRun(base(responses), { judge: stopped })).items[0]!.metrics['pass@1']!.value).toBeNull();
    fail = false;
    const second = await scoreRun(base(responses, { previous: first.items }), { judge });
    expect(second.summary).toMatchObject({ judgeCalls: 1, judgeReused: 0 });
    expect(second.items[0]!.metrics['pass@1']!.value).toBe(1);
  });

  it('stops scoring when aborted, even while the judge is answering', async () => {
    const ac = new AbortController();
    const judge: LocalJudge = {
      id: 'judge/test-llm',
      engine: {
        generate: () => {
          ac.abort();
          return Promise.reject(new Error('aborted'));
        },
      },
    };
    await expect(scoreRun(base([answer('dd3', 'm', dx('Brain abscess'))]), { judge, signal: ac.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('has the judge propose error classes for wrong answers only, keeping known ids', async () => {
    const judge = scriptedJudge({
      'Which error classes apply': '{"classes": ["perceptual_failure", "missed lesion", "made_up"], "rationale": "missed the ring enhancement"}',
      'CANDIDATE diagnosis': '{"equivalent": false, "confidence": 0.9, "rationale": "different"}',
    });
    const r = await scoreRun(base([answer('dd1', 'm', dx('Metastasis')), answer('dd2', 'm', dx('Multiple sclerosis'))]), { judge });
    expect(r.items[0]!.taxonomy).toMatchObject({ classes: ['perceptual_failure', 'missed_lesion'], sourceId: 'judge/test-llm', rationale: 'missed the ring enhancement' });
    expect(r.items[1]!.taxonomy).toBeNull();
    expect(r.config.taxonomy).toBe(true);
    expect(r.summary.arms[0]).toMatchObject({ wrong: 1, proposedErrorClasses: { perceptual_failure: 1, missed_lesion: 1 } });
  });

  it('computes pass@k over samples with the unbiased estimator', async () => {
    const samples = [dx('GBM'), dx('Metastasis'), dx('Lymphoma'), dx('glioblastoma'), dx('Abscess')];
    const r = await scoreRun(base(samples.map((p, s) => answer('dd1', 'm', p, { sample: s }))));
    const arm = r.summary.arms[0]!;
    expect(arm.metrics.find((x) => x.metric === 'pass@1 (samples)')!.mean).toBeCloseTo(passAtKUnbiased(5, 2, 1));
    expect(arm.metrics.find((x) => x.metric === 'pass@5 (samples)')!.mean).toBe(1);
  });

  it('reports calibration shift by degradation severity per model', async () => {
    const responses = [
      answer('dd1', 'm', dx('GBM')), answer('dd2', 'm', dx('Multiple sclerosis')),
      answer('dd1', 'm', dx('Metastasis'), { variant: 'degrade:noise:2' }), answer('dd2', 'm', dx('Multiple sclerosis'), { variant: 'degrade:noise:2' }),
    ];
    const r = await scoreRun(base(responses));
    const shift = r.summary.calibrationShift[0]!;
    expect(shift).toMatchObject({ modelId: 'm', kind: 'noise' });
    expect(shift.levels.map((l) => [l.severity, l.accuracy])).toEqual([[0, 1], [2, 0.5]]);
    expect(shift.levels[1]!.deltaFromBaseline).toBeCloseTo(0.5);
    expect(r.summary.arms.map((a) => a.key)).toEqual(['m', 'm [degrade:noise:2]']);
  });

  it('refuses a run whose protocol it does not know, naming the field', async () => {
    await expect(scoreRun(base([], { protocolId: 'nope' }))).rejects.toMatchObject({ code: 'INVALID_INPUT', location: { field: 'protocol' } });
  });

  it('scores an empty run to empty summaries', async () => {
    const r = await scoreRun(base([]));
    expect(r.summary).toMatchObject({ arms: [], items: 0, failed: 0 });
  });
});
