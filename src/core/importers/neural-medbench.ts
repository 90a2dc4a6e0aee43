/**
 * Neural-MedBench (arXiv 2509.22258): `direct-diagnosis.json` and its
 * siblings, a JSON array of `{case_id, text, images: [data URIs], questions:
 * [{question_number, question_text}]}`. The public file has no answers; an
 * optional answer key (CSV/TSV or JSON, see answer-key.ts) is joined on
 * case_id (+ question_number). Image types come from the bytes, not from the
 * data-URI label (the public file labels PNG data image/jpeg).
 *
 * A multi-round file (named so, or imported with the `split` option
 * `multi-round`) holds dialogues: each case's questions are the rounds of
 * one consultation, in question_number order. The first becomes the opening
 * question and the others its follow-up turns, revealed one by one after
 * the model's answer; a round's own `images` (data URIs) are shown with that
 * round. The answer key then carries an answer per turn (answer-key.ts).
 */
import { count } from '../text/plural.ts';
import type { ErrorLocation } from '../errors.ts';
import { TASK_FAMILIES, type BenchCase, type CaseImage, type Question, type TaskFamily } from '../bundle/types.ts';
import { joinAnswerKey, parseAnswerKeyJson, parseAnswerKeyTable, type KeyRow } from './answer-key.ts';
import { dataUriImage, normaliseMime } from './image-data.ts';
import { baseName, extensionOf, type ImportContext, type Importer, type InputFile } from '../bundle/importer.ts';
import { KeyLines, parseJsonWithLocation } from './json-source.ts';
import {
  CaseIds,
  Issues,
  Ticker,
  draftManifest,
  guessCjkLang,
  headText,
  newParts,
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

/** Whether a file of this split holds dialogues (rounds of one consultation per case). */
function isDialogueSplit(split: string | undefined): boolean {
  return split === 'multi-round';
}

/** A question file (vs an answer key): its entries carry questions, images or text. */
function isQuestionFile(data: unknown): data is unknown[] {
  return Array.isArray(data) && data.some((e) => isObject(e) && ('questions' in e || 'images' in e || 'text' in e));
}

interface FileState {
  readonly file: string;
  readonly split: string | undefined;
  readonly taskFamily: TaskFamily;
  /** The file holds dialogues: a case's questions are its rounds. */
  readonly dialogue: boolean;
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
      const split = stringOption(ctx, 'split') ?? guessNmbSplit(q.file.path);
      const dialogue = isDialogueSplit(split);
      const state: FileState = {
        file: q.file.path,
        split,
        // A dialogue runs as a multi-turn case unless the user chose a family.
        taskFamily: dialogue && !familyOption ? 'multi-turn' : taskFamily,
        dialogue,
        lines: new KeyLines(q.text, 'case_id'),
        mislabelled: new Map(),
      };
      for (let i = 0; i < q.data.length; i++) {
        await ticker.step();
        const c = readEntry(q.data[i], i, state, issues, parts, ids, skippedIds);
        if (c) parts.cases.push(c);
      }
      for (const [labels, n] of state.mislabelled) {
        issues.warn(`${count(n, 'image')} labelled ${labels}; stored with the type their bytes show.`, { file: state.file, field: 'images' });
      }
    }
    ticker.finish();

    // The preview says whether a key was given and what it matched: without one the cases import the same but cannot be scored.
    const joined = keyRows.length ? joinAnswerKey(parts.cases, keyRows, issues, { skippedIds, keyFiles }) : null;
    const cases = joined?.cases ?? parts.cases;
    const fileSplits = questionFiles.map((q) => stringOption(ctx, 'split') ?? guessNmbSplit(q.file.path));
    const splits = [...new Set(fileSplits)].filter((x): x is string => x !== undefined);
    const first = questionFiles[0]?.file.path ?? 'neural-medbench';
    const dialogues = fileSplits.filter(isDialogueSplit).length;
    // Dialogues run with the multi-round protocol; a mix of files, or a task family the user chose, lets each case's family choose.
    const protocol = familyOption ? undefined : dialogues === 0 ? 'nmb-differential' : dialogues === fileSplits.length ? 'nmb-multi-round' : undefined;
    const draft = toDraft(manifestFor(ctx, splits, first, [...questionFiles.map((q) => q.file.path), ...keyFiles], protocol), { ...parts, cases }, issues);
    return { ...draft, answerKey: joined?.match ?? null };
  },
};

function manifestFor(ctx: ImportContext, splits: string[], first: string, files: string[], protocol: string | undefined) {
  const suffix = splits.length === 1 ? splits[0]! : stem(first);
  return draftManifest(ctx, {
    id: `neural-medbench-${suffix}`,
    name: `Neural-MedBench${splits.length ? ` (${splits.join(', ')})` : ''}`,
    version: '1',
    license: 'unknown',
    description: 'Neurology cases with clinical notes and MRI; differential diagnosis, lesion recognition, rationale and multi-round dialogue.',
    source: { kind: 'neural-medbench', files, citation: 'arXiv:2509.22258', url: 'https://neuromedbench.github.io/' },
    ...(protocol ? { protocolDefaults: { protocol } } : {}),
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

  const read = readQuestions(entry.questions, id, loc, issues, s.dialogue);
  const images: CaseImage[] = [];
  const addImage = (uri: unknown, what: string, field: string): number | undefined => {
    const image = readImage(uri, { id, what, field: loc(field) }, s, issues, parts, images.length + 1);
    if (image) images.push(image);
    return image ? images.length - 1 : undefined;
  };
  rawImages.forEach((uri, k) => addImage(uri, `image ${k + 1}`, `.images[${k}]`));
  const questions = s.dialogue ? toDialogue(read, id, loc, issues, addImage) : read.map((r) => r.question);
  return {
    id,
    ...(s.split ? { split: s.split } : {}),
    taskFamily: s.taskFamily,
    images,
    ...(notes.trim() ? { notes } : {}),
    questions,
  };
}

/** One data-URI image → a stored image (type sniffed from the bytes), or an error naming where it is. */
function readImage(
  uri: unknown,
  at: { readonly id: string; readonly what: string; readonly field: ErrorLocation },
  s: FileState,
  issues: Issues,
  parts: DraftParts,
  n: number,
): CaseImage | undefined {
  if (typeof uri !== 'string') {
    issues.error(`Case "${at.id}": ${at.what} is not a data-URI string.`, at.field);
    return undefined;
  }
  const image = dataUriImage(uri);
  if ('error' in image) {
    issues.error(`Case "${at.id}": ${at.what} ${image.error}.`, at.field);
    return undefined;
  }
  const { bytes, kind } = image;
  const declared = normaliseMime(image.declared);
  if (declared.startsWith('image/') && declared !== kind.mime) {
    const key = `${declared} but containing ${kind.type.toUpperCase()} data`;
    s.mislabelled.set(key, (s.mislabelled.get(key) ?? 0) + 1);
  }
  const path = `images/${safeSegment(at.id)}-${n}.${kind.ext}`;
  parts.images.set(path, bytes);
  return { path, mime: kind.mime };
}

/** A question as read, with the round's own images (dialogue files) and where it was. */
interface ReadQuestion {
  readonly question: Question;
  readonly images: readonly unknown[];
  readonly field: string;
}

/**
 * A case's rounds → one dialogue: the first round (lowest question_number)
 * is the opening question, the others its follow-ups in order, each showing
 * its own images when it is revealed.
 */
function toDialogue(
  rounds: readonly ReadQuestion[],
  id: string,
  loc: (field: string) => ErrorLocation,
  issues: Issues,
  addImage: (uri: unknown, what: string, field: string) => number | undefined,
): Question[] {
  if (rounds.length === 0) return [];
  const numeric = rounds.every((r) => /^\d+$/.test(r.question.id));
  const ordered = numeric ? [...rounds].sort((a, b) => Number(a.question.id) - Number(b.question.id)) : rounds;
  const roundImages = (r: ReadQuestion): number[] =>
    r.images.flatMap((uri, k) => addImage(uri, `question ${r.question.id} image ${k + 1}`, `${r.field}.images[${k}]`) ?? []);
  const [opening, ...rest] = ordered;
  // The opening round's images are simply part of what the first turn shows.
  roundImages(opening!);
  const followUps = rest.map((r) => {
    const images = roundImages(r);
    return { id: r.question.id, text: r.question.text, ...(images.length ? { images } : {}) };
  });
  if (!numeric && rounds.length > 1) issues.warn(`Case "${id}": question numbers are not all numbers; the rounds keep the file's order.`, loc('.questions'));
  return [{ ...opening!.question, ...(followUps.length ? { followUps } : {}) }];
}

function readQuestions(raw: unknown[], id: string, loc: (field: string) => ErrorLocation, issues: Issues, dialogue: boolean): ReadQuestion[] {
  const out: ReadQuestion[] = [];
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
    let images: unknown[] = [];
    if (dialogue && Array.isArray(q.images)) images = q.images;
    else if (dialogue && q.images !== undefined && q.images !== null) issues.error(`Case "${id}": question ${qid}'s "images" must be a list of data URIs.`, loc(`${field}.images`));
    out.push({ question: { id: qid, text, ...(lang ? { lang } : {}) }, images, field });
  });
  if (out.length === 0 && raw.length === 0) issues.error(`Case "${id}" has no questions.`, loc('.questions'));
  return out;
}
