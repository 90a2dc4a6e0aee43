/**
 * Cache keys: an identical request answered once (in any run) is not asked
 * again. The key is the SHA-256 of the canonical JSON of everything that
 * decides the answer: the weights, the runtime and its version, the protocol
 * and its version, the prompt, the images as actually sent (after the variant
 * transform), the variant, the sampling settings and the seed.
 *
 * Changing what goes into the key (or its layout) only makes old answers
 * unreachable for reuse; bump CACHE_KEY_VERSION when doing so on purpose.
 */
import { canonicalJson } from '../bundle/canonical.ts';
import type { ResponseRecord } from '../model/answer.ts';
import type { SamplingParams } from '../engines/engine.ts';
import { sha256Hex } from '../hash/sha256.ts';
import type { Turn } from '../chat/turn.ts';
import type { ProtocolFollowUp, Variant } from './types.ts';

/** 2: turns are ordered parts, so where each image stands is part of the prompt. */
export const CACHE_KEY_VERSION = 2;

export interface CacheKeyInput {
  /** Our model id. Included as well as the files hash so models of unknown weights never collide. */
  readonly modelId: string;
  readonly modelFilesHash: string;
  readonly runtime: string;
  readonly runtimeVersion: string;
  readonly protocolId: string;
  readonly protocolVersion: string;
  /** See {@link promptHash}. */
  readonly promptHash: string;
  /** SHA-256 of every image sent, in order, after the variant transform. */
  readonly imageHashes: readonly string[];
  readonly variant: Variant;
  /** The seed is taken from `seed`, not from here. */
  readonly sampling: Pick<SamplingParams, 'temperature' | 'topP' | 'maxTokens'>;
  readonly seed: number;
}

/** The cache key of a request. Fields are copied by name, so extra properties never leak in. */
export function cacheKey(input: CacheKeyInput): string {
  return sha256Hex(
    canonicalJson({
      v: CACHE_KEY_VERSION,
      modelId: input.modelId,
      modelFilesHash: input.modelFilesHash,
      runtime: input.runtime,
      runtimeVersion: input.runtimeVersion,
      protocolId: input.protocolId,
      protocolVersion: input.protocolVersion,
      promptHash: input.promptHash,
      imageHashes: [...input.imageHashes],
      variant: input.variant,
      sampling: { temperature: input.sampling.temperature, topP: input.sampling.topP, maxTokens: input.sampling.maxTokens },
      seed: input.seed,
    }),
  );
}

/**
 * Hash of the text side of a request: every turn's role and parts in order,
 * each image as a placeholder where it stands (their content is in `imageHashes`), the scripted
 * follow-ups of a multi-turn item, and the JSON schema if one is enforced.
 */
export function promptHash(
  turns: readonly Turn<unknown>[],
  followUps: readonly ProtocolFollowUp[] = [],
  jsonSchema?: Readonly<Record<string, unknown>>,
): string {
  const shape = (t: Turn<unknown>) => ({ role: t.role, parts: t.parts.map((p) => (p.type === 'text' ? p.text : { image: true })) });
  return sha256Hex(
    canonicalJson({
      turns: turns.map(shape),
      followUps: followUps.map((f) => ({ id: f.id, ...shape(f.turn) })),
      jsonSchema: jsonSchema ?? null,
    }),
  );
}

/** Identity of a model's weights: hash over its files' names and hashes, in name order. */
export function modelFilesHash(files: readonly { readonly name: string; readonly sha256: string }[]): string {
  const sorted = [...files].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return sha256Hex(canonicalJson(sorted.map((f) => ({ name: f.name, sha256: f.sha256 }))));
}

/** Whether a stored answer may stand in for a new one: it finished and has text. */
export function isReusable(row: Pick<ResponseRecord, 'finishReason' | 'rawText'>): boolean {
  return row.finishReason !== 'error' && row.finishReason !== 'abort' && row.rawText.trim() !== '';
}
