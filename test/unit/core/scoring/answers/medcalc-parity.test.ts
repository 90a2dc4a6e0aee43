/**
 * MedCalc-Bench's "number correct" against the benchmark's own code: the
 * verdicts in test/fixtures/answer-parity/medcalc.json were printed by its
 * `evaluation/run.py` `extract_answer` and `evaluation/evaluate.py`
 * `check_correctness`, called as its run calls them (an exception counts as
 * incorrect), run locally on hand-made replies
 * (scripts/parity/medcalc-correctness.py says how): integers, decimals with
 * limits, percentages, eGFR units, `str(…)` expressions, dates, (weeks,
 * days), literals Python refuses ("08"), and replies without the JSON answer.
 * Every row's verdict, every extracted answer, and the accuracy a scored run
 * reports must be NeuroEval's too.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { BenchCase } from '../../../../../src/core/bundle/types.ts';
import type { ResponseRecord } from '../../../../../src/core/model/answer.ts';
import { numericProtocol } from '../../../../../src/core/protocols/answers/index.ts';
import { itemKeyOf } from '../../../../../src/core/runner/plan.ts';
import { scoreNumeric, type NumericReference } from '../../../../../src/core/scoring/answers/numeric.ts';
import { scoreRun } from '../../../../../src/core/scoring/run/index.ts';

interface Row {
  readonly reply: string;
  readonly calculatorId: number;
  readonly groundTruth: string;
  readonly lower: string;
  readonly upper: string;
  readonly answer: string | null;
  readonly error: string | null;
  readonly correct: boolean;
}
const fixture = JSON.parse(readFileSync(new URL('../../../../fixtures/answer-parity/medcalc.json', import.meta.url), 'utf8')) as { rows: readonly Row[]; accuracy: number };

/** The reference as the MedCalc-Bench importer stores it (limits only where the answer is a number: hf-datasets' medCalcFiles). */
function referenceOf(r: Row): NumericReference {
  const numeric = Number.isFinite(Number(r.groundTruth));
  return { value: r.groundTruth, calculatorId: r.calculatorId, ...(numeric ? { lower: Number(r.lower), upper: Number(r.upper) } : {}) };
}

describe("MedCalc-Bench's number correct equals its own code", () => {
  it('gives every reply the verdict, the extracted answer and the error its code gives', () => {
    expect(fixture.rows.length).toBeGreaterThan(60);
    for (const r of fixture.rows) {
      const v = scoreNumeric(r.reply, referenceOf(r));
      const theirs = { reply: r.reply, correct: r.correct, ...(r.error ? {} : { answer: r.answer }) };
      expect({ reply: r.reply, correct: v.correct, ...(r.error ? {} : { answer: v.extracted ?? 'N/A' }) }).toEqual(theirs);
      // Where its code raises, NeuroEval names the same exception (or reads nothing, which its code then raises on).
      if (r.error) expect([r.reply, v.extracted]).toEqual([r.reply, null]);
    }
  });

  it('reports the accuracy of a scored run as its table_stats would compute it', async () => {
    const cases: BenchCase[] = fixture.rows.map((r, i) => ({
      id: `row-${i + 1}`, taskFamily: 'open-question', images: [],
      questions: [{ id: 'q1', text: 'What is the value?', reference: { numeric: referenceOf(r) } }],
    }));
    const responses: ResponseRecord[] = fixture.rows.map((r, i) => {
      const parsed = numericProtocol.parse(r.reply, cases[i]!.questions[0]!);
      const itemKey = itemKeyOf({ caseId: `row-${i + 1}`, questionId: 'q1', modelId: 'm', variant: 'none', sample: 0 });
      return {
        id: `run/${itemKey}`, runId: 'run', itemKey, caseId: `row-${i + 1}`, questionId: 'q1', cacheKey: '', modelId: 'm', variant: 'none', sample: 0, rawText: r.reply,
        parsed: parsed.ok ? parsed.value : null, parseError: parsed.ok ? null : parsed.error,
        usage: { promptTokens: 1, completionTokens: 1, ttftMs: 1, prefillTps: 1, decodeTps: 1 }, latencyMs: 1, finishReason: 'stop', createdAt: 1,
      };
    });
    const scored = await scoreRun({ protocolId: 'auto', cases, responses }, { resamples: 20 });
    const correct = scored.summary.arms[0]!.metrics.find((m) => m.metric === 'numeric.correct')!;
    expect(correct.n).toBe(fixture.rows.length);
    expect(correct.mean).toBeCloseTo(fixture.accuracy, 15);
  });
});
