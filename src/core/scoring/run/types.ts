/**
 * Scoring a whole run: every stored answer gets its item-level metrics (each
 * with the source that decided it), and each arm (model × variant) gets its
 * summary with 95 % intervals. The result is stored as one *score set*; a
 * re-score writes a new set and keeps the old one as a previous version.
 */
import type { Interval } from '../../model/geometry.ts';
import type { ConsistencySummary } from './consistency.ts';
import type { ItemIdentity } from '../../model/answer.ts';
import type { NeuroVlmReport } from '../neurovlm/score.ts';
import type { NeuroVlmBenchBreakdown } from '../neurovlm/evaluator/types.ts';
import type { SeverityShift } from '../metrics/calibration-shift.ts';
import type { BertScoreLayer } from '../metrics/bertscore-layers.ts';

/**
 * Bump when an item metric or an aggregation rule changes: stored sets carry it.
 * 4: BERTScore as bert_score computes it: [CLS]/[SEP] in the similarity matrix at weight 0, bert_score's layer per encoder where the graph offers it (recorded in `bertscore.layer`).
 * 5: Neural-MedBench: a dialogue gets pass@5 and BERTScore (per turn and overall); a differential gets BERTScore against the reference rationale.
 * 6: with several samples per question, intervals and n are per question (cluster bootstrap).
 * 7: NeuroVLM-Bench's own figures (its evaluator, exactly) per arm and per source dataset (`summary.neurovlmBench`).
 * 8: when cases share a patient (or study) key, intervals and n are per patient (cluster bootstrap over patients).
 * 9: the mirror consistency probe's figures per model (`summary.consistency`).
 * 10: the paraphrase consistency probe's rows in `summary.consistency` (`probe: 'paraphrase'`).
 * 11: BERTScore in bert_score's padded batches (default 64, `bertscore.batchSize`); NeuroVLM-Bench figures are the evaluator's on the run's neurovlm-jsonl export (Python's semantics; none, with the reason, where the evaluator stops).
 * 12: answer types: short answers (lmms-eval exact match, open/closed, LLaVA-Med recall), numbers (MedCalc-Bench), boxes (IoU); rubric points per tag.
 */
export const RUN_SCORER_VERSION = '12';

/** Review verdicts that decide correctness; other values (e.g. `unsure`) leave the machine's verdict. */
const REVIEW_VERDICTS = ['correct', 'incorrect'] as const;

/** An arm's key and label: `model`, or `model [variant]` for any variant but the original images. */
export function armKey(modelId: string, variant: string | undefined): string {
  return variant && variant !== 'none' ? `${modelId} [${variant}]` : modelId;
}

export function isReviewVerdict(v: string): v is (typeof REVIEW_VERDICTS)[number] {
  return (REVIEW_VERDICTS as readonly string[]).includes(v);
}

/**
 * Who decided a value: a deterministic `rule`, the local `judge` model, a
 * clinician `reviewer`, or the similarity `encoder` (BERTScore, cosine).
 */
export type MetricSource = 'rule' | 'judge' | 'reviewer' | 'encoder';

export interface ItemMetric {
  /** null = not scorable for this item (no reference, or no judge to decide). */
  readonly value: number | null;
  readonly source: MetricSource;
  /** `rule:exact`, the judge or encoder model id, or the reviewer id. */
  readonly sourceId: string;
}

/** One stage's verdict on one hypothesis, as shown in the drill-down. */
export interface VerdictNote {
  readonly hypothesis: string;
  /** Which metric the verdict belongs to (`pass@1`, `turn2`, `rubric:r1`…). */
  readonly for: string;
  readonly equivalent: boolean | null;
  readonly source: 'rule' | 'judge' | 'reviewer';
  readonly decidedBy: string;
  /** Judge rationale, reviewer note or the rule that matched. */
  readonly rationale?: string;
  /** The judge's raw reply, kept so a later re-score can reuse it. */
  readonly raw?: string;
  readonly rubricVersion?: string;
  /** Hash of the exact judge request: a re-score with the same judge reuses the reply. */
  readonly promptHash?: string;
}

export interface TaxonomyProposal {
  readonly classes: readonly string[];
  readonly rationale: string;
  /** The judge model that proposed them. Reviewers confirm them in their reviews. */
  readonly sourceId: string;
  readonly taxonomyVersion: string;
  readonly error?: string;
  readonly raw?: string;
  readonly promptHash?: string;
}

/** The scores of one stored answer. */
export interface ItemScore extends ItemIdentity {
  readonly responseId: string;
  readonly protocolId: string;
  /**
   * The item's headline metric (`correct`, `pass@1`, `rubric`, `bertscore.f`,
   * `rougeL`…), which decides "wrong" for the error taxonomy and breakdowns.
   */
  readonly primary: string | null;
  readonly metrics: Readonly<Record<string, ItemMetric>>;
  /** The answer's stated confidence (0–1) when the protocol asks for one. */
  readonly confidence: number | null;
  readonly verdicts: readonly VerdictNote[];
  readonly taxonomy: TaxonomyProposal | null;
  /** Why something could not be scored (a failed call, no reference, no judge). */
  readonly notes: readonly string[];
}

/** What the samples of one question share; `questionKey` (summary.ts) joins them. */
export type QuestionIdentity = Pick<ItemIdentity, 'caseId' | 'questionId'>;

/** Figures that count every sample as an independent item (Wilson or bootstrap over samples). */
export interface PerSampleInterval {
  /** Sampled answers with a value. */
  readonly n: number;
  readonly ci: Interval;
  readonly ciMethod: 'wilson' | 'bootstrap';
}

export interface MetricSummary {
  readonly metric: string;
  readonly label: string;
  /**
   * Items with a value; with several samples per question, the questions with
   * a value (samples in `samples`); resampled by patient, the patients with a
   * value (cases in `cases`, answers in `samples`).
   */
  readonly n: number;
  /** Answers (samples) of the arm this metric applies to that had no value. */
  readonly notScorable: number;
  /** Mean over every scored answer (every sample), whatever the interval's unit. */
  readonly mean: number;
  /**
   * 95 % interval: Wilson for 0/1 metrics, seeded percentile bootstrap
   * otherwise; with several samples per question, a seeded cluster bootstrap
   * resampling questions with all their samples (`question-bootstrap`);
   * when cases share a patient key, a seeded cluster bootstrap resampling
   * patients with all their cases, questions and samples (`patient-bootstrap`).
   */
  readonly ci: Interval;
  readonly ciMethod: 'wilson' | 'bootstrap' | 'question-bootstrap' | 'patient-bootstrap';
  /** With several samples per question or by patient: the sampled answers with a value (n counts questions or patients). */
  readonly samples?: number;
  /** Resampled by patient: the cases with a value (n counts patients). */
  readonly cases?: number;
  /** With several samples per question, or by patient: the per-sample view (every answer an independent item, as scorer versions before 6 reported). */
  readonly perSample?: PerSampleInterval;
  /** How many values each source decided. */
  readonly sources: Readonly<Partial<Record<MetricSource, number>>>;
  /** The local judge decided some value (or left it undecided): show the judge caveat. */
  readonly dependsOnJudge: boolean;
  /** Encoder that produced the values (similarity metrics). */
  readonly encoder?: string;
}

/** A metric an arm's answers gave no value at all, and why (unavailable.ts). */
export interface UnavailableMetric {
  readonly metric: string;
  readonly label: string;
  /** The answers it would have been computed from. */
  readonly answers: number;
  /** Why none has a value, with counts: "no case has a reference class (diagnosis_name) to score against; 4 of the 5 answers did not parse." */
  readonly reason: string;
}

/** One model under one variant. */
export interface ArmSummary {
  readonly key: string;
  readonly modelId: string;
  readonly variant: string;
  readonly responses: number;
  /** Calls that failed (left out of every metric). */
  readonly failed: number;
  /** Answers stopped by the answer budget (a turn ended with finish reason `length`); scored as they are. */
  readonly truncated: number;
  readonly protocols: readonly string[];
  readonly metrics: readonly MetricSummary[];
  /**
   * NeuroEval's own analysis of the arm's NeuroVLM-Bench answers (its normalisation, seeded
   * intervals, safety flags): not the benchmark's figures, which are `RunScoreSummary.neurovlmBench`.
   */
  readonly neurovlm?: NeuroVlmReport;
  /** Metrics with no value on any answer, and why; absent in score sets stored before NeuroEval said so. */
  readonly unavailable?: readonly UnavailableMetric[];
  /** Answers whose primary metric is below 0.5 (wrong). */
  readonly wrong: number;
  /** Error classes the judge proposed for the wrong answers, with counts. */
  readonly proposedErrorClasses: Readonly<Record<string, number>>;
  /** Median latency per answer, for the speed/quality view. */
  readonly medianLatencyMs: number;
  /**
   * Decode speed over the arm's answers (src/core/runner/decode-speed.ts), the
   * figure the run page shows; absent when no answer had a measured rate, and
   * on score sets stored before it was defined (they kept a mean of per-answer
   * rates under another name, which is not shown).
   */
  readonly decodeTps?: number;
}

/** Confidence − accuracy by degradation severity, per model and degradation kind. */
export interface CalibrationShiftSummary {
  readonly modelId: string;
  readonly kind: string;
  readonly levels: readonly SeverityShift[];
}

export interface RunScoreSummary {
  readonly arms: readonly ArmSummary[];
  readonly calibrationShift: readonly CalibrationShiftSummary[];
  readonly items: number;
  readonly failed: number;
  readonly judgeCalls: number;
  readonly judgeReused: number;
  /** Encoder vectors taken from the persistent cache and computed, when scoring used one. */
  readonly encoderVectors?: { readonly reused: number; readonly computed: number };
  /**
   * NeuroVLM-Bench's own figures (its evaluator, exactly) for the run's
   * NeuroVLM-Bench answers: per arm, and per source dataset. The `neurovlm`
   * report of each arm is NeuroEval's own analysis, not these.
   */
  readonly neurovlmBench?: NeuroVlmBenchBreakdown;
  /** Consistency probes (mirrored images, paraphrased prompts) per probe and model; absent when the run has none. */
  readonly consistency?: readonly ConsistencySummary[];
}

/** What a score set was computed with; shown with the scores and compared across versions. */
export interface ScoringConfig {
  readonly scorerVersion: string;
  readonly seed: number;
  readonly resamples: number;
  /** Local judge model id, or null for rules only. */
  readonly judge: string | null;
  readonly judgeRubricVersion: string | null;
  /** Similarity encoder id, or null for lexical metrics only. */
  readonly encoder: string | null;
  /**
   * How BERTScore was computed, when an encoder was used: IDF, the baseline,
   * and the encoder layer every BERTScore figure of the set comes from (its
   * baseline must be that layer's row); sets from before scorer version 4 have no layer.
   */
  readonly bertscore?: {
    readonly idf: boolean;
    readonly baseline: { readonly precision: number; readonly recall: number; readonly f: number } | null;
    readonly layer?: BertScoreLayer;
    /** bert_score's batch size the pairs were matched in (absent: scored before batching was reproduced, each pair alone). */
    readonly batchSize?: number;
  };
  readonly taxonomy: boolean;
  readonly taxonomyVersion: string;
  /** Reviews taken into account (latest review time), so a set can tell it is stale. */
  readonly reviewsUpTo: number | null;
}
