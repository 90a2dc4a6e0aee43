/**
 * The local judge as the run scorer uses it: equivalence verdicts, rubric
 * items and error-class proposals, each asked at most once per exact request.
 * Replies recorded by an earlier score set with the same judge are reused
 * (matched by a hash of the request), so a re-score after a changed alias
 * list only asks what changed. A call that fails (the engine throws or stops
 * with an error) is an undecided verdict carrying the engine's message, and
 * is marked `failed` so it is not reused: a re-score asks again.
 */
import { turnText } from '../../chat/turn.ts';
import type { ReferenceAnswer } from '../../bundle/types.ts';
import type { Engine, GenerateRequest } from '../../engines/engine.ts';
import { sha256Hex } from '../../hash/sha256.ts';
import { buildJudgeRequest, JUDGE_RUBRIC_V1, parseJudgeVerdict, type ParsedJudgeVerdict } from '../equivalence/judge.ts';
import { buildRubricItemRequest, parseRubricVerdict, RUBRIC_JUDGE_VERSION, type ParsedRubricVerdict, type RubricJudgeInput } from '../equivalence/rubric-judge.ts';
import { buildTaxonomyRequest, parseTaxonomyClasses, type ParsedTaxonomy, type TaxonomyPromptInput } from '../equivalence/taxonomy.ts';
import { cacheKey, type ScoringCacheStore } from './scoring-cache.ts';

/** A loaded text model used as judge. */
export interface LocalJudge {
  /** Shown next to every judge-decided value. */
  readonly id: string;
  readonly engine: Pick<Engine, 'generate'>;
}

export interface JudgeReply<T> {
  readonly parsed: T;
  readonly raw: string;
  readonly promptHash: string;
  readonly reused: boolean;
  /** The call failed: `parsed` is undecided with the reason; do not keep the reply for reuse. */
  readonly failed: boolean;
}

interface Asked {
  readonly raw: string;
  /** Why the call gave no reply. */
  readonly error?: string;
}

function requestHash(request: GenerateRequest): string {
  return sha256Hex(JSON.stringify([request.messages.map((m) => [m.role, turnText(m)]), request.sampling])).slice(0, 24);
}

export class JudgeService {
  calls = 0;
  reused = 0;
  readonly #known = new Map<string, string>();
  readonly #asked = new Map<string, Promise<Asked>>();

  constructor(
    readonly judge: LocalJudge,
    /** Earlier raw replies of this same judge, by request hash. */
    previous: Iterable<readonly [string, string]> = [],
    private readonly signal?: AbortSignal,
    /** A persistent cache of replies (IndexedDB, or a file beside the run), keyed by judge, request and input. */
    private readonly cache?: ScoringCacheStore,
  ) {
    for (const [hash, raw] of previous) this.#known.set(hash, raw);
  }

  get id(): string {
    return this.judge.id;
  }

  async #ask(request: GenerateRequest): Promise<Asked & { promptHash: string; reused: boolean }> {
    const promptHash = requestHash(request);
    const known = this.#known.get(promptHash);
    if (known !== undefined) {
      this.reused++;
      return { raw: known, promptHash, reused: true };
    }
    const key = this.cache ? cacheKey(this.judge.id, 'judge-request', promptHash) : '';
    const stored = this.cache && !this.#asked.has(promptHash) ? await this.cache.get(key) : undefined;
    if (stored?.kind === 'reply') {
      this.reused++;
      this.#known.set(promptHash, stored.raw);
      return { raw: stored.raw, promptHash, reused: true };
    }
    let pending = this.#asked.get(promptHash);
    if (!pending) {
      this.calls++;
      pending = this.judge.engine.generate(request, this.signal ? { signal: this.signal } : {}).then((r): Asked => {
        this.signal?.throwIfAborted();
        // An engine that stopped early gave no verdict, even if its partial text parses.
        return r.finishReason === 'error' || r.finishReason === 'abort' ? { raw: r.text, error: `the judge stopped with "${r.finishReason}"` } : { raw: r.text };
      }, (e: unknown): Asked => {
        // A failed call is an undecided verdict with the engine's message. An abort stays an abort.
        this.signal?.throwIfAborted();
        return { raw: '', error: `the judge call failed: ${e instanceof Error ? e.message : String(e)}` };
      });
      this.#asked.set(promptHash, pending);
      const asked = await pending;
      // Only a reply is kept: a failed call is asked again next time.
      if (this.cache && asked.error === undefined) await this.cache.put(key, { kind: 'reply', raw: asked.raw });
      return { ...asked, promptHash, reused: false };
    }
    return { ...(await pending), promptHash, reused: false };
  }

  async equivalence(candidate: string, reference: ReferenceAnswer): Promise<JudgeReply<ParsedJudgeVerdict>> {
    const { error, ...r } = await this.#ask(buildJudgeRequest(candidate, reference));
    const parsed = error === undefined ? parseJudgeVerdict(r.raw) : { equivalent: null, confidence: null, rationale: '', error };
    return { ...r, parsed, failed: error !== undefined };
  }

  async rubricItem(input: RubricJudgeInput): Promise<JudgeReply<ParsedRubricVerdict>> {
    const { error, ...r } = await this.#ask(buildRubricItemRequest(input));
    const parsed = error === undefined ? parseRubricVerdict(r.raw) : { met: null, rationale: '', error };
    return { ...r, parsed, failed: error !== undefined };
  }

  async taxonomy(input: TaxonomyPromptInput): Promise<JudgeReply<ParsedTaxonomy>> {
    const { error, ...r } = await this.#ask(buildTaxonomyRequest(input));
    const parsed = error === undefined ? parseTaxonomyClasses(r.raw, input.taxonomy) : { classes: [], dropped: [], rationale: '', error };
    return { ...r, parsed, failed: error !== undefined };
  }
}

export const EQUIVALENCE_RUBRIC_VERSION = `${JUDGE_RUBRIC_V1.id}@${JUDGE_RUBRIC_V1.version}`;
export const RUBRIC_ITEM_VERSION = `neuroeval/rubric-item@${RUBRIC_JUDGE_VERSION}`;
