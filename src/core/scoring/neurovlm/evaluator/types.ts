/** What the NeuroVLM-Bench evaluator gives for a file: its figures per model and per dataset, or why it stops. */
import type { NeuroVlmBenchFigures } from './evaluate.ts';

/** Why there are no benchmark figures: the evaluator stops on the file, or NeuroEval does not reproduce what it would do. */
export interface NeuroVlmBenchFailure {
  readonly kind: 'evaluator-fails' | 'not-reproduced';
  readonly message: string;
  readonly line?: number;
}

export interface NeuroVlmBenchBreakdown {
  /** Figures per model (the evaluator's `per_model` keys) over every record; empty when `failure` is set. */
  readonly all: Readonly<Record<string, NeuroVlmBenchFigures>>;
  /** Per source dataset (sorted), figures per model over that dataset's records. */
  readonly datasets: Readonly<Record<string, Readonly<Record<string, NeuroVlmBenchFigures>>>>;
  /** The evaluator stops on the whole file: no figure is the benchmark's. */
  readonly failure?: NeuroVlmBenchFailure;
  /** Datasets whose own evaluation stops (their figures are absent from `datasets`). */
  readonly datasetFailures?: Readonly<Record<string, NeuroVlmBenchFailure>>;
}
