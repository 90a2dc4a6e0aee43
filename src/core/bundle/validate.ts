/**
 * Checks untrusted bundle JSON (manifest.json, each line of cases.jsonl)
 * field by field and says exactly where a problem is. The JSON Schema in
 * docs/formats/bundle.schema.json describes the same rules for other tools;
 * a test keeps the two in agreement.
 */
import type { ErrorLocation } from '../errors.ts';
import type { ImportIssue } from './importer.ts';
import { checkCaseId } from './json-values.ts';
import { ANSWER_TYPES, BOX_FRAMES, BUNDLE_FORMAT, BUNDLE_FORMAT_VERSION, TASK_FAMILIES, type BenchCase, type BundleManifest } from './types.ts';

const ID_RE = /^[a-z0-9][a-z0-9._-]*$/;
const SHA_RE = /^[0-9a-f]{64}$/;

class Checker {
  readonly issues: ImportIssue[] = [];
  constructor(private readonly base: ErrorLocation) {}

  error(field: string, message: string): void {
    this.issues.push({ severity: 'error', message, location: { ...this.base, field } });
  }
  warn(field: string, message: string): void {
    this.issues.push({ severity: 'warning', message, location: { ...this.base, field } });
  }
  isObject(v: unknown, field: string): v is Record<string, unknown> {
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return true;
    this.error(field, `${field || 'The entry'} must be an object.`);
    return false;
  }
  string(o: Record<string, unknown>, key: string, path: string, required = false): void {
    const v = o[key];
    if (v === undefined || v === null) {
      if (required) this.error(path + key, `Missing required field "${key}".`);
      else if (v === null) this.error(path + key, `"${key}" must be a string, not null.`);
    } else if (typeof v !== 'string') this.error(path + key, `"${key}" must be a string.`);
    else if (required && v.trim() === '') this.error(path + key, `"${key}" must not be empty.`);
  }
  stringArray(o: Record<string, unknown>, key: string, path: string): void {
    const v = o[key];
    if (v === undefined) return;
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) this.error(path + key, `"${key}" must be a list of strings.`);
  }
  unknownKeys(o: Record<string, unknown>, allowed: readonly string[], path: string): void {
    for (const k of Object.keys(o)) if (!allowed.includes(k)) this.warn(path + k, `Unknown field "${k}" is ignored.`);
  }
}

const MANIFEST_KEYS = ['format', 'formatVersion', 'id', 'name', 'version', 'license', 'description', 'synthetic', 'source', 'protocolDefaults', 'contentHash', 'caseCount', 'imageCount'];
const CASE_KEYS = ['id', 'split', 'taskFamily', 'modality', 'sequences', 'diseaseGroup', 'subtask', 'images', 'ehr', 'notes', 'questions', 'meta'];
const IMAGE_KEYS = ['path', 'sha256', 'mime', 'width', 'height', 'sequence', 'plane', 'slice', 'label', 'source'];
const QUESTION_KEYS = ['id', 'text', 'lang', 'options', 'followUps', 'pairId', 'reference'];
const REFERENCE_KEYS = ['diagnosis', 'aliases', 'differential', 'lesion', 'rationale', 'rubric', 'labels', 'answer', 'short', 'numeric', 'boxes', 'boxFrame'];
const NUMERIC_KINDS = ['decimal', 'integer', 'date', 'weeks-days'];

function finite(v: unknown): boolean {
  return typeof v === 'number' && Number.isFinite(v);
}

/** Validates manifest.json. Returns the manifest when there are no errors. */
export function validateManifest(raw: unknown, file: string): { manifest?: BundleManifest; issues: ImportIssue[] } {
  const c = new Checker({ file });
  if (!c.isObject(raw, '')) return { issues: c.issues };
  if (raw.format !== BUNDLE_FORMAT) c.error('format', `"format" must be "${BUNDLE_FORMAT}".`);
  if (raw.formatVersion !== BUNDLE_FORMAT_VERSION) {
    c.error('formatVersion', `This app reads bundle format version ${BUNDLE_FORMAT_VERSION}; the file says ${JSON.stringify(raw.formatVersion)}.`);
  }
  c.string(raw, 'id', '', true);
  if (typeof raw.id === 'string' && raw.id && !ID_RE.test(raw.id)) c.error('id', '"id" may contain only lower-case letters, digits, ".", "-" and "_".');
  for (const k of ['name', 'version', 'license']) c.string(raw, k, '', true);
  c.string(raw, 'description', '');
  if (raw.synthetic !== undefined && typeof raw.synthetic !== 'boolean') c.error('synthetic', '"synthetic" must be true or false.');
  if (raw.contentHash !== undefined && (typeof raw.contentHash !== 'string' || !SHA_RE.test(raw.contentHash))) {
    c.error('contentHash', '"contentHash" must be 64 lower-case hex digits (SHA-256).');
  }
  if (raw.source !== undefined && c.isObject(raw.source, 'source')) {
    c.string(raw.source, 'kind', 'source.', true);
    c.stringArray(raw.source, 'files', 'source.');
  }
  if (raw.protocolDefaults !== undefined && c.isObject(raw.protocolDefaults, 'protocolDefaults')) {
    c.string(raw.protocolDefaults, 'protocol', 'protocolDefaults.');
    c.string(raw.protocolDefaults, 'prompt', 'protocolDefaults.');
    c.stringArray(raw.protocolDefaults, 'fewShotCaseIds', 'protocolDefaults.');
    if (raw.protocolDefaults.task !== undefined) checkTask(c, raw.protocolDefaults.task, 'protocolDefaults.task');
    c.unknownKeys(raw.protocolDefaults, ['task', 'protocol', 'prompt', 'fewShotCaseIds'], 'protocolDefaults.');
  }
  c.unknownKeys(raw, MANIFEST_KEYS, '');
  const ok = !c.issues.some((i) => i.severity === 'error');
  return ok ? { manifest: raw as unknown as BundleManifest, issues: c.issues } : { issues: c.issues };
}

/** A declared task (`TaskDeclaration`): an answer type NeuroEval knows, a prompt that asks the question, tolerances that are numbers ≥ 0. */
function checkTask(c: Checker, raw: unknown, path: string): void {
  if (!c.isObject(raw, path)) return;
  if (!(ANSWER_TYPES as readonly unknown[]).includes(raw.answerType)) c.error(`${path}.answerType`, `"answerType" must be one of: ${ANSWER_TYPES.join(', ')}.`);
  if (raw.prompt !== undefined && c.isObject(raw.prompt, `${path}.prompt`)) {
    c.string(raw.prompt, 'user', `${path}.prompt.`, true);
    c.string(raw.prompt, 'system', `${path}.prompt.`);
    if (typeof raw.prompt.user === 'string' && raw.prompt.user.trim() && !raw.prompt.user.includes('{{question}}')) {
      c.error(`${path}.prompt.user`, 'The prompt must hold {{question}}, where each case\'s question goes.');
    }
    c.unknownKeys(raw.prompt, ['system', 'user'], `${path}.prompt.`);
  }
  if (raw.scorer !== undefined && c.isObject(raw.scorer, `${path}.scorer`)) {
    const t = raw.scorer.tolerance;
    if (t !== undefined && c.isObject(t, `${path}.scorer.tolerance`)) {
      for (const k of ['absolute', 'relative']) {
        const v = t[k];
        if (v !== undefined && !(finite(v) && (v as number) >= 0)) c.error(`${path}.scorer.tolerance.${k}`, `"${k}" must be a number of at least 0.`);
      }
      c.unknownKeys(t, ['absolute', 'relative'], `${path}.scorer.tolerance.`);
    }
    if (raw.answerType !== undefined && raw.answerType !== 'numeric' && t !== undefined) c.error(`${path}.scorer.tolerance`, 'A tolerance applies to numeric answers only.');
    c.unknownKeys(raw.scorer, ['tolerance'], `${path}.scorer.`);
  }
  c.unknownKeys(raw, ['answerType', 'prompt', 'scorer'], `${path}.`);
}

/** Checks a task declaration on its own (the import form's): the problems, each naming its field under `task`. */
export function validateTaskDeclaration(raw: unknown, file: string): ImportIssue[] {
  const c = new Checker({ file });
  checkTask(c, raw, 'task');
  return c.issues;
}

function checkReference(c: Checker, ref: unknown, path: string): void {
  if (!c.isObject(ref, path.slice(0, -1))) return;
  c.string(ref, 'diagnosis', path);
  c.stringArray(ref, 'aliases', path);
  c.stringArray(ref, 'differential', path);
  c.string(ref, 'rationale', path);
  c.string(ref, 'answer', path);
  if (ref.lesion !== undefined && c.isObject(ref.lesion, `${path}lesion`)) {
    for (const k of ['type', 'location', 'sequence']) c.string(ref.lesion, k, `${path}lesion.`);
    const lat = ref.lesion.laterality;
    if (lat !== undefined && lat !== null && !['left', 'right', 'bilateral', 'midline'].includes(lat as string)) {
      c.error(`${path}lesion.laterality`, '"laterality" must be left, right, bilateral, midline or null.');
    }
  }
  if (ref.labels !== undefined && c.isObject(ref.labels, `${path}labels`)) {
    for (const [k, v] of Object.entries(ref.labels)) {
      if (v !== null && typeof v !== 'string') c.error(`${path}labels.${k}`, `Label "${k}" must be a string, or null when unknown.`);
    }
  }
  if (ref.rubric !== undefined) {
    if (!Array.isArray(ref.rubric)) c.error(`${path}rubric`, '"rubric" must be a list of items.');
    else
      ref.rubric.forEach((item, i) => {
        const p = `${path}rubric[${i}].`;
        if (!c.isObject(item, p.slice(0, -1))) return;
        c.string(item, 'id', p, true);
        c.string(item, 'text', p, true);
        if (typeof item.points !== 'number' || !Number.isFinite(item.points)) c.error(`${p}points`, '"points" must be a number (negative for penalties).');
        c.stringArray(item, 'tags', p);
      });
  }
  if (ref.short !== undefined && c.isObject(ref.short, `${path}short`)) {
    c.string(ref.short, 'text', `${path}short.`, true);
    if (ref.short.type !== undefined && ref.short.type !== 'open' && ref.short.type !== 'closed') c.error(`${path}short.type`, '"type" must be open or closed.');
  }
  if (ref.numeric !== undefined && c.isObject(ref.numeric, `${path}numeric`)) {
    const n = ref.numeric;
    c.string(n, 'value', `${path}numeric.`, true);
    for (const k of ['lower', 'upper', 'calculatorId']) if (n[k] !== undefined && !finite(n[k])) c.error(`${path}numeric.${k}`, `"${k}" must be a number.`);
    if (n.kind !== undefined && !NUMERIC_KINDS.includes(n.kind as string)) c.error(`${path}numeric.kind`, `"kind" must be one of: ${NUMERIC_KINDS.join(', ')}.`);
  }
  if (ref.boxes !== undefined) {
    if (!Array.isArray(ref.boxes)) c.error(`${path}boxes`, '"boxes" must be a list of {x1, y1, x2, y2}.');
    else
      ref.boxes.forEach((b, i) => {
        const p = `${path}boxes[${i}]`;
        if (!c.isObject(b, p)) return;
        for (const k of ['x1', 'y1', 'x2', 'y2']) if (!finite(b[k])) c.error(`${p}.${k}`, `"${k}" must be a number.`);
        if (finite(b.x1) && finite(b.x2) && finite(b.y1) && finite(b.y2) && ((b.x2 as number) <= (b.x1 as number) || (b.y2 as number) <= (b.y1 as number))) {
          c.error(p, 'A box needs x2 > x1 and y2 > y1 (top-left corner first).');
        }
        if (b.image !== undefined && !(Number.isInteger(b.image) && (b.image as number) >= 0)) c.error(`${p}.image`, '"image" must be an image index (0, 1, …).');
      });
  }
  if (ref.boxFrame !== undefined && !(BOX_FRAMES as readonly string[]).includes(ref.boxFrame as string)) c.error(`${path}boxFrame`, `"boxFrame" must be one of: ${BOX_FRAMES.join(', ')}.`);
  c.unknownKeys(ref, REFERENCE_KEYS, path);
}

/** Validates one case (a line of cases.jsonl). Returns the case when there are no errors. */
export function validateCase(raw: unknown, location: ErrorLocation): { case?: BenchCase; issues: ImportIssue[] } {
  const c = new Checker(location);
  if (!c.isObject(raw, '')) return { issues: c.issues };
  c.string(raw, 'id', '', true);
  let id: string | undefined;
  if (typeof raw.id === 'string' && raw.id.trim() !== '') {
    const checked = checkCaseId(raw.id);
    if ('error' in checked) c.error('id', checked.error);
    else id = checked.id;
  }
  if (!TASK_FAMILIES.includes(raw.taskFamily as never)) {
    c.error('taskFamily', `"taskFamily" must be one of: ${TASK_FAMILIES.join(', ')}.`);
  }
  for (const k of ['split', 'modality', 'diseaseGroup', 'subtask', 'notes']) c.string(raw, k, '');
  c.stringArray(raw, 'sequences', '');
  if (!Array.isArray(raw.images)) c.error('images', '"images" must be a list (it may be empty).');
  else
    raw.images.forEach((img, i) => {
      const p = `images[${i}].`;
      if (!c.isObject(img, p.slice(0, -1))) return;
      c.string(img, 'path', p, true);
      if (img.sha256 !== undefined && (typeof img.sha256 !== 'string' || !SHA_RE.test(img.sha256))) c.error(`${p}sha256`, '"sha256" must be 64 lower-case hex digits.');
      for (const k of ['mime', 'sequence', 'plane', 'label']) c.string(img, k, p);
      if (img.slice !== undefined && typeof img.slice !== 'string' && typeof img.slice !== 'number') c.error(`${p}slice`, '"slice" must be a number or a string.');
      c.unknownKeys(img, IMAGE_KEYS, p);
    });
  if (raw.ehr !== undefined && c.isObject(raw.ehr, 'ehr')) {
    for (const [k, v] of Object.entries(raw.ehr)) {
      if (v !== null && !['string', 'number', 'boolean'].includes(typeof v)) c.error(`ehr.${k}`, `EHR field "${k}" must be text, a number, true/false or null.`);
    }
  }
  if (raw.meta !== undefined && c.isObject(raw.meta, 'meta')) {
    for (const [k, v] of Object.entries(raw.meta)) if (typeof v !== 'string') c.error(`meta.${k}`, `meta.${k} must be a string.`);
  }
  if (!Array.isArray(raw.questions) || raw.questions.length === 0) c.error('questions', '"questions" must be a non-empty list.');
  else {
    const ids = new Set<string>();
    raw.questions.forEach((q, i) => {
      const p = `questions[${i}].`;
      if (!c.isObject(q, p.slice(0, -1))) return;
      c.string(q, 'id', p, true);
      c.string(q, 'text', p, true);
      c.string(q, 'lang', p);
      c.string(q, 'pairId', p);
      if (typeof q.id === 'string') {
        if (ids.has(q.id)) c.error(`${p}id`, `Question id "${q.id}" appears twice in this case.`);
        ids.add(q.id);
      }
      if (q.options !== undefined) {
        if (!Array.isArray(q.options)) c.error(`${p}options`, '"options" must be a list of {key, text}.');
        else
          q.options.forEach((o, j) => {
            if (c.isObject(o, `${p}options[${j}]`)) {
              c.string(o, 'key', `${p}options[${j}].`, true);
              // An image option may have no text.
              c.string(o, 'text', `${p}options[${j}].`, o.image === undefined);
              if (o.image !== undefined && !(Number.isInteger(o.image) && (o.image as number) >= 0)) c.error(`${p}options[${j}].image`, '"image" must be an image index (0, 1, …).');
            }
          });
      }
      if (q.followUps !== undefined) {
        if (!Array.isArray(q.followUps)) c.error(`${p}followUps`, '"followUps" must be a list.');
        else
          q.followUps.forEach((f, j) => {
            const fp = `${p}followUps[${j}].`;
            if (!c.isObject(f, fp.slice(0, -1))) return;
            c.string(f, 'id', fp, true);
            c.string(f, 'text', fp, true);
            if (f.images !== undefined && (!Array.isArray(f.images) || f.images.some((n) => !Number.isInteger(n) || (n as number) < 0))) {
              c.error(`${fp}images`, '"images" must list image positions (0, 1, …).');
            }
            if (f.reference !== undefined) checkReference(c, f.reference, `${fp}reference.`);
          });
      }
      if (q.reference !== undefined) checkReference(c, q.reference, `${p}reference.`);
      c.unknownKeys(q, QUESTION_KEYS, p);
    });
  }
  c.unknownKeys(raw, CASE_KEYS, '');
  const ok = !c.issues.some((i) => i.severity === 'error');
  return ok ? { case: { ...cleanCase(raw), id: id! }, issues: c.issues } : { issues: c.issues };
}

type Obj = Record<string, unknown>;
function pick(o: Obj, keys: readonly string[]): Obj {
  const out: Obj = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out;
}
function cleanReference(r: Obj): Obj {
  const out = pick(r, REFERENCE_KEYS);
  if (out.lesion) out.lesion = pick(out.lesion as Obj, ['type', 'location', 'laterality', 'sequence']);
  if (Array.isArray(out.rubric)) out.rubric = (out.rubric as Obj[]).map((i) => pick(i, ['id', 'text', 'points', 'tags']));
  if (out.short) out.short = pick(out.short as Obj, ['text', 'type']);
  if (out.numeric) out.numeric = pick(out.numeric as Obj, ['value', 'lower', 'upper', 'kind', 'calculatorId']);
  if (Array.isArray(out.boxes)) out.boxes = (out.boxes as Obj[]).map((b) => pick(b, ['x1', 'y1', 'x2', 'y2', 'image', 'label']));
  return out;
}

/** A validated case without the unknown fields the warnings said are ignored. */
function cleanCase(raw: Obj): BenchCase {
  const out = pick(raw, CASE_KEYS);
  out.images = (raw.images as Obj[]).map((i) => pick(i, IMAGE_KEYS));
  out.questions = (raw.questions as Obj[]).map((q) => {
    const cq = pick(q, QUESTION_KEYS);
    if (Array.isArray(cq.options)) cq.options = (cq.options as Obj[]).map((o) => pick(o, ['key', 'text', 'image']));
    if (Array.isArray(cq.followUps)) {
      cq.followUps = (cq.followUps as Obj[]).map((f) => {
        const cf = pick(f, ['id', 'text', 'images', 'reference']);
        if (cf.reference) cf.reference = cleanReference(cf.reference as Obj);
        return cf;
      });
    }
    if (cq.reference) cq.reference = cleanReference(cq.reference as Obj);
    return cq;
  });
  return out as unknown as BenchCase;
}
