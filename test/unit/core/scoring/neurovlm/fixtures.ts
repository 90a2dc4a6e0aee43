/**
 * Builders for small NeuroVLM-Bench runs: cases with per-field labels, and
 * stored responses as the runner writes them, so scoring and export tests
 * start from the same records the app keeps.
 */
import type { BenchCase } from '../../../../../src/core/bundle/types.ts';
import type { RunRecord } from '../../../../../src/core/runner/records.ts';
import { itemKeyOf } from '../../../../../src/core/runner/plan.ts';
import type { ResponseRecord } from '../../../../../src/core/model/answer.ts';
import type { Variant } from '../../../../../src/core/runner/types.ts';
import type { NeuroVlmScoredField } from '../../../../../src/core/scoring/neurovlm/normalise.ts';
import { testProvenance, testRun, testRunConfig } from '../../../../support/run-record.ts';

export type Labels = Partial<Record<NeuroVlmScoredField, string | null>>;

export function nvbCase(id: string, labels: Labels, meta: Record<string, string> = {}): BenchCase {
  return {
    id,
    split: 'test',
    taskFamily: 'classification',
    images: [{ path: `images/${id}.png`, sha256: 'ab'.repeat(32), mime: 'image/png' }],
    questions: [{ id: 'q1', text: 'Classify this head scan.', reference: { labels } }],
    meta: { file_path: `${id}.png`, ...meta },
  };
}

export interface AnswerSpec {
  caseId: string;
  modelId?: string;
  /** A parsed answer object, or a raw text that failed to parse, or a failed call. */
  parsed?: Record<string, unknown>;
  parseError?: string;
  callError?: string;
  latencyMs?: number;
  promptTokens?: number | null;
  completionTokens?: number | null;
  variant?: Variant;
}

export function nvbResponse(runId: string, a: AnswerSpec, i = 0): ResponseRecord {
  const modelId = a.modelId ?? 'model-a';
  const variant = a.variant ?? 'none';
  const itemKey = itemKeyOf({ caseId: a.caseId, questionId: 'q1', modelId, variant, sample: 0 });
  return {
    id: `${runId}:${itemKey}`,
    runId,
    itemKey,
    caseId: a.caseId,
    questionId: 'q1',
    cacheKey: `cache-${i}`,
    modelId,
    variant,
    sample: 0,
    rawText: a.parsed ? JSON.stringify(a.parsed) : a.parseError ? 'I think it is a tumour.' : '',
    parsed: a.parsed ?? null,
    parseError: a.parseError ?? null,
    usage: { promptTokens: a.promptTokens ?? null, completionTokens: a.completionTokens ?? null, ttftMs: null, prefillTps: null, decodeTps: null },
    latencyMs: a.latencyMs ?? 1000,
    finishReason: a.callError ? 'error' : 'stop',
    createdAt: 1_700_000_000_000 + i,
    ...(a.callError ? { error: a.callError } : {}),
  };
}

export function nvbRun(id = 'run-1'): RunRecord {
  return testRun({
    id,
    benchmarkId: 'neurovlm-bench-test',
    name: 'NVB test run',
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_100_000,
    config: testRunConfig('neurovlm-bench-test', { protocolId: 'neurovlm-structured' }),
    provenance: testProvenance({ protocol: { id: 'neurovlm-structured', version: '1', templateHashes: {} }, benchmark: { id: 'neurovlm-bench-test', contentHash: 'n'.repeat(64) } }),
    plan: { cases: 0, models: 1, variants: 1, samples: 1, items: 0 },
  });
}

/** A full answer object with the nine fields. */
export function answer(fields: Partial<Record<string, unknown>>): Record<string, unknown> {
  return {
    modality: null,
    specialized_sequence: null,
    plane: null,
    diagnosis_name: null,
    diagnosis_detailed: null,
    icd10_code: null,
    severity_score: null,
    diagnosis_confidence: 0.5,
    severity_confidence: 0.5,
    ...fields,
  };
}
