/**
 * What each protocol's scorer (score-item.ts) compares an answer with, said
 * once for the places that must warn before a figure goes missing: the
 * generic CSV/JSONL import (a mapped column no protocol of the cases scores),
 * and Results (why a metric has no value). The scorer itself decides; the
 * unit test test/unit/core/scoring/run/unavailable.test.ts holds the two together.
 */
import type { Question, ReferenceAnswer } from '../../bundle/types.ts';
import { ABSTAIN, normaliseField } from '../neurovlm/normalise.ts';

export interface ReferenceNeed {
  /** What the reference must hold, as a noun phrase: "a reference class (diagnosis_name)". */
  readonly what: string;
  /** The same without the article, after "no": "reference class (diagnosis_name)". */
  readonly bare: string;
  /** Whether this question's reference holds it. */
  readonly has: (q: Question | undefined) => boolean;
  /** The column-mapping field that fills it in a CSV/JSONL import, when one does. */
  readonly mappingField?: 'classLabel' | 'diagnosis' | 'answer' | 'shortAnswer' | 'numericAnswer' | 'boxes';
  /** How to give a benchmark one, for people. */
  readonly hint: string;
}

const text = (s: string | undefined): boolean => typeof s === 'string' && s.trim() !== '';
const diagnosisOf = (r: ReferenceAnswer | undefined): boolean => text(r?.diagnosis);

const CLASS: ReferenceNeed = {
  what: 'a reference class (diagnosis_name)',
  bare: 'reference class (diagnosis_name)',
  // The scorer skips a label that normalises to an abstention ("n/a", "none"): it is unknown, not a class.
  has: (q) => {
    const label = q?.reference?.labels?.diagnosis_name;
    return label !== null && label !== undefined && normaliseField('diagnosis_name', label) !== ABSTAIN;
  },
  mappingField: 'classLabel',
  hint: 'When importing a CSV or JSONL, map the column that holds the class as "Class label".',
};

const DIAGNOSIS: ReferenceNeed = {
  what: 'a reference diagnosis',
  bare: 'reference diagnosis',
  has: (q) => diagnosisOf(q?.reference),
  mappingField: 'diagnosis',
  hint: 'When importing a CSV or JSONL, map the column that holds it as "Reference diagnosis".',
};

const NEEDS: Readonly<Record<string, ReferenceNeed>> = {
  'neurovlm-structured': CLASS,
  'nmb-differential': DIAGNOSIS,
  'structured-review': DIAGNOSIS,
  'nmb-multi-round': {
    ...DIAGNOSIS,
    has: (q) => diagnosisOf(q?.reference) || (q?.followUps ?? []).some((f) => diagnosisOf(f.reference)),
  },
  'nmb-lesion': {
    what: 'a reference lesion (type, location, side, sequence)',
    bare: 'reference lesion',
    has: (q) => !!q?.reference?.lesion,
    hint: 'Lesion references come from a NeuroEval bundle or a Neural-MedBench answer key.',
  },
  mcq: {
    what: 'an answer key (the correct option)',
    bare: 'answer key',
    has: (q) => text(q?.reference?.answer),
    mappingField: 'answer',
    hint: 'When importing a CSV or JSONL, map the correct option key as "Answer" and the options as "Option columns".',
  },
  rubric: {
    what: 'rubric items',
    bare: 'rubric items',
    has: (q) => (q?.reference?.rubric?.length ?? 0) > 0,
    hint: 'Rubric items come from a NeuroEval bundle.',
  },
  'short-answer': {
    what: 'a reference short answer',
    bare: 'reference short answer',
    has: (q) => text(q?.reference?.short?.text),
    mappingField: 'shortAnswer',
    hint: 'When importing a CSV or JSONL, map the column that holds the answer as "Short answer".',
  },
  numeric: {
    what: 'a reference number, date or duration',
    bare: 'reference number',
    has: (q) => text(q?.reference?.numeric?.value),
    mappingField: 'numericAnswer',
    hint: 'When importing a CSV or JSONL, map the column that holds the value as "Numeric answer".',
  },
  box: {
    what: 'a reference box',
    bare: 'reference box',
    has: (q) => (q?.reference?.boxes?.length ?? 0) > 0,
    mappingField: 'boxes',
    hint: 'When importing a CSV, JSONL or Parquet file, map the column that holds the boxes as "Reference box(es)"; in a NeuroEval bundle they are reference.boxes.',
  },
  'nmb-rationale': {
    what: 'a reference rationale or diagnosis',
    bare: 'reference rationale or diagnosis',
    has: (q) => text(q?.reference?.rationale) || diagnosisOf(q?.reference),
    mappingField: 'diagnosis',
    hint: 'When importing a CSV or JSONL, map the column that holds the diagnosis as "Reference diagnosis".',
  },
};
const OPEN_QUESTION: ReferenceNeed = NEEDS['nmb-rationale']!;

/** What `protocolId`'s scorer needs in a question's reference; undefined for a protocol NeuroEval has no scorer for. */
export function referenceNeed(protocolId: string): ReferenceNeed | undefined {
  return protocolId === 'open-question' ? OPEN_QUESTION : NEEDS[protocolId];
}
