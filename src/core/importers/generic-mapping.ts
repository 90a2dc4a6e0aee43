/**
 * The column mapping of the generic CSV/JSONL importer: which column holds the
 * case id, the question, image paths, answers… The UI fills it from
 * {@link suggestMapping} and lets the user correct it; it arrives as
 * `ctx.options.mapping`.
 */
import { BOX_FRAMES, TASK_FAMILIES, type BoxFrame, type TaskFamily } from '../bundle/types.ts';

/**
 * The case id "column" for files with none (VQA-RAD, PMC-VQA): the row's line
 * (or entry) number, prefixed with the file's name when several files are read.
 */
export const ROW_NUMBER = '(row number)';

export interface GenericMapping {
  /** The case id column, or {@link ROW_NUMBER}. */
  readonly id: string;
  readonly question: string;
  /** Column(s) holding image paths (relative to the picked folder) or data URIs; kept in order. */
  readonly image?: string | readonly string[];
  /** Correct option key (multiple choice) or short answer. */
  readonly answer?: string;
  /**
   * The class classification scoring compares with (NeuroVLM-Bench's
   * `diagnosis_name`): stored as the question's `labels.diagnosis_name`, and
   * without options the cases default to the classification task family.
   */
  readonly classLabel?: string;
  /** Option columns: their names are the keys (`A`, `B`…); one column holding a list gets keys A, B, C… */
  readonly options?: readonly string[];
  readonly split?: string;
  /** Column holding a task family per row. */
  readonly taskFamily?: string;
  /** Task family when no column says (default: multiple-choice with options, else open-question). */
  readonly defaultTaskFamily?: TaskFamily;
  readonly diseaseGroup?: string;
  /** The benchmark's own sub-task or question type per row (MedSG-Bench's `task`, OmniMedVQA's `question_type`). */
  readonly subtask?: string;
  readonly modality?: string;
  readonly notes?: string;
  readonly diagnosis?: string;
  /** Column of equivalent diagnosis names, `|` or `;` separated (or a list in JSONL). */
  readonly aliases?: string;
  /** A short free-text answer (VQA-RAD, SLAKE): scored by normalised exact match and token recall. */
  readonly shortAnswer?: string;
  /** Whether each short answer is open or closed (VQA-RAD's and SLAKE's `answer_type`: OPEN / CLOSED). */
  readonly answerType?: string;
  /** A number, date or duration answer (MedCalc-Bench's `Ground Truth Answer`). */
  readonly numericAnswer?: string;
  /** Inclusive limits of a decimal answer (MedCalc-Bench's `Lower Limit`, `Upper Limit`). */
  readonly numericLower?: string;
  readonly numericUpper?: string;
  /** MedCalc-Bench's `Calculator ID`: decides how the answer is compared. */
  readonly calculatorId?: string;
  /** Rubric items, a list of `{criterion, points, tags}` (HealthBench's `rubrics`). */
  readonly rubric?: string;
  /** Reference box(es) `x1, y1, x2, y2` (MedSG-Bench's `answer_xyxy`): a list of four numbers, a list of them, objects with x1…y2, or text holding them. */
  readonly boxes?: string;
  /** The frame the reference boxes are given in (default: pixels of the image). */
  readonly boxFrame?: BoxFrame;
  /** Which of the row's images a reference box lies on when the cell does not say (default: the first). */
  readonly boxImage?: BoxImage;
}

/** The image a reference box lies on: the row's first, or its last (the target of a sequence: MedSG-Bench). */
export const BOX_IMAGES = ['first', 'last'] as const;
export type BoxImage = (typeof BOX_IMAGES)[number];

/** Single-column fields other than id and question. */
const OPTIONAL_COLUMNS = [
  'answer', 'classLabel', 'split', 'taskFamily', 'diseaseGroup', 'subtask', 'modality', 'notes', 'diagnosis', 'aliases',
  'shortAnswer', 'answerType', 'numericAnswer', 'numericLower', 'numericUpper', 'calculatorId', 'rubric', 'boxes',
] as const;

function col(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

function cols(v: unknown): string[] {
  if (typeof v === 'string') return col(v) ? [v.trim()] : [];
  return Array.isArray(v) ? v.map(col).filter((c): c is string => c !== undefined) : [];
}

/** Reads a mapping from loosely typed options (the UI leaves unset fields as undefined, '' or []). */
export function parseMapping(raw: unknown): { mapping?: GenericMapping; error?: string } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return {};
  const r = raw as Record<string, unknown>;
  const id = col(r.id);
  const question = col(r.question);
  if (!id || !question) return {};
  const out: Record<string, unknown> = { id, question };
  const image = cols(r.image);
  if (image.length) out.image = image;
  const options = cols(r.options);
  if (options.length) out.options = options;
  for (const k of OPTIONAL_COLUMNS) {
    const c = col(r[k]);
    if (c) out[k] = c;
  }
  const frame = col(r.boxFrame);
  if (frame) {
    if (!BOX_FRAMES.includes(frame as BoxFrame)) return { error: `"${frame}" is not a box frame (${BOX_FRAMES.join(', ')}).` };
    out.boxFrame = frame;
  }
  const boxImage = col(r.boxImage);
  if (boxImage) {
    if (!BOX_IMAGES.includes(boxImage as BoxImage)) return { error: `"${boxImage}" is not a box image (${BOX_IMAGES.join(', ')}).` };
    out.boxImage = boxImage;
  }
  const family = col(r.defaultTaskFamily);
  if (family) {
    if (!TASK_FAMILIES.includes(family as TaskFamily)) return { error: `"${family}" is not a task family (${TASK_FAMILIES.join(', ')}).` };
    out.defaultTaskFamily = family;
  }
  return { mapping: out as unknown as GenericMapping };
}

/** Every column the mapping names, with the field it fills. */
export function mappedColumns(m: GenericMapping): { field: string; column: string }[] {
  const out = [
    ...(m.id === ROW_NUMBER ? [] : [{ field: 'id', column: m.id }]),
    { field: 'question', column: m.question },
  ];
  for (const c of typeof m.image === 'string' ? [m.image] : (m.image ?? [])) out.push({ field: 'image', column: c });
  for (const c of m.options ?? []) out.push({ field: 'options', column: c });
  for (const k of OPTIONAL_COLUMNS) {
    const c = m[k];
    if (c) out.push({ field: k, column: c });
  }
  return out;
}

const GUESSES: Record<string, readonly string[]> = {
  id: ['id', 'case_id', 'caseid', 'case', 'index', 'qid', 'question_id', 'uid', 'sample_id', 'idx', 'row_number'],
  question: ['question', 'prompt', 'question_text', 'query', 'instruction', 'input', 'text'],
  answer: ['answer', 'label', 'gt', 'ground_truth', 'correct_answer', 'target', 'answer_label'],
  classLabel: ['class_label', 'diagnosis_name', 'diagnosis_class', 'class_name'],
  split: ['split', 'subset', 'set', 'level'],
  taskFamily: ['task_family', 'taskfamily', 'task_type'],
  diseaseGroup: ['disease_group', 'category', 'class', 'disease', 'group'],
  subtask: ['subtask', 'sub_task', 'task', 'question_type'],
  modality: ['modality'],
  notes: ['notes', 'hint', 'context', 'clinical_notes', 'history', 'vignette', 'patient_note'],
  diagnosis: ['diagnosis', 'final_diagnosis', 'reference_diagnosis', 'dx'],
  aliases: ['aliases', 'synonyms'],
  answerType: ['answer_type', 'answertype'],
  numericAnswer: ['ground_truth_answer'],
  numericLower: ['lower_limit'],
  numericUpper: ['upper_limit'],
  calculatorId: ['calculator_id'],
  rubric: ['rubrics', 'rubric'],
  boxes: ['answer_xyxy', 'bbox', 'boxes', 'box', 'answer_box', 'gt_box'],
};
const IMAGE_NAMES = ['image', 'image_path', 'file_path', 'img', 'img_path', 'image_file', 'filename', 'file', 'path', 'images', 'image_paths', 'scan', 'scan_path'];
const NUMBERED_IMAGE = /^(image|img)[_ -]?(path[_ -]?)?\d+$/i;

/**
 * Guesses a mapping from common column names (case, spaces and hyphens
 * ignored). Fields with
 * no likely column are left out; the user completes them.
 */
export function suggestMapping(header: readonly string[]): Partial<GenericMapping> {
  // "Case ID", "case-id" and "case_id" are the same guess.
  const key = (h: string) => h.trim().toLowerCase().replace(/[\s-]+/g, '_');
  const byLower = new Map<string, string>();
  for (const h of header) if (!byLower.has(key(h))) byLower.set(key(h), h);
  const used = new Set<string>();
  const pick = (names: readonly string[]): string | undefined => {
    for (const n of names) {
      const h = byLower.get(n);
      if (h && !used.has(h)) {
        used.add(h);
        return h;
      }
    }
    return undefined;
  };
  const out: Record<string, unknown> = {};
  // MedCalc-Bench's columns first, so "Ground Truth Answer" is a number rather than an option key.
  for (const field of ['numericAnswer', 'numericLower', 'numericUpper', 'calculatorId', 'id', 'question', 'answer', 'classLabel', 'diagnosis', 'split', 'taskFamily', 'diseaseGroup', 'subtask', 'modality', 'notes', 'aliases', 'answerType', 'rubric', 'boxes']) {
    const c = pick(GUESSES[field]!);
    if (c) out[field] = c;
  }
  const numbered = header.filter((h) => NUMBERED_IMAGE.test(h) && !used.has(h));
  const image = numbered.length ? numbered : [pick(IMAGE_NAMES)].filter((c): c is string => c !== undefined);
  if (image.length) out.image = image;
  const letters = header.filter((h) => /^[A-J]$/.test(h) && !used.has(h));
  const listColumn = letters.length >= 2 ? undefined : pick(['options', 'choices']);
  const options = letters.length >= 2 ? letters : listColumn ? [listColumn] : [];
  if (options.length) {
    out.options = options;
    out.defaultTaskFamily = 'multiple-choice';
  } else if (out.answerType && out.answer) {
    // VQA-RAD and SLAKE: an answer with an answer type (OPEN/CLOSED) and no options is a short answer.
    out.shortAnswer = out.answer;
    delete out.answer;
  }
  return out as Partial<GenericMapping>;
}
