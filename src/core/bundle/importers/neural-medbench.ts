/**
 * Neural-MedBench (arXiv 2509.22258): `direct-diagnosis.json` and its
 * siblings, a JSON array of `{case_id, text, images: [data URIs], questions:
 * [{question_number, question_text}]}`. The public file has no answers; an
 * optional answer key (CSV/TSV or JSON, see answer-key.ts) is joined on
 * case_id (+ question_number). Image types come from the bytes, not from the
 * data-URI label (the public file labels PNG data image/jpeg).
 */
import type { ErrorLocation } from '../../errors.ts';
import { TASK_FAMILIES, type BenchCase, type CaseImage, type Question, type TaskFamily } from '../types.ts';
import { applyAnswerKey, parseAnswerKeyJson, parseAnswerKeyTable, type KeyRow } from './answer-key.ts';
import { dataUriImage, normaliseMime } from './image-data.ts';
import { baseName, extensionOf, type ImportContext, type Importer, type InputFile } from './importer.ts';
import { KeyLines, parseJsonWithLocation } from './json-source.ts';
import {
  CaseIds,
  Issues,
  Ticker,
  draftManifest,
  guessCjkLang,
  headText,
  newParts,
  plural,
  safeSegment,
  stem,
  stringOption,
  toDraft,
  type DraftParts,
} from './support.ts';

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The level a file holds, from its name: direct-diagnosis.json → direct. */
export function guessNmbSplit(path: string): string | undefined {
  const name = baseName(path).toLowerCase();
  if (name.includes('direct')) return 'direct';
  if (name.includes('complex')) return 'complex';
  if (/multi[-_ ]?round|dialog/.test(name)) return 'multi-round';
  return undefined;
}

/** A question file (vs an answer key): its entries carry questions, images or text. */
function isQuestionFile(data: unknown): data is unknown[] {
  return Array.isArray(data) && data.some((e) => isObject(e) && ('questions' in e || 'images' in e || 'text' in e));
}

interface FileState {
  readonly file: string;
  readonly split: string | undefined;
  readonly taskFamily: TaskFamily;
  readonly lines: KeyLines;
  readonly mislabelled: Map<string, number>;
}

export const neuralMedBenchImporter: Importer = {
  kind: 'neural-medbench',
  label: 'Neural-MedBench (JSON with data-URI images)',

  async detect(files) {
    for (const f of files) {
      if (extensionOf(f.path) !== 'json') continue;
      const head = await headText(f);
      if (/^\s*\[/.test(head) && head.includes('"case_id"')) return 0.95;
    }
    return 0;
  },

  async read(files, ctx) {
    const issues = new Issues();
    const parts = newParts();
    const questionFiles: { file: InputFile; text: string; data: unknown[] }[] = [];
    const keyRows: KeyRow[] = [];
    const keyFiles: string[] = [];
    for (const f of files) {
      const ext = extensionOf(f.path);
      if (ext === 'json') {
        const text = await f.text();
        const data = parseJsonWithLocation(text, f.path);
        if (isQuestionFile(data)) questionFiles.push({ file: f, text, data });
        else if (Array.isArray(data) && text.includes('"case_id"')) {
          keyFiles.push(f.path);
          keyRows.push(...parseAnswerKeyJson(data, text, f.path, issues));
        }
      } else if (ext === 'csv' || ext === 'tsv') {
        const text = await f.text();
        if (!/^\uFEFF?[^\r\n]*\bcase_id\b/.test(text)) continue;
        keyFiles.push(f.path);
        keyRows.push(...parseAnswerKeyTable(text, ext === 'tsv' ? '\t' : ',', f.path, issues));
      }
    }
    if (questionFiles.length === 0) {
      issues.error('No Neural-MedBench question file found: expected a JSON array of {case_id, text, images, questions}.', { file: files[0]?.path ?? '' });
    }

    const ids = new CaseIds(issues);
    const skippedIds = new Set<string>();
    const ticker = new Ticker(ctx, questionFiles.reduce((n, q) => n + q.data.length, 0));
    const familyOption = stringOption(ctx, 'taskFamily');
    const taskFamily = TASK_FAMILIES.includes(familyOption as TaskFamily) ? (familyOption as TaskFamily) : 'differential-diagnosis';
    if (familyOption && familyOption !== taskFamily) issues.warn(`Unknown task family "${familyOption}"; using ${taskFamily}.`, { field: 'taskFamily' });

    for (const q of questionFiles) {
      const state: FileState = {
        file: q.file.path,
        split: stringOption(ctx, 'split') ?? guessNmbSplit(q.file.path),
        taskFamily,
        lines: new KeyLines(q.text, 'case_id'),
        mislabelled: new Map(),
      };
      for (let i = 0; i < q.data.length; i++) {
        await ticker.step();
        const c = readEntry(q.data[i], i, state, issues, parts, ids, skippedIds);
        if (c) parts.cases.push(c);
      }
      for (const [labels, n] of state.mislabelled) {
        issues.warn(`${plural(n, 'image')} labelled ${labels}; stored with the type their bytes show.`, { file: state.file, field: 'images' });
      }
    }
    ticker.finish();

    const cases = keyRows.length ? applyAnswerKey(parts.cases, keyRows, issues, { skippedIds, keyFiles }) : parts.cases;
    const splits = [...new Set(questionFiles.map((q) => stringOption(ctx, 'split') ?? guessNmbSplit(q.file.path)))].filter((x): x is string => x !== undefined);
    const first = questionFiles[0]?.file.path ?? 'neural-medbench';
    return toDraft(manifestFor(ctx, splits, first, [...questionFiles.map((q) => q.file.path), ...keyFiles]), { ...parts, cases }, issues);
  },
};

function manifestFor(ctx: ImportContext, splits: string[], first: string, files: string[]) {
  const suffix = splits.length === 1 ? splits[0]! : stem(first);
  return draftManifest(ctx, {
    id: `neural-medbench-${suffix}`,
    name: `Neural-MedBench${splits.length ? ` (${splits.join(', ')})` : ''}`,
    version: '1',
    license: 'unknown',
    description: 'Neurology cases with clinical notes and MRI; differential diagnosis, lesion recognition and rationale.',
    source: { kind: 'neural-medbench', files, citation: 'arXiv:2509.22258', url: 'https://neuromedbench.github.io/' },
    protocolDefaults: { protocol: 'nmb-differential' },
  });
}

/** One array entry → a case (or a skipped placeholder, or nothing with errors). */
function readEntry(entry: unknown, i: number, s: FileState, issues: Issues, parts: DraftParts, ids: CaseIds, skippedIds: Set<string>): BenchCase | undefined {
  const at = (field: string, line?: number): ErrorLocation => ({ file: s.file, ...(line === undefined ? {} : { line }), field });
  if (!isObject(entry)) {
    issues.error(`Entry ${i} is not an object.`, at(`[${i}]`));
    return undefined;
  }
  const rawId = entry.case_id;
  if ((typeof rawId !== 'string' && typeof rawId !== 'number') || String(rawId).trim() === '') {
    issues.error(`Entry ${i} has no case_id.`, at(`[${i}].case_id`));
    return undefined;
  }
  const id = String(rawId).trim();
  const line = s.lines.take(id);
  const loc = (field: string) => at(`[${i}]${field}`, line);

  let notes = '';
  if (typeof entry.text === 'string') notes = entry.text;
  else if (entry.text !== undefined && entry.text !== null) issues.error(`Case "${id}": "text" must be a string.`, loc('.text'));
  let rawImages: unknown[] = [];
  if (Array.isArray(entry.images)) rawImages = entry.images;
  else if (entry.images !== undefined && entry.images !== null) issues.error(`Case "${id}": "images" must be a list of data URIs.`, loc('.images'));
  if (!Array.isArray(entry.questions)) {
    issues.error(`Case "${id}": "questions" must be a list of {question_number, question_text}.`, loc('.questions'));
    return undefined;
  }
  if (!ids.claim(id, loc('.case_id'))) return undefined;
  if (notes.trim() === '' && rawImages.length === 0) {
    parts.skipped.push({ id, reason: 'placeholder entry: empty text and no images', location: loc('') });
    skippedIds.add(id);
    return undefined;
  }

  const questions = readQuestions(entry.questions, id, loc, issues);
  const images: CaseImage[] = [];
  rawImages.forEach((uri, k) => {
    const field = `.images[${k}]`;
    if (typeof uri !== 'string') {
      issues.error(`Case "${id}": image ${k + 1} is not a data-URI string.`, loc(field));
      return;
    }
    const image = dataUriImage(uri);
    if ('error' in image) {
      issues.error(`Case "${id}": image ${k + 1} ${image.error}.`, loc(field));
      return;
    }
    const { bytes, kind } = image;
    const declared = normaliseMime(image.declared);
    if (declared.startsWith('image/') && declared !== kind.mime) {
      const key = `${declared} but containing ${kind.type.toUpperCase()} data`;
      s.mislabelled.set(key, (s.mislabelled.get(key) ?? 0) + 1);
    }
    const path = `images/${safeSegment(id)}-${k + 1}.${kind.ext}`;
    parts.images.set(path, bytes);
    images.push({ path, mime: kind.mime });
  });
  return {
    id,
    ...(s.split ? { split: s.split } : {}),
    taskFamily: s.taskFamily,
    images,
    ...(notes.trim() ? { notes } : {}),
    questions,
  };
}

function readQuestions(raw: unknown[], id: string, loc: (field: string) => ErrorLocation, issues: Issues): Question[] {
  const out: Question[] = [];
  const seen = new Set<string>();
  raw.forEach((q, j) => {
    const field = `.questions[${j}]`;
    if (!isObject(q)) {
      issues.error(`Case "${id}": question ${j + 1} is not an object.`, loc(field));
      return;
    }
    const text = q.question_text;
    if (typeof text !== 'string' || text.trim() === '') {
      issues.error(`Case "${id}": question ${j + 1} has no question_text.`, loc(`${field}.question_text`));
      return;
    }
    let qid: string;
    if (typeof q.question_number === 'number' || (typeof q.question_number === 'string' && q.question_number.trim() !== '')) {
      qid = String(q.question_number).trim();
    } else {
      qid = String(j + 1);
      issues.warn(`Case "${id}": question ${j + 1} has no question_number; numbered ${qid} by position.`, loc(`${field}.question_number`));
    }
    if (seen.has(qid)) {
      issues.error(`Case "${id}" has two questions numbered ${qid}.`, loc(`${field}.question_number`));
      return;
    }
    seen.add(qid);
    const lang = guessCjkLang(text);
    out.push({ id: qid, text, ...(lang ? { lang } : {}) });
  });
  if (out.length === 0 && raw.length === 0) issues.error(`Case "${id}" has no questions.`, loc('.questions'));
  return out;
}
