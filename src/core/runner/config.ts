/**
 * A run's configuration: everything needed to (re)start it, stored as a typed
 * field of its record (`RunRecord.config`) so any tab can resume it. It holds
 * no secret (see src/core/engines/spec.ts), so it may travel in exports.
 */
import type { CriteriaSet } from '../model/criteria.ts';
import type { JsonOutputSetting } from '../protocols/json-output.ts';
import type { EngineSpec } from '../engines/spec.ts';
import type { PromptTemplate } from '../protocols/types.ts';
import type { RunSpec } from './types.ts';

export interface RunConfig {
  readonly spec: RunSpec;
  /** A protocol id, or `auto` (each case's default protocol). */
  readonly protocolId: string;
  /** User-edited templates by protocol id. */
  readonly templates?: Readonly<Record<string, PromptTemplate>>;
  /** Send the benchmark's few-shot exemplars (NeuroVLM-Bench). */
  readonly fewShot: boolean;
  /** One per model of `spec.models`, same ids. */
  readonly engines: readonly EngineSpec[];
  /** Ask again even when an identical request already has a stored answer. */
  readonly force?: boolean;
  /**
   * Acceptance criteria in force for this run: the pre-registered set as the
   * run was created (its hash is in the provenance), or the set a later edit
   * put in its place (each edit is kept in `RunRecord.criteriaDeviations`).
   */
  readonly criteria?: CriteriaSet;
  /** Whether requests ask for JSON output (`response_format`); `benchmark` (each protocol as its benchmark does) when absent. */
  readonly jsonOutput?: JsonOutputSetting;
}
