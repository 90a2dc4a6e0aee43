/** Every protocol's scorer, by protocol id: score-item.ts asks the one of an answer's protocol. */
import { boxScorer, numericScorer, shortAnswerScorer } from './answer-types.ts';
import { differentialScorer, multiRoundScorer } from './differential.ts';
import { freeTextScorer } from './free-text.ts';
import type { ProtocolScorer } from './item.ts';
import { lesionScorer } from './lesion.ts';
import { mcqScorer } from './mcq.ts';
import { neuroVlmScorer } from './neurovlm.ts';
import { rubricScorer } from './rubric.ts';

const SCORERS: ReadonlyMap<string, ProtocolScorer> = new Map(
  [neuroVlmScorer, differentialScorer, multiRoundScorer, lesionScorer, mcqScorer, rubricScorer, freeTextScorer, shortAnswerScorer, numericScorer, boxScorer].flatMap((s) => s.protocols.map((p) => [p, s] as const)),
);

/** The scorer of a protocol's answers; undefined for a protocol without one. */
export function scorerFor(protocolId: string): ProtocolScorer | undefined {
  return SCORERS.get(protocolId);
}

/** Every protocol id that has a scorer. */
export const SCORED_PROTOCOLS: readonly string[] = [...SCORERS.keys()];
