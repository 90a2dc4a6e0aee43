/**
 * One entry for every foreign result file: tells the harness from the file
 * (name and content, never the name alone for JSON), reads it, and joins a
 * companion file (lm-eval's or lmms-eval's results JSON, Every Eval Ever's
 * aggregate record) for the model's settings.
 */
import { InvalidInputError } from '../../errors.ts';
import { sha256Hex } from '../../hash/sha256.ts';
import { parseJsonText } from '../../scoring/io/json-text.ts';
import { decodeUnicode } from '../../text/decode.ts';
import { isObj, type ForeignLog } from '../types.ts';
import { isEeeInstance, readEeeAggregate, readEeeInstances, type EeeAggregate } from './every-eval-ever.ts';
import { isInspectLog, readInspectLog } from './inspect.ts';
import { isLmEvalSample, readLmEvalResults, readLmEvalSamples, taskOfSamplesFile, type LmEvalResults } from './lm-eval.ts';
import { readVlmEvalKit } from './vlmevalkit.ts';

export interface ForeignFile {
  readonly name: string;
  readonly bytes: Uint8Array;
}

export interface ReadOptions {
  /** The model's name, where the file does not say it (a VLMEvalKit file name, a samples file without its results JSON). */
  readonly model?: string;
}

/** Which kinds of files the readers take, for file pickers and messages. */
export const FOREIGN_EXTENSIONS = ['.xlsx', '.tsv', '.json', '.jsonl', '.eval'] as const;

const KNOWN = 'a VLMEvalKit prediction file (.xlsx, .tsv, .json), an lm-evaluation-harness or lmms-eval samples log (.jsonl), an Inspect AI log (.eval, .json) or Every Eval Ever instance records (_samples.jsonl)';

const ext = (name: string) => name.toLowerCase().match(/\.[a-z0-9]+$/)?.[0] ?? '';
const isZip = (b: Uint8Array) => b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;

function firstJsonLine(text: string, file: string): unknown {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const i = lines.findIndex((l) => l.trim() !== '');
  return i < 0 ? undefined : parseJsonText(lines[i]!, file, i + 1);
}

type Kind = 'vlmevalkit' | 'inspect' | 'lm-eval-samples' | 'lm-eval-results' | 'eee-instances' | 'eee-aggregate' | 'neuroeval' | null;

/** What a file is, from its name and content. */
function kindOf(f: ForeignFile): Kind {
  const e = ext(f.name);
  if (e === '.eval') return 'inspect';
  if (e === '.xlsx' || e === '.tsv') return 'vlmevalkit';
  if (isZip(f.bytes)) return null;
  if (e === '.jsonl' || e === '.ndjson') {
    const first = firstJsonLine(decodeUnicode(f.bytes, f.name), f.name);
    if (isLmEvalSample(first)) return 'lm-eval-samples';
    if (isEeeInstance(first)) return 'eee-instances';
    return null;
  }
  if (e === '.json') {
    const v = parseJsonText(decodeUnicode(f.bytes, f.name), f.name);
    if (isObj(v) && v.format === 'neuroeval-run') return 'neuroeval';
    if (isInspectLog(v)) return 'inspect';
    if (Array.isArray(v) && isObj(v[0]) && 'index' in v[0] && 'prediction' in v[0]) return 'vlmevalkit';
    if (isObj(v) && isObj(v.results) && isObj(v.config)) return 'lm-eval-results';
    if (isObj(v) && Array.isArray(v.evaluation_results) && isObj(v.model_info)) return 'eee-aggregate';
  }
  return null;
}

/**
 * Reads the answers of a foreign result file, with its companion when given.
 * @throws InvalidInputError naming the file when it is none of the known
 *   kinds, and the file, line and field of anything wrong inside it.
 */
export function readForeign(files: readonly ForeignFile[], options: ReadOptions = {}): ForeignLog {
  if (files.length === 0) throw new InvalidInputError(`Choose ${KNOWN}.`);
  const kinds = files.map((f) => ({ f, kind: kindOf(f) }));
  const main = kinds.filter((k) => k.kind === 'vlmevalkit' || k.kind === 'inspect' || k.kind === 'lm-eval-samples' || k.kind === 'eee-instances');
  const unknown = kinds.find((k) => k.kind === null || k.kind === 'neuroeval');
  if (unknown) {
    throw new InvalidInputError(
      unknown.kind === 'neuroeval'
        ? `${unknown.f.name}: this is a NeuroEval run export; import it as a run export, not as another harness's answers.`
        : `${unknown.f.name}: not a result file NeuroEval reads as answers; expected ${KNOWN}.`,
      { file: unknown.f.name },
    );
  }
  if (main.length !== 1) {
    throw new InvalidInputError(main.length === 0 ? `${files.map((f) => f.name).join(', ')}: no answers among these files; expected ${KNOWN}.` : `Choose one file of answers at a time (got ${main.map((m) => m.f.name).join(', ')}).`);
  }
  const { f, kind } = main[0]!;
  const sha256 = sha256Hex(f.bytes);
  const companion = kinds.find((k) => k !== main[0]);
  if (kind === 'vlmevalkit' || kind === 'inspect') {
    if (companion) throw new InvalidInputError(`${companion.f.name}: a ${kind === 'inspect' ? 'Inspect AI log' : 'VLMEvalKit prediction file'} is read alone; leave this file out.`, { file: companion.f.name });
    return kind === 'inspect' ? readInspectLog(f.bytes, f.name, sha256) : readVlmEvalKit(f.bytes, f.name, sha256, options.model ? { model: options.model } : {});
  }
  if (kind === 'lm-eval-samples') {
    if (companion && companion.kind !== 'lm-eval-results') throw new InvalidInputError(`${companion.f.name}: beside a samples log, give only its results JSON.`, { file: companion.f.name });
    const results: LmEvalResults | undefined = companion ? readLmEvalResults(companion.f.bytes, companion.f.name, taskOfSamplesFile(f.name)) : undefined;
    return readLmEvalSamples(f.bytes, f.name, sha256, { ...(results ? { results } : {}), ...(options.model ? { model: options.model } : {}) });
  }
  if (companion && companion.kind !== 'eee-aggregate') throw new InvalidInputError(`${companion.f.name}: beside instance records, give only their aggregate record.`, { file: companion.f.name });
  const aggregate: EeeAggregate | undefined = companion ? readEeeAggregate(companion.f.bytes, companion.f.name) : undefined;
  return readEeeInstances(f.bytes, f.name, sha256, aggregate ? { aggregate } : {});
}

/**
 * A JSON Lines file is another harness's only when its first record is an
 * lm-eval/lmms-eval sample or an Every Eval Ever instance record. Anything
 * else (a NeuroVLM-Bench line, a broken first line) goes to the NeuroVLM-Bench
 * reader, which reads what it can and names the lines it could not, as the
 * benchmark's evaluator does. A first line longer than the head is judged by
 * its keys (a NeuroVLM-Bench line has `experiment_id`).
 */
function isForeignJsonlHead(head: string): boolean {
  const lines = head.replace(/^\uFEFF/, '').split(/\r?\n/);
  const i = lines.findIndex((l) => l.trim() !== '');
  if (i < 0) return false;
  if (i === lines.length - 1 && head.length >= 65_536) return !/"experiment_id"\s*:/.test(head) && (/"doc_id"\s*:/.test(head) || (/"sample_id"\s*:/.test(head) && /"interaction_type"\s*:/.test(head)));
  let first: unknown;
  try {
    first = JSON.parse(lines[i]!);
  } catch {
    return false;
  }
  return isLmEvalSample(first) || isEeeInstance(first);
}

/** True when a file picked for a run import is another harness's result file (not a run export or a NeuroVLM-Bench JSONL). */
export function isForeignFileName(name: string, head: string): boolean {
  const e = ext(name);
  if (e === '.xlsx' || e === '.tsv' || e === '.eval') return true;
  if (e === '.jsonl' || e === '.ndjson') return isForeignJsonlHead(head.slice(0, 65_536));
  if (e === '.json') return !/"format"\s*:\s*"neuroeval-run"/.test(head.slice(0, 4096));
  return false;
}
