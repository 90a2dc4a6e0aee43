/**
 * `load_jsonl(file_path, dataset=None)` of NeuroVLM-Bench's evaluator: the
 * file read as UTF-8 text with universal newlines (a line ends at \n, \r\n or
 * a lone \r), each line `strip()`ped, blank lines skipped, each read with
 * `json.loads`. A line `json.loads` rejects becomes the placeholder
 * `{"output": {"status": "parse_error"}}` (no model, so it counts nowhere but
 * in `total_items`), a UTF-8 byte order mark included: Python keeps it on the
 * first line and `json.loads` refuses it. With `dataset`, only records whose
 * `input.metadata.dataset` equals it are kept.
 */
import { pyJsonLoads } from '../../../python/json.ts';
import { PyDict, PyException, pyCompareStr, pyFileLines, pyStrip, type PyValue } from '../../../python/values.ts';
import { NeuroVlmBenchStop, type EvaluatorRecord } from './evaluate.ts';
import { pyGet } from './python.ts';

const placeholder = (): PyDict => new PyDict([['output', new PyDict([['status', 'parse_error']])]]);

/** The file's bytes as Python's strict UTF-8 decoder reads them (a BOM kept); the evaluator stops on bytes that are not UTF-8. */
export function decodeLikePython(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new NeuroVlmBenchStop('evaluator-fails', "UnicodeDecodeError: the file is not UTF-8 ('utf-8' codec can't decode it)");
  }
}

/** `load_jsonl(text, dataset)`; throws {@link NeuroVlmBenchStop} where the evaluator's reading stops. */
export function loadJsonl(text: string, dataset?: string): EvaluatorRecord[] {
  const out: EvaluatorRecord[] = [];
  pyFileLines(text).forEach((raw, i) => {
    const line = i + 1;
    const s = pyStrip(raw);
    if (!s) return;
    let item: PyValue;
    try {
      item = pyJsonLoads(s);
    } catch (error) {
      if (!(error instanceof PyException)) throw error;
      if (error.pyType !== 'JSONDecodeError') throw new NeuroVlmBenchStop('evaluator-fails', `line ${line}: ${error.message} (json.loads)`, line);
      item = placeholder();
    }
    if (dataset !== undefined) {
      try {
        const metadata = pyGet(pyGet(item, 'input', new PyDict()), 'metadata', new PyDict());
        if (pyGet(metadata, 'dataset') !== dataset) return;
      } catch (error) {
        if (error instanceof PyException) throw new NeuroVlmBenchStop('evaluator-fails', `line ${line}: ${error.message} (reading input.metadata.dataset)`, line);
        throw error;
      }
    }
    out.push({ value: item, line });
  });
  return out;
}

/** The text values of `input.metadata.dataset`, sorted by code point (the per-dataset breakdowns to compute). */
export function datasetsIn(records: readonly EvaluatorRecord[]): string[] {
  const names = new Set<string>();
  for (const { value } of records) {
    const input = value instanceof PyDict ? value.get('input') : undefined;
    const metadata = input instanceof PyDict ? input.get('metadata') : undefined;
    const d = metadata instanceof PyDict ? metadata.get('dataset') : undefined;
    if (typeof d === 'string') names.add(d);
  }
  return [...names].sort(pyCompareStr);
}
