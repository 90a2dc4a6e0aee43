/** Options of `neuroeval run`, read from the command line. */
import { InvalidInputError } from '../../core/errors.ts';
import { isJsonOutputSetting, JSON_OUTPUT_SETTINGS, type JsonOutputSetting } from '../../core/protocols/json-output.ts';

export interface RunArgs {
  benchmarks: string[];
  format?: string;
  mapping?: string;
  /** The task a generic import declares, as JSON. */
  declaredTask?: string;
  models: string[];
  protocol: string;
  variants?: string[];
  samples?: number;
  temperature?: number;
  topP?: number;
  seed?: number;
  maxTokens?: number;
  splits?: string[];
  tasks?: string[];
  diseaseGroups?: string[];
  modalities?: string[];
  cases?: string[];
  limit?: number;
  fewShot: boolean;
  /** `--json-output`: whether requests ask for JSON (`response_format`). */
  jsonOutput?: JsonOutputSetting;
  interleave: boolean;
  device?: string;
  shard?: string;
  out?: string;
  name?: string;
  json: boolean;
  maxErrors?: number;
  retryErrors: boolean;
  /** An OpenAI-compatible server's base URL (with its API prefix, e.g. `/v1`). */
  endpoint?: string;
  /** Served model names on `endpoint`; each is a model of the run. */
  endpointModels: string[];
  /** Name of the environment variable holding the endpoint's API key. */
  apiKeyEnv?: string;
  concurrency?: number;
  /** Seconds one request may take. */
  timeout?: number;
  retries?: number;
}

const list = (v: string) => v.split(',').map((x) => x.trim()).filter(Boolean);

/** Parses the arguments; throws {@link InvalidInputError} (a usage error) naming the option. */
export function parseRunArgs(args: readonly string[]): RunArgs {
  const out: RunArgs = { benchmarks: [], models: [], protocol: 'auto', fewShot: false, interleave: false, json: false, retryErrors: false, endpointModels: [] };
  const check = (name: string, raw: string, ok: (n: number) => boolean, rule: string): number => {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n) || !ok(n)) throw new InvalidInputError(`${name} must be ${rule}, not "${raw}"`, { field: name });
    return n;
  };
  const whole = (min: number) => (n: number) => Number.isInteger(n) && n >= min;
  for (let i = 0; i < args.length; i++) {
    const raw = args[i]!;
    // `--name=value` is read as `--name value`.
    const eq = raw.startsWith('--') ? raw.indexOf('=') : -1;
    const a = eq > 0 ? raw.slice(0, eq) : raw;
    const inline = eq > 0 ? raw.slice(eq + 1) : undefined;
    const get = (name: string): string => {
      if (inline !== undefined) return inline;
      const v = args[++i];
      if (v === undefined || (v.startsWith('--') && v.length > 2)) throw new InvalidInputError(`${name} needs a value`, { field: name });
      return v;
    };
    const num = (name: string, ok: (n: number) => boolean, rule: string): number => check(name, get(name), ok, rule);
    switch (a) {
      case '--benchmark': case '-b': out.benchmarks.push(get(a)); break;
      case '--format': out.format = get(a); break;
      case '--mapping': out.mapping = get(a); break;
      case '--declared-task': out.declaredTask = get(a); break;
      case '--model': case '-m': out.models.push(get(a)); break;
      case '--protocol': out.protocol = get(a); break;
      case '--variants': case '--variant': out.variants = [...(out.variants ?? []), ...list(get(a))]; break;
      case '--samples': out.samples = num(a, whole(1), 'a whole number ≥ 1'); break;
      case '--temperature': out.temperature = num(a, (n) => n >= 0, 'a number ≥ 0'); break;
      case '--top-p': out.topP = num(a, (n) => n > 0 && n <= 1, 'a number in (0, 1]'); break;
      case '--seed': out.seed = num(a, (n) => Number.isInteger(n) && n >= 0 && n < 2 ** 32, 'a whole number from 0 to 4294967295'); break;
      case '--max-tokens': out.maxTokens = num(a, whole(1), 'a whole number ≥ 1'); break;
      case '--split': out.splits = [...(out.splits ?? []), ...list(get(a))]; break;
      case '--task': out.tasks = [...(out.tasks ?? []), ...list(get(a))]; break;
      case '--disease-group': out.diseaseGroups = [...(out.diseaseGroups ?? []), ...list(get(a))]; break;
      case '--modality': out.modalities = [...(out.modalities ?? []), ...list(get(a))]; break;
      case '--cases': out.cases = [...(out.cases ?? []), ...list(get(a))]; break;
      case '--limit': out.limit = num(a, whole(1), 'a whole number ≥ 1'); break;
      case '--few-shot': out.fewShot = true; break;
      case '--json-output': {
        const v = get(a);
        if (!isJsonOutputSetting(v)) throw new InvalidInputError(`--json-output must be one of ${JSON_OUTPUT_SETTINGS.join(', ')} (got "${v}")`, { field: a });
        out.jsonOutput = v;
        break;
      }
      case '--interleave': out.interleave = true; break;
      case '--device': out.device = get(a); break;
      case '--shard': out.shard = get(a); break;
      case '--out': case '-o': out.out = get(a); break;
      case '--name': out.name = get(a); break;
      case '--json': out.json = true; break;
      case '--max-errors': out.maxErrors = num(a, whole(1), 'a whole number ≥ 1'); break;
      case '--retry-errors': out.retryErrors = true; break;
      case '--endpoint': out.endpoint = get(a); break;
      case '--endpoint-model': out.endpointModels.push(get(a)); break;
      case '--api-key-env': out.apiKeyEnv = get(a); break;
      case '--concurrency': out.concurrency = num(a, (n) => Number.isInteger(n) && n >= 1 && n <= 256, 'a whole number from 1 to 256'); break;
      case '--timeout': out.timeout = num(a, (n) => n > 0, 'a number of seconds > 0'); break;
      case '--retries': out.retries = num(a, (n) => Number.isInteger(n) && n >= 0 && n <= 20, 'a whole number from 0 to 20'); break;
      default:
        if (a.startsWith('-')) throw new InvalidInputError(`unknown option ${a}`, { field: a });
        // A bare path is the benchmark, as in `neuroeval validate`.
        out.benchmarks.push(a);
    }
  }
  return out;
}
