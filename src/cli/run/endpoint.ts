/**
 * `neuroeval run` against an OpenAI-compatible server (vLLM, Ray Serve's
 * OpenAI app, Ollama, llama.cpp server, TGI): which models `--endpoint` and
 * `--endpoint-model` name, and how the engine talks to the server (API key
 * from an environment variable, requests in flight, time limit, retries).
 * The key is read here and handed to the engine only: it is never part of
 * the run's configuration, journal or export.
 */
import type { ModelFileRef } from '../../core/engines/spec.ts';
import { DEFAULT_RETRY_POLICY } from '../../core/engines/openai/retry.ts';
import { InvalidInputError } from '../../core/errors.ts';
import type { RunArgs } from './args.ts';

/** A model served by an OpenAI-compatible endpoint. */
export interface CliEndpointModel {
  readonly kind: 'openai';
  /** The served name: the model's id in the run. */
  readonly id: string;
  readonly label: string;
  /** Base URL with the API prefix, e.g. `http://gpu01.hospital.local:8000/v1`. */
  readonly baseUrl: string;
  readonly model: string;
  /** None: the weights are the server's, not ours to hash, so its answers are never reused from a cache. */
  readonly files: readonly ModelFileRef[];
}

/** How the engine talks to the endpoint. */
export interface CliEndpointOptions {
  readonly apiKey?: string;
  readonly concurrency: number;
  readonly timeoutMs: number;
  readonly retries: number;
}

const ENDPOINT_ONLY = ['apiKeyEnv', 'timeout', 'retries'] as const;
const FLAG: Record<(typeof ENDPOINT_ONLY)[number], string> = { apiKeyEnv: '--api-key-env', timeout: '--timeout', retries: '--retries' };

/**
 * An endpoint's base URL as an option gives it: http(s), no credentials in it.
 * @throws InvalidInputError naming the option.
 */
export function endpointUrl(value: string, option: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidInputError(`${option} must be a URL such as http://gpu01.hospital.local:8000/v1, not "${value}"`, { field: option });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidInputError(`${option} must be an http(s) URL, not ${url.protocol}`, { field: option });
  if (url.username || url.password) throw new InvalidInputError(`${option} must not carry a user or password: give the key with --api-key-env`, { field: option });
  return url;
}

/**
 * The endpoint models of the arguments (none without `--endpoint`).
 * @throws InvalidInputError (a usage error) naming the option at fault.
 */
export function endpointModelsOf(a: RunArgs): CliEndpointModel[] {
  if (a.endpoint === undefined) {
    if (a.endpointModels.length > 0) throw new InvalidInputError('--endpoint-model needs --endpoint <base URL>', { field: '--endpoint-model' });
    for (const k of ENDPOINT_ONLY) if (a[k] !== undefined) throw new InvalidInputError(`${FLAG[k]} applies to --endpoint only`, { field: FLAG[k] });
    return [];
  }
  const url = endpointUrl(a.endpoint, '--endpoint');
  if (a.endpointModels.length === 0) throw new InvalidInputError('--endpoint needs --endpoint-model <served model name> (what the server lists at /models)', { field: '--endpoint-model' });
  const baseUrl = url.href.replace(/\/+$/, '');
  return a.endpointModels.map((model) => {
    if (!model.trim() || model.includes('|')) throw new InvalidInputError(`--endpoint-model "${model}" is empty or contains "|"`, { field: '--endpoint-model' });
    return { kind: 'openai', id: model, label: `${model} @ ${url.host}`, baseUrl, model, files: [] };
  });
}

/**
 * The engine options of the arguments; the API key comes from the named
 * environment variable, which must be set.
 * @throws InvalidInputError naming the option or variable.
 */
export function endpointOptionsOf(a: Pick<RunArgs, 'apiKeyEnv' | 'concurrency' | 'timeout' | 'retries'>, env: Readonly<Record<string, string | undefined>> = process.env): CliEndpointOptions {
  let apiKey: string | undefined;
  if (a.apiKeyEnv !== undefined) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(a.apiKeyEnv)) throw new InvalidInputError(`--api-key-env takes the name of an environment variable, not "${a.apiKeyEnv}"`, { field: '--api-key-env' });
    apiKey = env[a.apiKeyEnv];
    if (!apiKey) throw new InvalidInputError(`--api-key-env ${a.apiKeyEnv}: the variable is not set or empty`, { field: '--api-key-env' });
  }
  return {
    ...(apiKey ? { apiKey } : {}),
    concurrency: a.concurrency ?? 1,
    timeoutMs: a.timeout !== undefined ? a.timeout * 1000 : (DEFAULT_RETRY_POLICY.timeoutMs ?? 600_000),
    retries: a.retries ?? DEFAULT_RETRY_POLICY.retries,
  };
}
