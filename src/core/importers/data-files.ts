/**
 * Which data files among the inputs hold questions, and which split each
 * belongs to, as Hugging Face lays datasets out: `data/test-00000-of-00002.parquet`
 * (a split in shards), `test.jsonl`, `validation/….parquet`, or a config
 * folder above them (`en/test-….parquet`). The user picks a split at import
 * (`options.split`) and every shard of it is read; without a pick, inputs
 * holding several splits are refused with the list, so a training split is
 * never scored by mistake.
 */
import { DATA_EXTENSIONS } from './table-source.ts';
import { baseName, extensionOf, type InputFile } from '../bundle/importer.ts';

const SPLIT_WORDS = ['train', 'training', 'validation', 'valid', 'val', 'dev', 'test', 'testmini', 'test_mini', 'eval', 'evaluation'];
const SHARD = /-\d{5}-of-\d{5}$/;

export interface DataFile {
  readonly file: InputFile;
  /** The split the file's name or folder says, or null when it says none. */
  readonly split: string | null;
}

function stemOf(path: string): string {
  const name = baseName(path);
  const ext = extensionOf(path);
  return ext ? name.slice(0, name.length - ext.length - 1) : name;
}

/** The split a data file's name or folder names (`test-00000-of-00001.parquet` → `test`). */
export function splitOf(path: string): string | null {
  const stem = stemOf(path).replace(SHARD, '').toLowerCase();
  const word = SPLIT_WORDS.find((w) => stem === w || stem.startsWith(`${w}-`) || stem.startsWith(`${w}_`) || stem.endsWith(`-${w}`) || stem.endsWith(`_${w}`));
  if (word) return word;
  const folders = path.split('/').slice(0, -1).map((s) => s.toLowerCase());
  return folders.reverse().find((f) => SPLIT_WORDS.includes(f)) ?? null;
}

/** Whether a file is a table the generic importer reads (answer keys and bundle manifests are not). */
function isData(f: InputFile): boolean {
  const name = baseName(f.path).toLowerCase();
  return DATA_EXTENSIONS.has(extensionOf(f.path)) && name !== 'manifest.json' && name !== 'dataset_infos.json' && name !== 'dataset_info.json' && !name.startsWith('.');
}

/** Every data file with its split, in input order. */
export function dataFiles(files: readonly InputFile[]): DataFile[] {
  return files.filter(isData).map((file) => ({ file, split: splitOf(file.path) }));
}

/** The splits the data files name, in first-seen order, with their files. */
export function splitsOf(files: readonly InputFile[]): { split: string; files: string[] }[] {
  const out = new Map<string, string[]>();
  for (const d of dataFiles(files)) {
    if (!d.split) continue;
    const list = out.get(d.split) ?? [];
    list.push(d.file.path);
    out.set(d.split, list);
  }
  return [...out].map(([split, paths]) => ({ split, files: paths }));
}

export type DataChoice = { readonly files: InputFile[]; readonly split?: string } | { readonly error: string };

/**
 * The files to read: `file` names one; `split` takes every shard of a split;
 * else the single split present, else the first data file (inputs without
 * split names, as before splits were read).
 */
export function chooseDataFiles(files: readonly InputFile[], wanted: { file?: string; split?: string }): DataChoice {
  const all = dataFiles(files);
  if (wanted.file) {
    const f = files.find((x) => x.path === wanted.file);
    return f ? { files: [f], ...(splitOf(f.path) ? { split: splitOf(f.path)! } : {}) } : { error: `There is no file "${wanted.file}" among the inputs.` };
  }
  const splits = splitsOf(files);
  if (wanted.split) {
    const s = splits.find((x) => x.split === wanted.split!.toLowerCase());
    if (!s) return { error: `No data file belongs to split "${wanted.split}"${splits.length ? ` (found: ${splits.map((x) => x.split).join(', ')})` : ''}.` };
    return { files: all.filter((d) => d.split === s.split).map((d) => d.file), split: s.split };
  }
  if (splits.length > 1) {
    return { error: `These files hold several splits (${splits.map((s) => `${s.split}: ${s.files.length} file${s.files.length === 1 ? '' : 's'}`).join('; ')}). Choose the split to import.` };
  }
  if (splits.length === 1) return { files: all.filter((d) => d.split === splits[0]!.split).map((d) => d.file), split: splits[0]!.split };
  // A plain JSON file is more often a side file (a candidate list, a config) than the table: tables first.
  const first = all.find((d) => extensionOf(d.file.path) !== 'json') ?? all[0];
  return first ? { files: [first.file] } : { error: 'No CSV, TSV, JSONL, JSON or Parquet file to read.' };
}
