/**
 * What a column mapping means for scoring, said at import time rather than as
 * a missing figure after a run: class labels in the spelling the
 * classification scorers compare, and a warning for every mapped reference no
 * protocol of the cases will score (an answer column on cases that are not
 * multiple choice, cases whose protocol finds nothing to compare with).
 */
import { count } from '../text/plural.ts';
import type { ErrorLocation } from '../errors.ts';
import { NEUROVLM_CLASSES } from '../protocols/neurovlm/protocol.ts';
import { ANSWER_TYPE_PROTOCOL, protocolFor } from '../protocols/registry.ts';
import { normalizeClassLabel } from '../scoring/neurovlm/evaluator/normalise.ts';
import { ABSTAIN, normaliseField } from '../scoring/neurovlm/normalise.ts';
import { referenceNeed } from '../scoring/run/reference-needs.ts';
import type { BenchCase, ProtocolDefaults, TaskDeclaration } from '../bundle/types.ts';
import type { GenericMapping } from './generic-mapping.ts';
import { quoteValue, type Issues } from './support.ts';

/** The mapping form's name of each field, for messages that tell the user what to choose. */
export const MAPPING_FIELD_LABELS: Readonly<Record<string, string>> = {
  id: 'Case id',
  question: 'Question',
  image: 'Image path column(s)',
  answer: 'Answer (correct option or short answer)',
  classLabel: 'Class label (classification scoring)',
  options: 'Option columns (multiple choice)',
  split: 'Split',
  diseaseGroup: 'Disease group',
  subtask: 'Sub-task',
  modality: 'Modality',
  notes: 'Clinical notes',
  diagnosis: 'Reference diagnosis',
  taskFamily: 'Task family column',
  aliases: 'Diagnosis aliases',
  shortAnswer: 'Short answer (a word or phrase)',
  answerType: 'Answer type (open / closed)',
  numericAnswer: 'Numeric answer (number, date or duration)',
  numericLower: 'Lower limit (numeric answer)',
  numericUpper: 'Upper limit (numeric answer)',
  calculatorId: 'MedCalc-Bench calculator id',
  rubric: 'Rubric items (criterion, points, tags)',
  boxes: 'Reference box(es) x1, y1, x2, y2',
  boxFrame: 'Box coordinates in',
  boxImage: 'Box lies on',
};

const CLASSES: readonly string[] = NEUROVLM_CLASSES;
const CLASS_LIST = CLASSES.join(', ');

const rows = (n: number): string => (n > 1 ? ` (${n} rows with this value; the first is shown)` : '');

interface LabelFinding {
  readonly message: (n: number) => string;
  readonly location: ErrorLocation;
  count: number;
}

/**
 * Reads the class-label column row by row. A label NeuroEval's normalisation
 * reads as one of NeuroVLM-Bench's five classes is stored in the benchmark's
 * own spelling when the benchmark's evaluator (US spellings only) would not
 * read it so ("Tumour" → "tumor"): otherwise the benchmark's figures and
 * NeuroEval's would disagree on the same answers. Anything else is kept as
 * written, with a warning once per distinct value.
 */
export class ClassLabels {
  private readonly findings = new Map<string, LabelFinding>();

  /** The label to store, or null for an empty cell or an abstention such as "n/a". */
  read(raw: string, at: ErrorLocation): string | null {
    const written = raw.trim();
    if (!written) return null;
    const ours = normaliseField('diagnosis_name', written);
    if (ours === ABSTAIN) {
      this.note(written, at, (n) => `Class label ${quoteValue(written)} means no class: these cases have no class to be scored on${rows(n)}.`);
      return null;
    }
    if (CLASSES.includes(ours)) {
      if (normalizeClassLabel(written) === ours) return written;
      this.note(written, at, (n) =>
        `Class label ${quoteValue(written)} is stored as "${ours}", NeuroVLM-Bench's spelling: the benchmark's own evaluator reads US spellings only and would never count an answer right for ${quoteValue(written)}${rows(n)}.`,
      );
      return ours;
    }
    this.note(written, at, (n) =>
      `Class label ${quoteValue(written)} is not one of NeuroVLM-Bench's classes (${CLASS_LIST}): asked under NeuroVLM-Bench structured JSON a model names one of these, so this class is never counted right${rows(n)}.`,
    );
    return written;
  }

  report(issues: Issues): void {
    for (const f of this.findings.values()) issues.warn(f.message(f.count), f.location);
  }

  private note(value: string, at: ErrorLocation, message: (n: number) => string): void {
    const found = this.findings.get(value);
    if (found) found.count++;
    else this.findings.set(value, { message, location: at, count: 1 });
  }
}

/** Why a case gets its protocol, for messages. */
function because(c: BenchCase, protocolId: string, task?: TaskDeclaration): string {
  if (task && ANSWER_TYPE_PROTOCOL[task.answerType] === protocolId) return `the task declares ${task.answerType} answers`;
  if (protocolId === 'mcq') return 'they have options';
  if (protocolId === 'short-answer') return 'their answer is a short answer';
  if (protocolId === 'numeric') return 'their answer is a number';
  return `task family ${c.taskFamily}`;
}


/**
 * Warns, per protocol the cases will be asked under (each case's default,
 * protocols/registry.ts `protocolFor`), where the mapped references give a
 * scorer nothing: an answer column on cases not asked as multiple choice, an
 * answer that is not one of the case's option keys, and cases whose reference
 * lacks what their protocol compares with.
 */
export function warnUnscored(cases: readonly BenchCase[], m: GenericMapping, file: string, issues: Issues, defaults?: ProtocolDefaults): void {
  const groups = new Map<string, { id: string; label: string; why: string; cases: BenchCase[] }>();
  for (const c of cases) {
    const p = protocolFor(c, defaults);
    const why = because(c, p.id, defaults?.task);
    const key = `${p.id}|${why}`;
    const g = groups.get(key) ?? { id: p.id, label: `"${p.label}"`, why, cases: [] };
    g.cases.push(c);
    groups.set(key, g);
  }
  const at = (column: string | undefined): ErrorLocation => ({ file, line: 1, ...(column ? { field: column } : {}) });
  const hasAnswer = (c: BenchCase) => c.questions.some((q) => q.reference?.answer);

  if (m.answer) {
    for (const g of groups.values()) {
      if (g.id === 'mcq') continue;
      const withAnswer = g.cases.filter(hasAnswer).length;
      if (!withAnswer) continue;
      const as = [
        `as "${MAPPING_FIELD_LABELS.classLabel}" to score it as a class${g.id === 'neurovlm-structured' ? '' : m.defaultTaskFamily ? ' with task family classification (asked under NeuroVLM-Bench structured JSON)' : ' (without options the cases become classification, asked under NeuroVLM-Bench structured JSON)'}`,
        `as "${MAPPING_FIELD_LABELS.shortAnswer}" to score it by exact match (VQA-RAD, SLAKE)`,
        `as "${MAPPING_FIELD_LABELS.numericAnswer}" for a number`,
        `as "${MAPPING_FIELD_LABELS.diagnosis}" to score it as a diagnosis`,
        `add "${MAPPING_FIELD_LABELS.options}" for multiple choice`,
      ];
      issues.warn(
        `The answer column "${m.answer}" is not scored for ${count(withAnswer, 'case')}: they will be asked under ${g.label} (${g.why}), which does not read an answer; only multiple choice does. Map the column ${as.join(', or ')}.`,
        at(m.answer),
      );
    }
    const mcq = [...groups.values()].filter((g) => g.id === 'mcq').flatMap((g) => g.cases);
    const offKey = mcq.filter((c) => c.questions.some((q) => q.reference?.answer && !q.options?.some((o) => o.key.toUpperCase() === q.reference!.answer!.toUpperCase())));
    const first = offKey[0]?.questions.find((q) => q.reference?.answer);
    if (offKey.length && first) {
      issues.warn(
        `The answer of ${count(offKey.length, 'multiple-choice case')} is not one of its option keys (case "${offKey[0]!.id}": ${quoteValue(first.reference!.answer!)}, keys ${(first.options ?? []).map((o) => o.key).join(', ')}): multiple choice scores the key of the correct option, so these answers are never counted right.`,
        at(m.answer),
      );
    }
  }

  // A short or numeric answer, or a box, on cases asked under another protocol (they have options, say) is never read.
  for (const [field, protocolId] of [['shortAnswer', 'short-answer'], ['numericAnswer', 'numeric'], ['boxes', 'box']] as const) {
    const column = m[field];
    if (!column) continue;
    const need = referenceNeed(protocolId)!;
    for (const g of groups.values()) {
      if (g.id === protocolId) continue;
      const withIt = g.cases.filter((c) => c.questions.some((q) => need.has(q))).length;
      if (!withIt) continue;
      issues.warn(
        `The column "${column}" (${MAPPING_FIELD_LABELS[field]}) is not scored for ${count(withIt, 'case')}: they will be asked under ${g.label} (${g.why}), which does not read it.`,
        at(column),
      );
    }
  }

  for (const g of groups.values()) {
    const need = referenceNeed(g.id);
    if (!need) continue;
    const lacking = g.cases.filter((c) => !c.questions.some((q) => need.has(q)));
    if (!lacking.length) continue;
    const n = g.cases.length;
    const who =
      lacking.length < n ? `${lacking.length} of the ${n} cases asked under ${g.label} (${g.why}) ${lacking.length === 1 ? 'has' : 'have'} no ${need.bare}`
      : n === 1 ? `The case asked under ${g.label} (${g.why}) has no ${need.bare}`
      : `None of the ${n} cases asked under ${g.label} (${g.why}) has ${need.what}`;
    issues.warn(
      `${who}, which that protocol scores answers against: ${lacking.length === 1 ? 'its answers' : 'their answers'} will get no score. ${need.mappingField ? `Map the column that holds it as "${MAPPING_FIELD_LABELS[need.mappingField]}".` : need.hint}`,
      at(need.mappingField ? m[need.mappingField] : undefined),
    );
  }
}
