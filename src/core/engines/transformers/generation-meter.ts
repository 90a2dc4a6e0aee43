/**
 * Timing of one generation from token callbacks: time to first token,
 * prefill and decode throughput. transformers.js measures none of these.
 */
import type { EngineUsage } from '../engine.ts';

export class GenerationMeter {
  readonly #now: () => number;
  readonly #start: number;
  #modelStart: number | null = null;
  #first: number | null = null;
  #last: number | null = null;
  #promptTokens = 0;
  #computedTokens = 0;
  #tokens = 0;
  #decodeStart: number | null = null;
  #extra: Pick<EngineUsage, 'prompt' | 'batch'> = {};

  /** Starts the clock: call when the request arrives (before images are decoded). */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
    this.#start = now();
  }

  /**
   * The prompt is tokenised and the model starts (vision encoder, then
   * prefill); `computed` of its tokens are computed here (default all: fewer
   * when a kept prefix supplies the rest), which prefill speed counts.
   */
  modelStarted(promptTokens: number, computed = promptTokens): void {
    this.#promptTokens = promptTokens;
    this.#computedTokens = computed;
    this.#modelStart = this.#now();
  }

  /** A token was sampled; returns ms since the request arrived. */
  token(): number {
    const t = this.#now();
    this.#first ??= t;
    this.#last = t;
    this.#tokens++;
    return t - this.#start;
  }

  get tokens(): number {
    return this.#tokens;
  }

  /**
   * Decoding of this request starts now, not at its first token: a request
   * decoded in a batch waits after its first token for the other requests'
   * prompts, and that wait is not its decode time.
   */
  decodeStarted(): void {
    this.#decodeStart = this.#now();
  }

  /** What the prompt was made of and how many requests were decoded together, for {@link usage}. */
  describe(extra: Pick<EngineUsage, 'prompt' | 'batch'>): void {
    this.#extra = { ...this.#extra, ...extra };
  }

  /**
   * Usage so far. Prefill speed counts every prompt token computed (image
   * tokens included; not those a kept prefix supplied) over the time from
   * model start to the first token, so it includes the vision encoder; decode speed is tokens after the first over
   * the time since the first.
   */
  usage(): EngineUsage {
    const end = this.#now();
    const first = this.#first;
    const prefillMs = first !== null && this.#modelStart !== null ? first - this.#modelStart : null;
    const decodeFrom = this.#decodeStart !== null && first !== null ? Math.max(first, this.#decodeStart) : first;
    const decodeMs = decodeFrom !== null && this.#last !== null ? this.#last - decodeFrom : null;
    return {
      promptTokens: this.#promptTokens,
      completionTokens: this.#tokens,
      ttftMs: first === null ? null : first - this.#start,
      prefillTps: prefillMs && prefillMs > 0 && this.#computedTokens > 0 ? (this.#computedTokens / prefillMs) * 1000 : null,
      decodeTps: decodeMs && decodeMs > 0 && this.#tokens > 1 ? ((this.#tokens - 1) / decodeMs) * 1000 : null,
      totalMs: end - this.#start,
      ...this.#extra,
    };
  }
}
