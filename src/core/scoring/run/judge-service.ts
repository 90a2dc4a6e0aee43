/**
 * The local judge as the run scorer uses it: equivalence verdicts, rubric
 * items and error-class proposals, each asked at most once per exact request.
 * Replies recorded by an earlier score set with the same judge are reused
 * (matched by a hash of the request), so a re-score after a changed alias
 * list only asks what changed.
 */
import type { ReferenceAnswer } from '../../bundle/types.ts';
import type { Engine, GenerateRequest } from '../../engines/engine.ts';
import { sha256Hex } from '../../hash/sha256.ts';
import { buildJudgeRequest, JUDGE_RUBRIC_V1, parseJudgeVerdict, type ParsedJudgeVerdict } from '../equivalence/judge.ts';
import { buildRubricItemRequest, parseRubricVerdict, RUBRIC_JUDGE_VERSION, type ParsedRubricVerdict, type RubricJudgeInput } from '../equivalence/rubric-judge.ts';
import { buildTaxonomyRequest, parseTaxonomyClasses, type ParsedTaxonomy, type TaxonomyPromptInput } from '../equivalence/taxonomy.ts';

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
}

export function requestHash(request: GenerateRequest): string {
  return sha256Hex(JSON.stringify([request.messages.map((m) => [m.role, m.text]), request.sampling])).slice(0, 24);
}

export class JudgeService {
  calls = 0;
  reused = 0;
  readonly #known = new Map<string, string>();
  readonly #asked = new Map<string, Promise<string>>();

  constructor(
    readonly judge: LocalJudge,
    /** Earlier raw replies of this same judge, by request hash. */
    previous: Iterable<readonly [string, string]> = [],
    private readonly signal?: AbortSignal,
  ) {
    for (const [hash, raw] of previous) this.#known.set(hash, raw);
  }

  get id(): string {
    return this.judge.id;
  }

  async #ask(request: GenerateRequest): Promise<{ raw: string; promptHash: string; reused: boolean }> {
    const promptHash = requestHash(request);
    const known = this.#known.get(promptHash);
    if (known !== undefined) {
      this.reused++;
      return { raw: known, promptHash, reused: true };
    }
    let pending = this.#asked.get(promptHash);
    if (!pending) {
      this.calls++;
      pending = this.judge.engine.generate(request, this.signal ? { signal: this.signal } : {}).then((r) => {
        this.signal?.throwIfAborted();
        // An engine that stopped early gives an unreadable reply, which parses as undecided.
        return r.finishReason === 'error' ? '' : r.text;
      }, () => {
        // A failed call is an unreadable reply: the verdict is undecided. An abort stays an abort.
        this.signal?.throwIfAborted();
        return '';
      });
      this.#asked.set(promptHash, pending);
    }
    return { raw: await pending, promptHash, reused: false };
  }

  async equivalence(candidate: string, reference: ReferenceAnswer): Promise<JudgeReply<ParsedJudgeVerdict>> {
    const r = await this.#ask(buildJudgeRequest(candidate, reference));
    return { ...r, parsed: parseJudgeVerdict(r.raw) };
  }

  async rubricItem(input: RubricJudgeInput): Promise<JudgeReply<ParsedRubricVerdict>> {
    const r = await this.#ask(buildRubricItemRequest(input));
    return { ...r, parsed: parseRubricVerdict(r.raw) };
  }

  async taxonomy(input: TaxonomyPromptInput): Promise<JudgeReply<ParsedTaxonomy>> {
    const r = await this.#ask(buildTaxonomyRequest(input));
    return { ...r, parsed: parseTaxonomyClasses(r.raw, input.taxonomy) };
  }
}

export const EQUIVALENCE_RUBRIC_VERSION = `${JUDGE_RUBRIC_V1.id}@${JUDGE_RUBRIC_V1.version}`;
export const RUBRIC_ITEM_VERSION = `neuroeval/rubric-item@${RUBRIC_JUDGE_VERSION}`;
