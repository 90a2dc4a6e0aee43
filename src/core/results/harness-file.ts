/**
 * A NeuroVLM-Bench harness results file (JSONL, the layout its `run_async.py`
 * writes) opened in the app: the benchmark's own figures per model and per
 * source dataset, and NeuroEval's own analysis of the same answers, side by
 * side and named apart. Nothing is stored: the file is read where it is.
 */
import { readNeuroVlmJsonl } from '../scoring/io/neurovlm-jsonl.ts';
import { neuroVlmBenchOfBytes, neuroVlmBenchOfText } from '../scoring/neurovlm/evaluator/index.ts';
import type { NeuroVlmBenchBreakdown } from '../scoring/neurovlm/evaluator/types.ts';
import { groupNeuroVlmItems } from '../scoring/neurovlm/items.ts';
import { NEUROVLM_SCORED_FIELDS, type NeuroVlmScoredField } from '../scoring/neurovlm/normalise.ts';
import { scoreNeuroVlm } from '../scoring/neurovlm/score.ts';

/** NeuroEval's own reading of one model's answers (its normalisation; not the benchmark's figures). */
interface OwnSummary {
  readonly calls: number;
  readonly failed: number;
  /** Parsed answer objects over successful calls. */
  readonly jsonValid: number;
  /** Plain accuracy per field over scorable answers. */
  readonly accuracy: Readonly<Record<NeuroVlmScoredField, number>>;
  /** Parsed answers with at least one NeuroEval safety flag. */
  readonly flagged: number;
}

export interface HarnessFileView {
  readonly fileName: string;
  readonly answers: number;
  readonly warnings: readonly string[];
  readonly bench: NeuroVlmBenchBreakdown;
  readonly own: Readonly<Record<string, OwnSummary>>;
}

/**
 * Reads and scores a harness file. The benchmark's figures are its
 * evaluator's on the file's `bytes` as Python reads them (a byte order mark
 * kept, strict UTF-8), or on `text` when the bytes are not given; NeuroEval's
 * own analysis reads the decoded text, leaving out lines that are not JSON
 * objects (each named in a warning).
 */
export function openHarnessFile(text: string, fileName: string, bytes?: Uint8Array): HarnessFileView {
  const { items, warnings } = readNeuroVlmJsonl(text, fileName);
  const bench = bytes ? neuroVlmBenchOfBytes(bytes) : neuroVlmBenchOfText(text);
  const own: Record<string, OwnSummary> = {};
  for (const [key, list] of groupNeuroVlmItems(items)) {
    // Point figures only: the interval resamples are not shown here.
    const r = scoreNeuroVlm(list, { resamples: 1 });
    own[key] = {
      calls: r.calls.total,
      failed: r.calls.failed,
      jsonValid: r.jsonValid.rate,
      accuracy: Object.fromEntries(NEUROVLM_SCORED_FIELDS.map((f) => [f, r.fields[f].accuracy.value])) as Record<NeuroVlmScoredField, number>,
      flagged: r.safety.any.rate,
    };
  }
  return { fileName, answers: items.length, warnings: warnings.slice(0, 50), bench, own };
}
