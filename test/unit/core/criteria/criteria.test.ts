import { describe, expect, it } from 'vitest';
import { criteriaSha256, parseCriteriaSet } from '../../../../src/core/criteria/criteria.ts';
import { describeCriterion, evaluateCriteria, outcomeReason } from '../../../../src/core/results/criteria-outcomes.ts';
import type { CriteriaSet } from '../../../../src/core/model/criteria.ts';
import type { BreakdownCase } from '../../../../src/core/results/leaderboard.ts';
import type { ScoredItem } from '../../../../src/core/scoring/run/records.ts';
import { SAFETY_METRICS, safetyReport, type SafetyAnswer } from '../../../../src/core/results/safety.ts';
import { wilsonInterval } from '../../../../src/core/scoring/stats/wilson.ts';
import type { ArmSummary } from '../../../../src/core/scoring/run/types.ts';

const SET: CriteriaSet = {
  version: 1,
  criteria: [
    { id: 'c1', metric: 'neurovlm.diagnosis_name', statistic: 'lower', comparator: '>=', threshold: 0.5, subgroup: 'diseaseGroup' },
    { id: 'c2', metric: 'json_valid', statistic: 'mean', comparator: '>=', threshold: 0.9, subgroup: 'all' },
    { id: 'c3', metric: 'neurovlm.diagnosis_name', statistic: 'mean', comparator: '>=', threshold: 0.95, subgroup: 'diseaseGroup', group: 'normal' },
  ],
};

describe('a criteria set', () => {
  it('hashes the same whatever the key order, and differently when a threshold moves', () => {
    const reordered = parseCriteriaSet(JSON.parse(JSON.stringify({ criteria: SET.criteria.map((c) => Object.fromEntries(Object.entries(c).reverse())), version: 1 })));
    expect(criteriaSha256(reordered)).toBe(criteriaSha256(SET));
    expect(criteriaSha256({ ...SET, criteria: [{ ...SET.criteria[0]!, threshold: 0.51 }, ...SET.criteria.slice(1)] })).not.toBe(criteriaSha256(SET));
    expect(criteriaSha256(SET)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a bad set naming the field', () => {
    expect(() => parseCriteriaSet({ version: 1, criteria: [{ ...SET.criteria[0], threshold: '0.7' }] }, 'criteria.json')).toThrow(expect.objectContaining({ location: { file: 'criteria.json', field: 'criteria[0].threshold' } }));
    expect(() => parseCriteriaSet({ version: 1, criteria: [SET.criteria[0], SET.criteria[0]] })).toThrow('Two criteria have the id "c1".');
    expect(() => parseCriteriaSet({ version: 1, criteria: [{ ...SET.criteria[0], statistic: 'median' }] })).toThrow('"statistic" must be lower, mean or upper');
    expect(() => parseCriteriaSet({ version: 2, criteria: [] })).toThrow('version must be 1');
  });

  it('says each criterion in words', () => {
    expect(describeCriterion(SET.criteria[0]!)).toBe('Class (diagnosis_name): 95 % lower bound ≥ 50 % in every disease group');
    expect(describeCriterion(SET.criteria[1]!)).toBe('JSON valid: value ≥ 90 % on the whole run');
    expect(describeCriterion(SET.criteria[2]!)).toBe('Class (diagnosis_name): value ≥ 95 % in disease group "normal"');
  });
});

describe('go / no-go', () => {
  // Model a: 9/10 right on tumours, 10/10 on normals; model b: 4/10 and 7/10 (Wilson lower bound 0.397: under 0.5 too).
  const cases = new Map<string, BreakdownCase>();
  const items: ScoredItem[] = [];
  for (const [group, right] of [['tumor', { a: 9, b: 4 }], ['normal', { a: 10, b: 7 }]] as const) {
    for (let i = 0; i < 10; i++) {
      const caseId = `${group}-${i}`;
      cases.set(caseId, { taskFamily: 'classification', diseaseGroup: group, images: [] });
      for (const m of ['a', 'b'] as const) {
        items.push({ caseId, questionId: 'q1', sample: 0, modelId: m, variant: 'none', protocolId: 'neurovlm-structured', metrics: { 'neurovlm.diagnosis_name': { value: i < right[m] ? 1 : 0 }, json_valid: { value: 1 } } });
      }
    }
  }
  const arm = (m: string, json: number): Pick<ArmSummary, 'key' | 'modelId' | 'variant' | 'metrics'> => ({
    key: m,
    modelId: m,
    variant: 'none',
    metrics: [{ metric: 'json_valid', label: 'JSON valid', n: 20, notScorable: 0, mean: json, ci: { lower: json - 0.1, upper: Math.min(1, json + 0.05) }, ciMethod: 'wilson', sources: { rule: 20 }, dependsOnJudge: false }],
  });
  const outcomes = evaluateCriteria(SET, { runId: 'r1', arms: [arm('a', 1), arm('b', 0.85)], scored: [{ run: { id: 'r1', name: 'r' }, items }], cases });
  const of = (id: string, m: string) => outcomes.find((o) => o.criterion.id === id && o.modelId === m)!;

  it('decides each criterion per model on the figures the page shows', () => {
    // Wilson lower bounds: 9/10 → 0.596, 10/10 → 0.722 (both ≥ 0.5); 4/10 → 0.168 fails.
    expect(of('c1', 'a').status).toBe('go');
    expect(of('c1', 'a').evidence.map((e) => [e.group, e.figure])).toEqual([
      ['normal', wilsonInterval(10, 10).lower],
      ['tumor', wilsonInterval(9, 10).lower],
    ]);
    expect(of('c1', 'b').status).toBe('no-go');
    expect(of('c1', 'b').evidence.find((e) => e.group === 'tumor')).toMatchObject({ passes: false, value: 0.4, n: 10 });
    expect(of('c2', 'a').status).toBe('go');
    expect(of('c2', 'b').status).toBe('no-go');
    expect(of('c3', 'a').status).toBe('go');
    expect(of('c3', 'a').evidence).toHaveLength(1);
    expect(of('c3', 'b').status).toBe('no-go');
  });

  it('gives the reason with the figures, and no-data when the metric was not scored', () => {
    expect(outcomeReason(of('c1', 'b'))).toMatch(/^Not met in 2 of 2 groups: normal: 39\.7 % \(70 %, 95 % CI 39\.7 %–89\.2 %, n=10\); tumor: 16\.8 % \(40 %, 95 % CI 16\.8 %–68\.7 %, n=10\)\.$/);
    expect(outcomeReason(of('c1', 'a'))).toMatch(/^Met in all 2 groups; lowest margin tumor: 59\.6 %/);
    expect(outcomeReason(of('c2', 'b'))).toBe('Not met: 85 % (85 %, 95 % CI 75 %–90 %, n=20).');
    const none = evaluateCriteria({ version: 1, criteria: [{ id: 'x', metric: 'pass@1', statistic: 'mean', comparator: '>=', threshold: 0.5, subgroup: 'all' }] }, { runId: 'r1', arms: [arm('a', 1)], scored: [], cases });
    expect(none[0]!.status).toBe('no-data');
    expect(outcomeReason(none[0]!)).toBe('No scored answers for pass@1.');
  });
});

describe('criteria on the safety view', () => {
  // Model a: 1 of 10 normal controls named abnormal, 2 of 10 tumours named normal; model b: 4 of 10 and 0 of 10.
  const answers: SafetyAnswer[] = [];
  for (const [group, wrong] of [['normal', { a: 1, b: 4 }], ['tumor', { a: 2, b: 0 }]] as const) {
    for (let i = 0; i < 10; i++) {
      for (const m of ['a', 'b'] as const) {
        const right = i >= wrong[m];
        const answered = group === 'normal' ? (right ? 'normal' : 'abnormal') : right ? 'abnormal' : 'normal';
        answers.push({ runId: 'r1', modelId: m, variant: 'none', group, cluster: `q:${group}-${i}`, reference: group === 'normal' ? 'normal' : 'abnormal', answered, correct: right ? 1 : 0, confidence: 0.9, flags: null });
      }
    }
  }
  const safety = safetyReport(answers, { seed: 1 });
  const arms = (['a', 'b'] as const).map((m) => ({ key: m, modelId: m, variant: 'none', metrics: [] }));
  const set: CriteriaSet = {
    version: 1,
    criteria: [
      { id: 'ff', metric: SAFETY_METRICS.falseFinding, statistic: 'mean', comparator: '<=', threshold: 0.2, subgroup: 'all' },
      { id: 'miss', metric: SAFETY_METRICS.missedAbnormality, statistic: 'upper', comparator: '<=', threshold: 0.5, subgroup: 'diseaseGroup' },
      { id: 'mod', metric: SAFETY_METRICS.falseFinding, statistic: 'mean', comparator: '<=', threshold: 0.2, subgroup: 'modality' },
    ],
  };
  const outcomes = evaluateCriteria(set, { runId: 'r1', arms, scored: [], cases: new Map(), safety });
  const of = (id: string, m: string) => outcomes.find((o) => o.criterion.id === id && o.modelId === m)!;

  it('decides a false-finding bound on the safety report\'s rate, with its Wilson interval', () => {
    expect(of('ff', 'a')).toMatchObject({ status: 'go', evidence: [{ group: null, value: 0.1, n: 10, lower: wilsonInterval(1, 10).lower, upper: wilsonInterval(1, 10).upper, passes: true }] });
    expect(of('ff', 'b')).toMatchObject({ status: 'no-go', evidence: [{ value: 0.4, n: 10, passes: false }] });
    expect(describeCriterion(set.criteria[0]!)).toBe('False-finding rate (normal controls): value ≤ 20 % on the whole run');
    expect(outcomeReason(of('ff', 'b'))).toBe(`Not met: 40 % (40 %, 95 % CI ${(Math.round(wilsonInterval(4, 10).lower * 1000) / 10).toLocaleString('en')} %–${(Math.round(wilsonInterval(4, 10).upper * 1000) / 10).toLocaleString('en')} %, n=10).`);
  });

  it('decides per disease group where the group has the figure, and says where a safety figure does not exist', () => {
    // Missed abnormalities exist only in the tumour group (normal controls cannot be missed): 2/10 → upper 0.51 fails; 0/10 → 0.28 passes.
    expect(of('miss', 'a').evidence.map((e) => [e.group, e.figure])).toEqual([['tumor', wilsonInterval(2, 10).upper]]);
    expect(of('miss', 'a').status).toBe('no-go');
    expect(of('miss', 'b').status).toBe('go');
    expect(of('mod', 'a').status).toBe('no-data');
    expect(outcomeReason(of('mod', 'a'))).toBe('False-finding rate (normal controls) is reported for the whole run and per disease group only.');
    // Selective accuracy is the report's own figure; no answer was checked for flags, so that criterion has no data.
    const more = evaluateCriteria(
      { version: 1, criteria: [
        { id: 'sel', metric: SAFETY_METRICS.selectiveAccuracy80, statistic: 'mean', comparator: '>=', threshold: 0.5, subgroup: 'all' },
        { id: 'flag', metric: SAFETY_METRICS.flagged, statistic: 'mean', comparator: '<=', threshold: 0.1, subgroup: 'all' },
      ] },
      { runId: 'r1', arms, scored: [], cases: new Map(), safety },
    );
    const at80 = safety.arms.find((a) => a.modelId === 'a')!.riskCoverage!.at80;
    expect(more.find((o) => o.criterion.id === 'sel' && o.modelId === 'a')!.evidence).toEqual([expect.objectContaining({ value: at80.value, lower: at80.ci.lower, upper: at80.ci.upper, n: 20 })]);
    expect(more.find((o) => o.criterion.id === 'flag' && o.modelId === 'a')!.status).toBe('no-data');
    // Without the report (a run read without its answers) there is nothing to decide on.
    expect(evaluateCriteria(set, { runId: 'r1', arms, scored: [], cases: new Map() }).every((o) => o.status === 'no-data')).toBe(true);
  });
});
