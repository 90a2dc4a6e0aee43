/**
 * Greedy generation with the decoder's key/value cache in the engine's
 * hands, instead of transformers.js' `generate` (which starts every call
 * from nothing and frees its cache at the end):
 *
 * - **A shared prefix computed once.** A request names the leading parts it
 *   shares with others of its run (`GenerateRequest.prefix`). The first
 *   such request computes those tokens (the vision encoder on their images,
 *   then the decoder) and the cache is kept; every request with the same
 *   prefix starts from a copy of it and computes only its own tokens. A
 *   request with a prefix is always computed as prefix then rest, whether
 *   the prefix was kept or just made, so keeping it changes no answer.
 *   Where the model's decoder file was kept as published (WASM loads whose
 *   attention was split), a second session holds the kept prefix itself
 *   (held-prefix.ts) and rows on it decode there, feeding only their own
 *   positions: onnxruntime-web copies every input into its heap on each run.
 * - **Several requests per decode step.** Each request's prompt is computed
 *   alone (on the prefix), then their caches are stacked into one padded
 *   batch (kv-cache.ts) and every step decodes one token of each. Each row's
 *   positions come from its own attention mask, so a row computes what it
 *   would alone. A row that finishes leaves the batch.
 *
 * Logits pass through the model's own logits processors (from its
 * generation_config, as `generate` builds them), the next token is the first
 * highest score (transformers.js' greedy sampler), and generation stops at
 * the generation config's end-of-sequence tokens or `maxTokens`, as
 * `generate` does. Sampled requests (temperature > 0) keep transformers.js'
 * `generate` (decode-loop.ts), except where the decoder file was edited so
 * that only this loop can run it (its attention split at the cache boundary,
 * decoder-graph.ts): then they are decoded here, one request at a time, with
 * the same logits processors, the same sampler (`topk`, `softmax`, a
 * weighted draw from transformers.js' seeded generator) and the same seed as
 * `generate`, so a seed draws what it draws there.
 *
 * Only architectures whose positions transformers.js numbers by the
 * cumulative attention mask, and whose cache holds only attention keys and
 * values, are driven here ({@link canDrive}); the others keep `generate`.
 */
import type { PreTrainedModel, PreTrainedTokenizer, Tensor } from '@huggingface/transformers';
import type { PromptPrefix } from '../../chat/prefix.ts';
import type { EngineUsage, GenerateResult } from '../engine.ts';
import { EngineError } from '../errors.ts';
import { BATCH_SIZES, PLANNED_POSITIONS, chooseBatchSize, quantisedPerCall, type BatchChoice } from './batch-size.ts';
import { newKvOutput } from './decoder-graph.ts';
import { drivenType } from './driven-types.ts';
import { bakedPrefix, prefixHolder, type DecoderRun, type HoldPrefix } from './held-prefix.ts';
import { ArrayPool, GrowingCache, cacheFromOutputs, cacheLength, disposeCache, plainKvNames, selectRows, stackRows, type KvCache } from './kv-cache.ts';
import { GenerationMeter } from './generation-meter.ts';
import { createTopPProcessor } from './sampling.ts';
import { nextMacrotask } from './loading.ts';
import type { TransformersLib } from './runtime.ts';
import type { TokenEvent, VlmSampling } from './generation.ts';

/** A request tokenised for the decoder. */
export interface EncodedPrompt {
  /** Every token of the prompt, image tokens included. */
  readonly ids: readonly number[];
  /** Per image in prompt order: its tokens and the tiles the processor cut it into. */
  readonly images: readonly { readonly tokens: number; readonly tiles: number | null }[];
  /**
   * The vision encoder's inputs for images `from`…`to` (end exclusive), or
   * null when the prompt has none in that range.
   */
  vision(from: number, to: number): Readonly<Record<string, Tensor>> | null;
}

/** What the loop needs of a loaded model: the VLM and the text LLM each provide one. */
export interface DrivenModel {
  readonly lib: TransformersLib;
  readonly model: PreTrainedModel;
  readonly tokenizer: PreTrainedTokenizer;
  /** The token that stands for image features, or null (a text model). */
  readonly imageTokenId: number | null;
  /** Whether a kept prefix may hold images (the processor's vision inputs can be split by image). */
  readonly prefixImages: boolean;
  /** A fixed batch size instead of the measured choice (tests, comparisons). */
  readonly batch?: number;
  /**
   * The decoder file as published, where the load split its attention
   * (model-file-edits.ts keeps it): a session holding the kept prefix is made
   * from it (held-prefix.ts), and requests on the prefix decode there,
   * feeding only their own positions. Absent: every step feeds the whole cache.
   */
  readonly publishedDecoder?: Uint8Array | null;
}

/** One request of a call. */
export interface RowRequest {
  /** Tokenises the request (images decoded, processor run): done when its turn to be computed comes, so its timing is its own. */
  readonly encode: () => Promise<EncodedPrompt>;
  /** The conversation's probe for `prefix` (prefix.ts), encoded; absent without a prefix. */
  readonly probe?: () => Promise<EncodedPrompt>;
  readonly prefix?: PromptPrefix;
  readonly sampling: VlmSampling;
  readonly onToken?: (event: TokenEvent) => void;
}

/** Whether this loop can drive the model (else: transformers.js' `generate`). */
export function canDrive(model: PreTrainedModel): boolean {
  if (!drivenType(model.config)) return false;
  const session = decoderSession(model);
  return session !== null && plainKvNames(session.inputNames);
}

interface Session extends DecoderRun {
  /** ORT's input descriptions (shape with symbolic dimensions, element type). */
  readonly inputMetadata?: readonly { readonly name: string; readonly shape?: readonly (number | string)[]; readonly type?: string }[];
  /** What transformers.js loaded: the file's dtype and the device. */
  readonly config?: { readonly dtype?: string; readonly device?: string };
}

/**
 * Whether only {@link CachedDecoder} can run the model's decoder: its file
 * was edited without whole-cache outputs (decoder-graph.ts), which
 * transformers.js' `generate` needs.
 */
function onlyCachedDecoding(model: PreTrainedModel): boolean {
  const session = decoderSession(model);
  return !!session && session.inputNames.some((n) => n.startsWith('past_key_values.')) && !(session.outputNames ?? []).some((n) => n.startsWith('present.'));
}

/**
 * Releases the model and fails with what to do when only the cached decoder
 * could run its decoder and none was made for it (the edit is asked for by
 * model type before the load; a model of that type can still lack what the
 * decoder needs, such as an image token).
 */
export async function refuseUndriven(model: PreTrainedModel, decoder: CachedDecoder | null, modelId: string): Promise<void> {
  if (decoder || !onlyCachedDecoding(model)) return;
  await model.dispose();
  throw new EngineError('ENGINE_UNSUPPORTED', `Model "${modelId}" was loaded for NeuroEval's own decoder, which cannot run it; load it with cached decoding off.`);
}

function decoderSession(model: PreTrainedModel): Session | null {
  const sessions = model.sessions as Record<string, Session | undefined>;
  return sessions['decoder_model_merged'] ?? sessions['model'] ?? null;
}

/** Shortest prefix worth keeping, in tokens: below it, copying the cache costs about what computing it does. */
const MIN_PREFIX_TOKENS = 8;

interface KeptPrefix {
  readonly key: string;
  readonly ids: readonly number[];
  /** Images inside it. */
  readonly images: number;
  readonly cache: KvCache;
  readonly tensors: ReadonlySet<Tensor>;
}

interface Row {
  readonly request: RowRequest;
  readonly prompt: EncodedPrompt;
  /** Started when the row's own work starts (its encoding), so a batched row's time to first token is its own. */
  readonly meter: GenerationMeter;
  /** Prompt and generated tokens. */
  readonly ids: bigint[];
  readonly generated: number[];
  emitted: string;
  /** Prompt tokens taken from the kept prefix. */
  reused: number;
  /** Positions of this row's cache that hold its tokens (the rest of a stacked row is padding). */
  length: number;
  cache: KvCache | null;
  finish: GenerateResult['finishReason'] | null;
  /** The row's logits processors, made at its first token (they depend only on its sampling and prompt length). */
  processors: LogitsProcessors | null;
}

/** transformers.js' prepared logits processors: all input ids and [rows, vocab] logits in, processed scores out. */
type LogitsProcessors = (ids: bigint[][], logits: Tensor) => Tensor;

export class CachedDecoder {
  readonly #m: DrivenModel;
  #prefix: KeptPrefix | null = null;
  /** A session holding the kept prefix (held-prefix.ts), and how many positions it holds; null: none. */
  #held: { readonly session: DecoderRun; readonly length: number } | null = null;
  /**
   * The cache inputs, when the decoder also gives each pass's new keys and
   * values as outputs of their own (decoder-graph.ts): the cache is then held
   * in {@link GrowingCache}s and only logits and new positions leave the
   * runtime. Null: every pass returns the whole cache (`present.*`).
   */
  readonly #appendInputs: readonly string[] | null;
  /** Which growing cache a view belongs to, so the next pass appends to it in place. */
  readonly #owners = new WeakMap<KvCache, GrowingCache>();
  /** Arrays of the growing caches of finished calls, for the next ones (kv-cache.ts says why). */
  readonly #pool = new ArrayPool();
  /** Growing caches made during the call under way: their arrays go to the pool when it ends. */
  readonly #made = new Set<GrowingCache>();
  /** Calls run one after another (a call's caches are pooled when it ends; the session runs one pass at a time). */
  #running: Promise<unknown> = Promise.resolve();

  /** The decoder has no whole-cache outputs (its attention was split, decoder-graph.ts): `generate` cannot run it, so every request comes here. */
  readonly runsEveryRequest: boolean;

  /** Whether a request with this sampling is decoded here: greedy ones always, sampled ones where {@link runsEveryRequest}. */
  takes(sampling: { readonly temperature: number }): boolean {
    return sampling.temperature === 0 || this.runsEveryRequest;
  }

  constructor(model: DrivenModel) {
    this.#m = model;
    const session = decoderSession(model.model);
    const past = (session?.inputNames ?? []).filter((n) => n.startsWith('past_key_values.'));
    const outputs = new Set(session?.outputNames ?? []);
    this.#appendInputs = session?.run && past.length > 0 && past.every((n) => outputs.has(newKvOutput(n))) ? past : null;
    this.runsEveryRequest = onlyCachedDecoding(model.model);
    this.#holdPrefix = this.#appendInputs ? prefixHolder(model.publishedDecoder ?? null, session) : null;
  }

  readonly #holdPrefix: HoldPrefix | null;

  /** Whether the cache is held in the engine's own arrays and grown in place (else the runtime returns it whole each pass). */
  get growsCacheInPlace(): boolean {
    return this.#appendInputs !== null;
  }

  /** Positions the kept prefix holds (0: none), for diagnostics and tests. */
  get keptPrefixTokens(): number {
    return this.#prefix?.ids.length ?? 0;
  }

  /** Positions a decoder session holds itself (the kept prefix, held-prefix.ts; 0: none), for diagnostics and tests. */
  get heldPrefixTokens(): number {
    return this.#held?.length ?? 0;
  }

  /** Frees the kept prefix and the pooled arrays. */
  dispose(): void {
    this.#dropPrefix();
    this.#pool.clear();
  }

  #batch: Promise<BatchChoice> | null = null;

  /**
   * How many requests this decoder takes together here (batch-size.ts),
   * measured once: a fixed size when the load asked for one.
   */
  batchChoice(): Promise<BatchChoice> {
    this.#batch ??= (async () => {
      const fixed = this.#m.batch;
      if (fixed !== undefined) return { size: Math.max(1, Math.floor(fixed)), reason: 'fixed when the model was loaded' };
      const facts = { decoderDtype: this.decoderDtype, cacheBytesPerPosition: this.cacheBytesPerPosition(), positions: PLANNED_POSITIONS };
      if (quantisedPerCall(facts.decoderDtype)) return chooseBatchSize({ ...facts, stepMs: null });
      const stepMs = new Map<number, number>();
      for (const size of BATCH_SIZES) stepMs.set(size, await this.stepMs(size));
      return chooseBatchSize({ ...facts, stepMs });
    })();
    return this.#batch;
  }

  /** The decoder's weight format as transformers.js loaded it (`q8`, `q4`, `fp32`, …), or null. */
  get decoderDtype(): string | null {
    return decoderSession(this.#m.model)?.config?.dtype ?? null;
  }

  /** Cache bytes a request holds per position (every layer's keys and values). */
  cacheBytesPerPosition(): number {
    let bytes = 0;
    for (const meta of this.#cacheInputs()) {
      const per = (meta.shape ?? []).reduce<number>((n, d, i) => (i === 0 || i === 2 || typeof d !== 'number' ? n : n * d), 1);
      bytes += per * (meta.type === 'float16' ? 2 : 4);
    }
    return bytes;
  }

  /**
   * Time of one decode step (best of two) with `rows` rows on a synthetic
   * cache of `positions` positions each, in ms: what the batch size is
   * chosen from (batch-size.ts).
   */
  async stepMs(rows: number, positions = 64): Promise<number> {
    const { lib } = this.#m;
    const cache: Record<string, Tensor> = {};
    for (const meta of this.#cacheInputs()) {
      const dims = (meta.shape ?? []).map((d, i) => (i === 0 ? rows : i === 2 ? positions : typeof d === 'number' ? d : 1));
      const size = dims.reduce((a, b) => a * b, 1);
      cache[meta.name] = new lib.Tensor(meta.type === 'float16' ? 'float16' : 'float32', meta.type === 'float16' ? new Uint16Array(size) : new Float32Array(size), dims);
    }
    const masks = Array.from({ length: rows }, () => new Array<number>(positions + 1).fill(1));
    let best = Infinity;
    for (let i = 0; i < 2; i++) {
      const t0 = performance.now();
      const out = await this.#step(new Array<bigint>(rows).fill(0n), masks, cache);
      best = Math.min(best, performance.now() - t0);
      disposeCache(out.cache);
    }
    return best;
  }

  #cacheInputs() {
    return (decoderSession(this.#m.model)?.inputMetadata ?? []).filter((m) => m.name.startsWith('past_key_values.'));
  }

  /**
   * Generates an answer for each request, decoding up to all of them
   * together (greedy ones; a sampled request is decoded alone);
   * `onResult` gets each as soon as it is finished. Never
   * throws for an abort (its `signal` is any request's): the rows end with
   * what they had, `finishReason: 'abort'`.
   */
  generate(requests: readonly RowRequest[], onResult?: (index: number, result: GenerateResult) => void): Promise<GenerateResult[]> {
    const run = this.#running.then(async () => {
      if (requests.length < 2 || requests.every((r) => r.sampling.temperature === 0)) return this.#generate(requests, onResult);
      // A sampled request draws from the one seeded generator: alone, so no other row's draws come between its own.
      const results: GenerateResult[] = [];
      for (const [i, r] of requests.entries()) results.push((await this.#generate([r], (_, result) => onResult?.(i, result)))[0]!);
      return results;
    });
    this.#running = run.catch(() => {});
    return run;
  }

  async #generate(requests: readonly RowRequest[], onResult?: (index: number, result: GenerateResult) => void): Promise<GenerateResult[]> {
    const results: GenerateResult[] = new Array(requests.length);
    const rows: Row[] = [];
    try {
      for (const request of requests) rows.push(await this.#prefill(request));
      const finished = (i: number) => {
        results[i] = this.#result(rows[i]!, requests.length);
        onResult?.(i, results[i]!);
      };
      rows.forEach((r, i) => r.finish && finished(i));
      await this.#decode(rows, finished);
      return results;
    } finally {
      for (const r of rows) disposeCache(r.cache, this.#prefix?.tensors);
      // Nothing of this call reads its caches any more (the kept prefix is frozen and stays).
      for (const g of this.#made) g.release();
      this.#made.clear();
    }
  }

  // ── prompt ──

  async #prefill(request: RowRequest): Promise<Row> {
    const { sampling } = request;
    const meter = new GenerationMeter();
    const prompt = sampling.signal?.aborted ? EMPTY_PROMPT : await request.encode();
    const row: Row = { request, prompt, meter, ids: prompt.ids.map(BigInt), generated: [], emitted: '', reused: 0, length: 0, cache: null, finish: null, processors: null };
    meter.describe({ prompt: promptSize(prompt, this.#m.imageTokenId, 0) });
    if (sampling.signal?.aborted) {
      row.finish = 'abort';
      return row;
    }
    const kept = request.prefix ? await this.#keptFor(request, prompt) : null;
    const from = kept?.ids.length ?? 0;
    row.reused = from;
    meter.describe({ prompt: promptSize(prompt, this.#m.imageTokenId, from) });
    // Prefill speed counts the tokens computed here, not those taken from the kept prefix.
    meter.modelStarted(prompt.ids.length, prompt.ids.length - from);
    const rest = prompt.ids.slice(from).map(BigInt);
    const { logits, cache } = await this.#forward(rest, kept?.cache ?? null, prompt, kept?.images ?? 0, prompt.images.length, from, sampling.maxTokens);
    row.cache = cache;
    row.length = prompt.ids.length;
    // As decode-loop.ts seeds before `generate`: the first draw is this row's first token.
    if (sampling.temperature > 0) this.#m.lib.random.seed(sampling.seed);
    this.#accept(row, await this.#next(row, logits, 0));
    return row;
  }

  /** The kept prefix for this request (made first when it has another or none), or null when its prefix is too short or does not match. */
  async #keptFor(request: RowRequest, prompt: EncodedPrompt): Promise<KeptPrefix | null> {
    const prefix = request.prefix!;
    const ids = prompt.ids;
    const kept = this.#prefix;
    if (kept?.key === prefix.key) {
      if (kept.ids.length < ids.length && kept.ids.every((id, i) => id === ids[i])) return kept;
      return null;
    }
    if (!request.probe) return null;
    const probe = await request.probe();
    let length = sharedLength(ids, probe.ids);
    const spans = imageSpans(ids, this.#m.imageTokenId, prompt.images);
    // Never end inside an image's tokens, and leave at least one token to compute.
    length = Math.min(length, ids.length - 1);
    for (const s of spans) if (length > s.start && length < s.end) length = s.start;
    const images = spans.filter((s) => s.end <= length).length;
    if (images > 0 && !this.#m.prefixImages) {
      const firstImage = spans[0]!.start;
      length = Math.min(length, firstImage);
      return this.#make(prefix.key, ids.slice(0, length), 0, prompt);
    }
    return this.#make(prefix.key, ids.slice(0, length), images, prompt);
  }

  async #make(key: string, ids: readonly number[], images: number, prompt: EncodedPrompt): Promise<KeptPrefix | null> {
    this.#dropPrefix();
    if (ids.length < MIN_PREFIX_TOKENS) return null;
    const { cache } = await this.#forward(ids.map(BigInt), null, prompt, 0, images, 0);
    const owner = this.#owners.get(cache);
    if (owner) owner.frozen = true;
    this.#prefix = { key, ids, images, cache, tensors: new Set(Object.values(cache)) };
    await this.#hold(cache, ids.length);
    return this.#prefix;
  }

  /**
   * A session holding the kept prefix, where the model has a maker for one
   * (held-prefix.ts). Made once per prefix; one that cannot be made (a file
   * the edit does not fit, no memory left for a second session) leaves
   * decoding on the model's own session, which gives the same answers.
   */
  async #hold(cache: KvCache, length: number): Promise<void> {
    const make = this.#holdPrefix;
    const baked = make ? bakedPrefix(cache, length) : null;
    if (!make || !baked) return;
    const session = await make(baked).catch(() => null);
    if (session?.run) this.#held = { session, length };
  }

  #dropPrefix(): void {
    const p = this.#prefix;
    this.#prefix = null;
    disposeCache(p?.cache ?? null);
    const held = this.#held;
    this.#held = null;
    void held?.session.release?.().catch(() => {});
  }

  /**
   * One forward pass over `ids` (one row) after `past`: text embeddings with
   * the features of images `imagesFrom`…`imagesTo` put in place of their
   * tokens (a VLM), the decoder on top of the cache. `pastLength` positions
   * precede these tokens; a cache grown in place gets room for `room` more
   * (the tokens still to decode; 0 for a kept prefix, never appended to).
   */
  async #forward(ids: bigint[], past: KvCache | null, prompt: EncodedPrompt, imagesFrom: number, imagesTo: number, pastLength: number, room = 0): Promise<{ logits: Tensor; cache: KvCache }> {
    const { lib, model } = this.#m;
    const inputIds = new lib.Tensor('int64', BigInt64Array.from(ids), [1, ids.length]);
    const attention = new lib.Tensor('int64', new BigInt64Array(pastLength + ids.length).fill(1n), [1, pastLength + ids.length]);
    let inputs: Record<string, unknown>;
    if (this.#m.imageTokenId !== null) {
      let embeds = (await (model as unknown as { encode_text(i: object): Promise<Tensor> }).encode_text({ input_ids: inputIds })) as Tensor;
      const vision = imagesTo > imagesFrom ? prompt.vision(imagesFrom, imagesTo) : null;
      if (vision) {
        const features = await (model as unknown as { encode_image(i: object): Promise<Tensor> }).encode_image(vision);
        ({ inputs_embeds: embeds } = (model as unknown as { _merge_input_ids_with_image_features(i: object): { inputs_embeds: Tensor } })._merge_input_ids_with_image_features({
          image_features: features,
          inputs_embeds: embeds,
          input_ids: inputIds,
          attention_mask: attention,
        }));
      }
      inputs = { inputs_embeds: embeds };
    } else {
      inputs = { input_ids: inputIds };
    }
    if (this.#appendInputs) return this.#pass(inputs, attention, past, ids.length, room);
    const outputs = (await model.forward({ ...inputs, attention_mask: attention, past_key_values: past ? new lib.DynamicCache(past) : null })) as Record<string, Tensor>;
    return { logits: outputs['logits']!, cache: cacheFromOutputs(outputs) };
  }

  /**
   * One pass of the decoder session asked for logits (the last position's
   * only, where the session can be told) and the new keys and values, which
   * are appended to `past`'s growing cache, in place unless it is the kept
   * prefix (or not growing yet: then a copy with room for `room` positions
   * after these). Positions are numbered from each row's mask, as
   * transformers.js numbers them.
   */
  async #pass(inputs: Record<string, unknown>, attention: Tensor, past: KvCache | null, tokens: number, room: number, session: Session = decoderSession(this.#m.model)!): Promise<{ logits: Tensor; cache: KvCache }> {
    const { lib } = this.#m;
    const names = new Set(session.inputNames);
    const rows = attention.dims[0]!;
    const width = attention.dims[1]!;
    const feeds: Record<string, Tensor> = { ...(inputs as Record<string, Tensor>), attention_mask: attention };
    if (names.has('position_ids')) feeds['position_ids'] = new lib.Tensor('int64', maskPositions(attention.data as BigInt64Array, rows, width, tokens), [rows, tokens]);
    if (names.has('num_logits_to_keep')) feeds['num_logits_to_keep'] = new lib.Tensor('int64', BigInt64Array.from([1n]), []);
    const pastCache = past ?? this.#emptyCache(rows);
    Object.assign(feeds, pastCache);
    const ortFeeds: Record<string, unknown> = {};
    for (const name of session.inputNames) {
      const t = feeds[name];
      if (!t) throw new EngineError('ENGINE_UNSUPPORTED', `The decoder wants an input "${name}", which the engine does not make for this architecture.`);
      ortFeeds[name] = (t as unknown as { ort_tensor: unknown }).ort_tensor;
    }
    const wanted = this.#appendInputs!;
    // As model.forward does here (loading.ts yieldBeforeEachForward): an abort posted to the worker gets in between passes.
    await nextMacrotask();
    const out = await session.run!(ortFeeds, ['logits', ...wanted.map(newKvOutput)]);
    const added: Record<string, Tensor> = {};
    for (const name of wanted) added[name] = new lib.Tensor(out[newKvOutput(name)] as never);
    let growing = past ? this.#owners.get(past) : undefined;
    if (!growing || growing.frozen) {
      growing = GrowingCache.copyOf(lib, pastCache, cacheLength(pastCache) + tokens + room, this.#pool);
      this.#made.add(growing);
    }
    growing.append(added);
    return { logits: new lib.Tensor(out['logits'] as never), cache: this.#view(growing) };
  }

  /** The growing cache's current view, remembered as its, so the next pass appends to it in place. */
  #view(growing: GrowingCache): KvCache {
    const view = growing.view();
    this.#owners.set(view, growing);
    return view;
  }

  /** A cache of no positions, as the decoder's inputs declare it. */
  #emptyCache(rows: number): KvCache {
    const { lib } = this.#m;
    const out: Record<string, Tensor> = {};
    for (const meta of this.#cacheInputs()) {
      const dims = (meta.shape ?? []).map((d, i) => (i === 0 ? rows : i === 2 ? 0 : typeof d === 'number' ? d : 1));
      out[meta.name] = new lib.Tensor(meta.type === 'float16' ? 'float16' : 'float32', meta.type === 'float16' ? new Uint16Array(0) : new Float32Array(0), dims);
    }
    return out;
  }

  // ── decoding ──

  /**
   * Decodes the unfinished rows together until each is finished; a finished
   * row leaves the batch at once (`finished(index)`). The rows' caches pass
   * to this loop: one row decodes on its own, several on one stacked, padded
   * cache. Rows that all start with the prefix a session holds decode on
   * that session, their caches cut to the positions after it.
   */
  async #decode(rows: Row[], finished: (index: number) => void): Promise<void> {
    const { lib } = this.#m;
    let active = rows.map((_, i) => i).filter((i) => !rows[i]!.finish);
    if (active.length === 0) return;
    for (const i of active) rows[i]!.meter.decodeStarted();
    const room = Math.max(...active.map((i) => rows[i]!.request.sampling.maxTokens));
    // (A holding session exists only where the cache grows in place: its maker needs the new-positions outputs.)
    const held = this.#held && active.every((i) => rows[i]!.reused === this.#held!.length) ? this.#held : null;
    const own = active.map((i) => (held ? this.#after(rows[i]!.cache!, held.length, room) : rows[i]!.cache!));
    let cache: KvCache = own.length === 1 ? own[0]! : await stackRows(lib, own);
    for (const i of active) {
      if (rows[i]!.cache !== cache) disposeCache(rows[i]!.cache, this.#prefix?.tensors);
      rows[i]!.cache = null;
    }
    /** Cache slots before the fed cache's: the held prefix's. */
    const before = held?.length ?? 0;
    let masks = active.map((i) => maskRow(rows[i]!.length, before + cacheLength(cache)));
    try {
      while (active.length > 0) {
        if (active.some((i) => rows[i]!.request.sampling.signal?.aborted)) {
          for (const i of active) rows[i]!.finish = 'abort';
          for (const i of active) finished(i);
          return;
        }
        masks = masks.map((m) => [...m, 1]);
        const out = await this.#step(active.map((i) => rows[i]!.ids.at(-1)!), masks, cache, room, held?.session);
        disposeCache(cache, this.#prefix?.tensors);
        cache = out.cache;
        const keepRows: number[] = [];
        for (let j = 0; j < active.length; j++) {
          const row = rows[active[j]!]!;
          this.#accept(row, await this.#next(row, out.logits, j));
          if (!row.finish) keepRows.push(j);
        }
        if (keepRows.length === active.length) continue;
        const done = active.filter((i) => rows[i]!.finish);
        if (keepRows.length > 0) {
          const kept = await selectRows(lib, cache, keepRows);
          disposeCache(cache, this.#prefix?.tensors);
          cache = kept;
          masks = keepRows.map((j) => masks[j]!);
        }
        active = keepRows.map((j) => active[j]!);
        for (const i of done) finished(i);
      }
    } finally {
      disposeCache(cache, this.#prefix?.tensors);
    }
  }

  /** A row's positions from `from` on, in a growing cache of this call with room for `room` more. */
  #after(cache: KvCache, from: number, room: number): KvCache {
    const growing = GrowingCache.after(this.#m.lib, cache, from, room, this.#pool);
    this.#made.add(growing);
    return this.#view(growing);
  }

  /**
   * One decode step of the active rows: their last tokens in, logits and the
   * grown cache out (a cache grown in place with room for `room` more); on
   * `session` where given (one holding a prefix: the masks then cover it too).
   */
  async #step(last: readonly bigint[], masks: readonly number[][], cache: KvCache, room = 0, session?: DecoderRun): Promise<{ logits: Tensor; cache: KvCache }> {
    const { lib, model } = this.#m;
    const n = last.length;
    const inputIds = new lib.Tensor('int64', BigInt64Array.from(last), [n, 1]);
    const width = masks[0]!.length;
    const attention = new lib.Tensor('int64', BigInt64Array.from(masks.flat().map(BigInt)), [n, width]);
    const inputs =
      this.#m.imageTokenId !== null
        ? { inputs_embeds: await (model as unknown as { encode_text(i: object): Promise<Tensor> }).encode_text({ input_ids: inputIds }) }
        : { input_ids: inputIds };
    if (this.#appendInputs) return this.#pass(inputs, attention, cache, 1, room, session);
    const outputs = (await model.forward({ ...inputs, attention_mask: attention, past_key_values: new lib.DynamicCache(cache) })) as Record<string, Tensor>;
    return { logits: outputs['logits']!, cache: cacheFromOutputs(outputs) };
  }

  /**
   * The next token of `row` from row `index` of `logits` (its last
   * position), through the model's logits processors: the highest score, or
   * for a sampled request a draw as transformers.js' multinomial sampler
   * makes it.
   */
  async #next(row: Row, logits: Tensor, index: number): Promise<number> {
    const { lib } = this.#m;
    const rowLogits = logits.slice(index, -1, null).unsqueeze(0).to('float32') as Tensor;
    row.processors ??= this.#processors(row);
    const scores = row.processors([row.ids], rowLogits);
    if (row.request.sampling.temperature > 0) return drawToken(lib, (scores as unknown as Tensor[])[0]!);
    const data = scores.data as Float32Array;
    let best = 0;
    for (let i = 1; i < data.length; i++) if (data[i]! > data[best]!) best = i;
    return best;
  }

  /** The logits processors `generate` builds for the row's sampling and prompt (with our top-p where it samples: sampling.ts). */
  #processors(row: Row): LogitsProcessors {
    const { model, lib } = this.#m;
    const { sampling } = row.request;
    const sample = sampling.temperature > 0;
    const config = (model as unknown as { _prepare_generation_config(c: null, k: object): object })._prepare_generation_config(null, {
      max_new_tokens: sampling.maxTokens,
      do_sample: sample,
      ...(sample ? { temperature: sampling.temperature, top_k: 0 } : {}),
    });
    const extra = new lib.LogitsProcessorList();
    if (sample && sampling.topP < 1) extra.push(createTopPProcessor(lib, sampling.topP));
    return (model as unknown as { _get_logits_processor(c: object, n: number, p: unknown): LogitsProcessors })._get_logits_processor(config, row.prompt.ids.length, extra);
  }

  /** Records the token, streams its text, and decides whether the row is finished. */
  #accept(row: Row, token: number): void {
    const { sampling, onToken } = row.request;
    const elapsedMs = row.meter.token();
    row.generated.push(token);
    row.ids.push(BigInt(token));
    if (onToken) {
      const decoded = this.#m.tokenizer.decode(row.generated, { skip_special_tokens: true });
      // Hold back a trailing replacement character: the next byte token may complete it.
      const stable = decoded.replace(/\uFFFD+$/, '');
      const piece = stable.startsWith(row.emitted) ? stable.slice(row.emitted.length) : '';
      row.emitted += piece;
      onToken({ index: row.generated.length - 1, tokenId: token, text: piece, elapsedMs });
    }
    if (this.#stopIds().has(token)) row.finish = 'stop';
    else if (row.generated.length >= sampling.maxTokens) row.finish = 'length';
    else if (sampling.signal?.aborted) row.finish = 'abort';
  }

  #stopIdsCache: ReadonlySet<number> | null = null;

  /** The tokens `generate` stops at: its generation config's `eos_token_id`. */
  #stopIds(): ReadonlySet<number> {
    if (!this.#stopIdsCache) {
      const config = (this.#m.model as unknown as { _prepare_generation_config(c: null, k: object): { eos_token_id?: number | number[] | null } })._prepare_generation_config(null, {});
      this.#stopIdsCache = new Set([config.eos_token_id ?? []].flat().filter((v): v is number => typeof v === 'number'));
    }
    return this.#stopIdsCache;
  }

  #result(row: Row, batch: number): GenerateResult {
    const { meter } = row;
    meter.describe({ prompt: promptSize(row.prompt, this.#m.imageTokenId, row.reused), batch });
    const text = row.generated.length ? this.#m.tokenizer.decode(row.generated, { skip_special_tokens: true }) : '';
    const usage: EngineUsage = meter.usage();
    return { text, finishReason: row.finish ?? 'abort', usage };
  }
}

const EMPTY_PROMPT: EncodedPrompt = { ids: [], images: [], vision: () => null };

/**
 * A token drawn from `scores` ([vocab]) as transformers.js' MultinomialSampler
 * draws it with `top_k` 0: every token by descending score (its `topk`), their
 * softmax, and one draw from its seeded generator weighted by those.
 */
async function drawToken(lib: TransformersLib, scores: Tensor): Promise<number> {
  const [values, indices] = await lib.topk(scores, scores.dims.at(-1)!);
  const p = lib.softmax(values!.data as Float32Array) as Float32Array;
  let sum = 0;
  for (let i = 0; i < p.length; i++) sum += p[i]!;
  let x = lib.random.random() * sum;
  for (let i = 0; i < p.length; i++) {
    x -= p[i]!;
    if (x < 0) return Number(indices!.data[i]);
  }
  return Number(indices!.data[p.length - 1]);
}

/**
 * Position ids of the last `tokens` slots of each row of a [rows, width]
 * mask, as transformers.js' `create_position_ids` numbers them: the count of
 * unmasked slots before, and 1 for a masked slot.
 */
function maskPositions(mask: BigInt64Array, rows: number, width: number, tokens: number): BigInt64Array {
  const positions = new BigInt64Array(rows * tokens);
  for (let r = 0; r < rows; r++) {
    let seen = 0n;
    for (let j = 0; j < width; j++) {
      const on = mask[r * width + j] !== 0n;
      const at = j - (width - tokens);
      if (at >= 0) positions[r * tokens + at] = on ? seen : 1n;
      if (on) seen++;
    }
  }
  return positions;
}

/** A row's attention mask over `width` cache slots: its `length` tokens, then padding. */
function maskRow(length: number, width: number): number[] {
  return Array.from({ length: width }, (_, i) => (i < length ? 1 : 0));
}

/** How many leading tokens two prompts share. */
export function sharedLength(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/**
 * Where each image's tokens lie in the prompt (first to last, end exclusive),
 * given how many each image has, in order; images whose tokens cannot be
 * found are left out.
 */
export function imageSpans(ids: readonly number[], imageTokenId: number | null, images: readonly { readonly tokens: number }[]): { start: number; end: number }[] {
  if (imageTokenId === null || images.length === 0) return [];
  const spans: { start: number; end: number }[] = [];
  let image = 0;
  let seen = 0;
  let start = -1;
  for (let i = 0; i < ids.length && image < images.length; i++) {
    if (ids[i] !== imageTokenId) continue;
    if (seen === 0) start = i;
    seen++;
    if (seen === images[image]!.tokens) {
      spans.push({ start, end: i + 1 });
      image++;
      seen = 0;
    }
  }
  return spans;
}

/** The prompt's text and image tokens, `reused` of them from a kept prefix. */
export function promptSize(prompt: EncodedPrompt, imageTokenId: number | null, reused: number): NonNullable<EngineUsage['prompt']> {
  const imageTokens = imageTokenId === null ? 0 : prompt.ids.reduce((n, id) => n + (id === imageTokenId ? 1 : 0), 0);
  return { textTokens: prompt.ids.length - imageTokens, imageTokens, images: prompt.images.map((i) => ({ tiles: i.tiles, tokens: i.tokens })), reusedTokens: reused };
}
