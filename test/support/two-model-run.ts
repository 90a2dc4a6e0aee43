/**
 * A run export of two models on twelve multiple-choice cases, scored by rules
 * alone: `strong` answers every case right, `weak` half of them right, a
 * quarter wrong and a quarter unreadable. For the CLI's gates and report.
 */
import type { BenchCase } from '../../src/core/bundle/types.ts';
import { itemKeyOf } from '../../src/core/runner/plan.ts';
import type { ResponseRecord } from '../../src/core/model/answer.ts';
import { serializeRunExport, toRunExport } from '../../src/core/scoring/io/run-export.ts';
import { testRun } from './run-record.ts';

export const TWO_MODEL_CASES = 12;

export function twoModelRunExport(): string {
  const cases: BenchCase[] = Array.from({ length: TWO_MODEL_CASES }, (_, i) => ({
    id: `m${i + 1}`,
    taskFamily: 'multiple-choice',
    diseaseGroup: i % 2 ? 'tumor' : 'stroke',
    images: [],
    questions: [{ id: 'q', text: 'Which finding?', options: [{ key: 'A', text: 'glioma' }, { key: 'B', text: 'infarct' }], reference: { answer: i % 2 ? 'A' : 'B' } }],
  }));
  const run = testRun({ id: 'run-gates', name: 'two models', plan: { cases: TWO_MODEL_CASES, models: 2, variants: 1, samples: 1, items: 2 * TWO_MODEL_CASES } });
  const row = (modelId: string, kase: BenchCase, parsed: unknown, parseError: string | null): ResponseRecord => {
    const itemKey = itemKeyOf({ caseId: kase.id, questionId: 'q', modelId, variant: 'none', sample: 0 });
    return {
      id: `run-gates/${itemKey}`, runId: 'run-gates', itemKey, caseId: kase.id, questionId: 'q', cacheKey: '', modelId, variant: 'none', sample: 0,
      rawText: '', parsed, parseError, usage: { promptTokens: 10, completionTokens: 4, ttftMs: 5, prefillTps: 100, decodeTps: 20 }, latencyMs: 200, finishReason: 'stop', createdAt: 1,
    };
  };
  const right = (k: BenchCase) => (k.questions[0]!.reference as { answer: string }).answer;
  const responses = cases.flatMap((k, i) => {
    const weak = i < 6 ? row('weak', k, { choice: right(k), rule: 'boxed' }, null) : i < 9 ? row('weak', k, { choice: right(k) === 'A' ? 'B' : 'A', rule: 'boxed' }, null) : row('weak', k, null, 'invalid');
    return [row('strong', k, { choice: right(k), rule: 'boxed' }, null), weak];
  });
  return serializeRunExport(toRunExport(run, responses, cases));
}
