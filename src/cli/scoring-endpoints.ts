/**
 * A judge and an encoder served by an OpenAI-compatible endpoint (vLLM,
 * Ollama, llama.cpp server, TGI) for `neuroeval score`, through the same
 * engine, retries, time limit and API-key handling as `neuroeval run
 * --endpoint`; and the cache file that keeps their answers beside the run.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { OpenAiCompatibleEngine } from '../core/engines/openai/openai-engine.ts';
import { InvalidInputError } from '../core/errors.ts';
import type { LocalJudge, SimilarityEncoder } from '../core/scoring/run/index.ts';
import type { CachedValue, ScoringCacheStore } from '../core/scoring/run/scoring-cache.ts';
import { endpointUrl, type CliEndpointOptions } from './run/endpoint.ts';

function engineFor(url: string, model: string, option: string, options: CliEndpointOptions): { engine: OpenAiCompatibleEngine; id: string } {
  const u = endpointUrl(url, option);
  if (!model.trim()) throw new InvalidInputError(`${option} needs the served model's name (${option.replace('endpoint', 'model')} <name>)`, { field: option });
  const engine = new OpenAiCompatibleEngine({
    baseUrl: u.href.replace(/\/+$/, ''),
    model,
    concurrency: options.concurrency,
    retry: { retries: options.retries, timeoutMs: options.timeoutMs },
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
  });
  return { engine, id: `${model} @ ${u.host}` };
}

/** A served text model as the judge; connects first (the server must list it). */
export async function endpointJudge(url: string, model: string, options: CliEndpointOptions): Promise<LocalJudge> {
  const { engine, id } = engineFor(url, model, '--judge-endpoint', options);
  await engine.load();
  return { id, engine };
}

/** A served embedding model as the encoder: unit sentence vectors from `/embeddings` (no token vectors, so cosine but no BERTScore). */
export async function endpointEncoder(url: string, model: string, options: CliEndpointOptions): Promise<SimilarityEncoder> {
  const { engine, id } = engineFor(url, model, '--encoder-endpoint', options);
  await engine.load();
  return {
    id,
    async sentenceEmbeddings(texts) {
      const vectors = await engine.embed(texts);
      return vectors.map((v) => {
        const n = Math.hypot(...v);
        return n > 0 ? v.map((x) => x / n) : v;
      });
    },
  };
}

/**
 * Judge replies and encoder vectors kept in a JSON Lines file (one
 * `{"key", "value"}` per line, appended as they come), read whole when
 * opened. A line that cannot be read is an error naming the file and line:
 * nothing is overwritten.
 */
export class FileScoringCache implements ScoringCacheStore {
  readonly #entries = new Map<string, CachedValue>();
  /** Entries the file held when opened. */
  readonly loaded: number;

  constructor(readonly path: string) {
    if (existsSync(path)) {
      readFileSync(path, 'utf8').split('\n').forEach((line, i) => {
        if (!line.trim()) return;
        let entry: { key?: unknown; value?: unknown };
        try {
          entry = JSON.parse(line) as { key?: unknown; value?: unknown };
        } catch {
          throw new InvalidInputError(`${path}:${i + 1}: not a scoring-cache line (not JSON). Remove the file or give another --cache.`, { file: path, line: i + 1 });
        }
        const kind = (entry.value as { kind?: unknown } | undefined)?.kind;
        if (typeof entry.key !== 'string' || (kind !== 'reply' && kind !== 'sentence' && kind !== 'tokens')) {
          throw new InvalidInputError(`${path}:${i + 1}: not a scoring-cache line (needs "key" and a "value" of kind reply, sentence or tokens).`, { file: path, line: i + 1 });
        }
        this.#entries.set(entry.key, entry.value as CachedValue);
      });
    }
    this.loaded = this.#entries.size;
  }

  get(key: string): Promise<CachedValue | undefined> {
    return Promise.resolve(this.#entries.get(key));
  }

  put(key: string, value: CachedValue): Promise<void> {
    if (!this.#entries.has(key)) appendFileSync(this.path, `${JSON.stringify({ key, value })}\n`);
    this.#entries.set(key, value);
    return Promise.resolve();
  }
}
