/**
 * Prompt templates: rendering `{{placeholders}}` and hashing templates for
 * provenance. Templates are user-editable text, so rendering is forgiving:
 * an unknown placeholder is left as written (a prompt may legitimately
 * contain `{{`), never an error.
 */
import { canonicalJson } from '../bundle/canonical.ts';
import type { BenchCase, Question } from '../bundle/types.ts';
import { sha256Hex } from '../hash/sha256.ts';
import type { PromptTemplate } from './types.ts';

/** Placeholders the built-in protocols fill in, with what each one holds. */
export const TEMPLATE_PLACEHOLDERS: Readonly<Record<string, string>> = {
  question: 'the question text, exactly as the benchmark gives it (may be Chinese)',
  clinical: 'clinical notes followed by the structured EHR fields, one per line',
  notes: 'the free-text clinical notes / vignette',
  ehr: 'structured EHR fields as "key: value" lines',
  options: 'multiple-choice options as "A. text" lines',
  optionKeys: 'the option letters, e.g. "A, B, C, D"',
  imageCount: 'number of images attached to the turn (0 in the text-only ablation)',
  n: 'few-shot: the exemplar number, from 1',
  label: 'few-shot: the exemplar class label',
  followUp: 'multi-round: the follow-up text revealed in this turn',
  turn: 'multi-round: the turn number, from 1 (the opening question)',
};

export type TemplateVars = Readonly<Record<string, string | number | undefined>>;

const SECTION = /\{\{#\s*([A-Za-z][\w]*)\s*\}\}([\s\S]*?)\{\{\/\s*\1\s*\}\}/g;
const VARIABLE = /\{\{\s*([A-Za-z][\w]*)\s*\}\}/g;

function present(v: string | number | undefined): boolean {
  return v !== undefined && v !== '' && v !== 0;
}

/**
 * Renders a template string. `{{name}}` becomes the variable's value;
 * `{{#name}}…{{/name}}` keeps its body only when `name` is set, non-empty and
 * not 0. Unknown names stay as written. The result is trimmed, as the
 * benchmarks' own loaders do (`.strip()`).
 */
export function renderTemplate(text: string, vars: TemplateVars): string {
  const withSections = text.replace(SECTION, (_m, name: string, body: string) => (present(vars[name]) ? body : ''));
  return withSections.replace(VARIABLE, (m, name: string) => {
    const v = vars[name];
    return v === undefined ? m : String(v);
  }).trim();
}

const hashCache = new WeakMap<PromptTemplate, string>();

/**
 * SHA-256 (hex) of the template's canonical JSON: key order and `undefined`
 * fields do not matter, any change to the text does. Stored in provenance.
 */
export function templateHash(template: PromptTemplate): string {
  let hash = hashCache.get(template);
  if (!hash) {
    hash = sha256Hex(canonicalJson(template));
    hashCache.set(template, hash);
  }
  return hash;
}

/** Provenance fields of a template, as stored with a request. */
export function templateInfo(template: PromptTemplate): { id: string; version: string; hash: string } {
  return { id: template.id, version: template.version, hash: templateHash(template) };
}

function ehrLines(c: BenchCase): string {
  if (!c.ehr) return '';
  return Object.entries(c.ehr)
    .filter(([, v]) => v !== null && v !== '')
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join('\n');
}

/** The variables every protocol offers for a question: question, clinical text, options. */
export function questionVars(c: BenchCase, q: Question, imageCount: number): Record<string, string | number> {
  const notes = c.notes?.trim() ?? '';
  const ehr = ehrLines(c);
  const options = q.options ?? [];
  return {
    question: q.text,
    notes,
    ehr,
    clinical: [notes, ehr].filter(Boolean).join('\n\n'),
    // An image option is named by its place among the images sent (TemMed-Bench's image-pair selection).
    options: options.map((o) => (o.image !== undefined ? `${o.key}. image ${o.image + 1}${o.text ? ` (${o.text})` : ''}` : `${o.key}. ${o.text}`)).join('\n'),
    optionKeys: options.map((o) => o.key).join(', '),
    imageCount,
  };
}
