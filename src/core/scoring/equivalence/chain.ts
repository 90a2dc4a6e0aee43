/**
 * The equivalence chain (PRODUCT.md §3): rule, then local judge, then
 * clinician adjudication, which overrides. Every verdict says who decided,
 * and the verdicts of all stages that ran are kept in `trail`.
 */
import type { ReferenceAnswer } from '../../bundle/types.ts';
import type { JudgeVerdict } from './judge.ts';
import { ruleVerdict, type RuleVerdict } from './normalise.ts';

/** Shown in the UI next to every judge-decided score. */
export const JUDGE_CAVEAT =
  'Equivalence decided by a local judge model with a fixed rubric. It is NOT equivalent to the GPT-4o rubric grader used in the Neural-MedBench paper (calibrated against neurologists), so pass@k figures are not directly comparable with published numbers.';

export interface ReviewerVerdict {
  readonly equivalent: boolean;
  readonly source: 'reviewer';
  readonly reviewerId: string;
  readonly note?: string;
  /** ISO 8601 time of the adjudication. */
  readonly at?: string;
}

export type StageVerdict = RuleVerdict | JudgeVerdict | ReviewerVerdict;

export interface FinalVerdict {
  /** null = undecided (the judge's reply could not be read): needs review. */
  readonly equivalent: boolean | null;
  readonly source: 'rule' | 'judge' | 'reviewer';
  /** `rule:exact`, `rule:alias`, `rule:none`, the judge model id, or the reviewer id. */
  readonly decidedBy: string;
  readonly trail: readonly StageVerdict[];
}

export type JudgeFn = (candidate: string, reference: ReferenceAnswer) => Promise<JudgeVerdict>;

export interface DecideDeps {
  readonly judge?: JudgeFn;
  /** A clinician's verdict: overrides everything; the judge is then not called. */
  readonly adjudication?: ReviewerVerdict;
  /** A judge verdict recorded earlier, reused (and kept in the trail) instead of calling `judge`. */
  readonly judged?: JudgeVerdict;
}

/**
 * Precedence: reviewer > rule (when it says equivalent) > judge (when the
 * rule says no and a judge is available) > rule "not equivalent".
 */
export async function decide(candidate: string, reference: ReferenceAnswer, deps: DecideDeps = {}): Promise<FinalVerdict> {
  const rule = ruleVerdict(candidate, reference);
  const trail: StageVerdict[] = [rule];
  let judged: JudgeVerdict | undefined = deps.judged;
  if (!rule.equivalent && judged === undefined && deps.judge && !deps.adjudication) judged = await deps.judge(candidate, reference);
  if (judged) trail.push(judged);
  if (deps.adjudication) {
    trail.push(deps.adjudication);
    return { equivalent: deps.adjudication.equivalent, source: 'reviewer', decidedBy: deps.adjudication.reviewerId, trail };
  }
  if (rule.equivalent) return { equivalent: true, source: 'rule', decidedBy: `rule:${rule.rule}`, trail };
  if (judged) return { equivalent: judged.equivalent, source: 'judge', decidedBy: judged.judgeModelId, trail };
  return { equivalent: false, source: 'rule', decidedBy: 'rule:none', trail };
}

export interface PassAtKDeps {
  readonly judge?: JudgeFn;
  /** Per-hypothesis clinician verdicts, by rank index. */
  readonly adjudications?: readonly (ReviewerVerdict | undefined)[];
}

export interface PassAtKChainResult {
  readonly pass: boolean;
  readonly k: number;
  /** Index of the first equivalent hypothesis, or null. */
  readonly matchedIndex: number | null;
  /** Verdicts of the hypotheses evaluated, in order (evaluation stops at the first match). */
  readonly verdicts: readonly FinalVerdict[];
  /** Some evaluated hypothesis was undecided and none matched: the case needs review. */
  readonly undecided: boolean;
}

/** pass@k over a ranked list, evaluating hypotheses in rank order and stopping at the first equivalent one. */
export async function passAtKChain(
  rankedHypotheses: readonly string[],
  reference: ReferenceAnswer,
  k: number,
  deps: PassAtKDeps = {},
): Promise<PassAtKChainResult> {
  const top = Math.max(0, Math.min(Math.floor(k), rankedHypotheses.length));
  const verdicts: FinalVerdict[] = [];
  for (let i = 0; i < top; i++) {
    const h = rankedHypotheses[i] ?? '';
    const adjudication = deps.adjudications?.[i];
    const v = await decide(h, reference, { ...(deps.judge ? { judge: deps.judge } : {}), ...(adjudication ? { adjudication } : {}) });
    verdicts.push(v);
    if (v.equivalent === true) return { pass: true, k, matchedIndex: i, verdicts, undecided: false };
  }
  return { pass: false, k, matchedIndex: null, verdicts, undecided: verdicts.some((v) => v.equivalent === null) };
}
