/**
 * A persistent cache of what scoring asks of models: judge replies and
 * encoder vectors, each keyed by the model, the prompt and the input, so
 * re-scoring a run (after a review, on another day, on another machine that
 * holds the same cache) asks again only what it has not asked before. The
 * store behind it is the app's IndexedDB or, in the CLI, a file beside the
 * run; both keep {@link CachedValue}s under {@link cacheKey}s.
 */
import { sha256Hex } from '../../hash/sha256.ts';
import type { SimilarityEncoder } from './similarity.ts';

export type CachedValue =
  | { readonly kind: 'reply'; readonly raw: string }
  | { readonly kind: 'sentence'; readonly vector: readonly number[] }
  | { readonly kind: 'tokens'; readonly tokens: readonly string[]; readonly vectors: readonly (readonly number[])[]; readonly special?: readonly boolean[]; readonly layer?: number | null };

export interface ScoringCacheStore {
  get(key: string): Promise<CachedValue | undefined>;
  put(key: string, value: CachedValue): Promise<void>;
}

/** The key of one request: which model, what was asked (prompt and sampling, or the encoder call's options), of which input. */
export function cacheKey(model: string, prompt: string, input: string): string {
  return sha256Hex(JSON.stringify([model, prompt, input]));
}

/** How many answers came from the cache and how many were computed. */
export interface CacheCounts {
  reused: number;
  computed: number;
}

/** `encoder` with every sentence and token vector kept in `store` (keyed by encoder id, call and text) and counted. */
export function cachedEncoder(encoder: SimilarityEncoder, store: ScoringCacheStore): SimilarityEncoder & { readonly counts: CacheCounts } {
  const counts: CacheCounts = { reused: 0, computed: 0 };
  const tokenEmbeddings = encoder.tokenEmbeddings?.bind(encoder);
  return {
    id: encoder.id,
    counts,
    ...(encoder.describeLayers ? { describeLayers: encoder.describeLayers.bind(encoder) } : {}),
    async sentenceEmbeddings(texts) {
      const keys = texts.map((t) => cacheKey(encoder.id, 'sentence', t));
      const found = await Promise.all(keys.map((k) => store.get(k)));
      const missing = texts.filter((_, i) => found[i]?.kind !== 'sentence');
      const fresh = missing.length ? await encoder.sentenceEmbeddings(missing) : [];
      let next = 0;
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i++) {
        const hit = found[i];
        if (hit?.kind === 'sentence') {
          counts.reused++;
          out.push(Float32Array.from(hit.vector));
        } else {
          const v = fresh[next++]!;
          counts.computed++;
          await store.put(keys[i]!, { kind: 'sentence', vector: [...v] });
          out.push(v);
        }
      }
      return out;
    },
    ...(tokenEmbeddings
      ? {
          async tokenEmbeddings(text, options = {}) {
            const key = cacheKey(encoder.id, `tokens ${JSON.stringify(options)}`, text);
            const hit = await store.get(key);
            if (hit?.kind === 'tokens') {
              counts.reused++;
              return { tokens: hit.tokens, vectors: hit.vectors.map((v) => Float32Array.from(v)), ...(hit.special ? { special: hit.special } : {}), ...(hit.layer !== undefined ? { layer: hit.layer } : {}) };
            }
            const t = await tokenEmbeddings(text, options);
            counts.computed++;
            await store.put(key, { kind: 'tokens', tokens: t.tokens, vectors: t.vectors.map((v) => [...v]), ...(t.special ? { special: t.special } : {}), ...(t.layer !== undefined ? { layer: t.layer } : {}) });
            return t;
          },
        }
      : {}),
  };
}
