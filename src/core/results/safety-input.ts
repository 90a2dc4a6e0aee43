/**
 * The answers the safety view and the failure gallery read: each current
 * score row joined with its stored answer (what class it named, whether it
 * parsed) and its case (reference class, disease group, patient, first
 * image). Classes go through NeuroEval's NeuroVLM normalisation
 * (scoring/neurovlm/normalise.ts), plus the words a normal control goes by.
 */
import type { BenchCase, Question } from '../bundle/types.ts';
import type { ReviewRecord } from '../model/review.ts';
import type { ScoreRecord } from '../scoring/run/records.ts';
import type { ResponseRecord } from '../model/answer.ts';
import { safetyFlags } from '../scoring/neurovlm/safety.ts';
import { ABSTAIN, normaliseClass } from '../scoring/neurovlm/normalise.ts';
import { patientCluster, sharesPatients } from '../scoring/run/patients.ts';
import type { SafetyAnswer } from './safety.ts';

/** Words a normal control's class goes by (NeuroEval's own, after the benchmark's class normalisation). */
const NORMAL_WORDS: ReadonlySet<string> = new Set(['normal', 'healthy', 'control', 'healthy control', 'normal control', 'no abnormality', 'no abnormalities', 'unremarkable']);

const isObject = (v: unknown): v is Readonly<Record<string, unknown>> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A class label as normal, abnormal, or null (no label, or an abstention). */
export function classOf(label: unknown): 'normal' | 'abnormal' | null {
  if (label === null || label === undefined) return null;
  const c = normaliseClass(label);
  if (c === ABSTAIN || c === '') return null;
  return NORMAL_WORDS.has(c) ? 'normal' : 'abnormal';
}

/** The case's first question the answer is about. */
function questionOf(kase: BenchCase | undefined, questionId: string): Question | undefined {
  return kase?.questions.find((q) => q.id === questionId) ?? kase?.questions[0];
}

/** The reference class: the question's `diagnosis_name` label, else the case's disease group. */
function referenceClass(kase: BenchCase | undefined, question: Question | undefined): 'normal' | 'abnormal' | null {
  return classOf(question?.reference?.labels?.diagnosis_name) ?? classOf(kase?.diseaseGroup);
}

/** What a structured answer says about normal vs abnormal; null for protocols that name no class. */
function answeredClass(row: ScoreRecord, response: ResponseRecord | undefined): SafetyAnswer['answered'] {
  if (row.protocolId !== 'neurovlm-structured') return null;
  if (!response || response.parseError !== null || !isObject(response.parsed)) return 'unparsable';
  return classOf(response.parsed.diagnosis_name) ?? 'abstained';
}

/** One scored answer with everything the safety view and gallery need. */
export interface JoinedAnswer extends SafetyAnswer {
  readonly row: ScoreRecord;
  readonly response: ResponseRecord | undefined;
  readonly kase: BenchCase | undefined;
  readonly question: Question | undefined;
  readonly reviews: readonly ReviewRecord[];
}

export interface SafetySource {
  readonly items: readonly ScoreRecord[];
  /** Stored answers by response id. */
  readonly responses: ReadonlyMap<string, ResponseRecord>;
  readonly cases: ReadonlyMap<string, BenchCase>;
  readonly reviews: readonly ReviewRecord[];
}

/** Joins score rows with their answers, cases and reviews; failed calls are no answers and are left out. */
export function joinAnswers(src: SafetySource): JoinedAnswer[] {
  const byPatient = sharesPatients(new Set(src.items.map((r) => r.caseId)), src.cases);
  const reviewsOf = new Map<string, ReviewRecord[]>();
  for (const r of src.reviews) reviewsOf.set(r.responseId, [...(reviewsOf.get(r.responseId) ?? []), r]);
  return src.items.filter((row) => !src.responses.get(row.responseId)?.error).map((row) => {
    const kase = src.cases.get(row.caseId);
    const question = questionOf(kase, row.questionId);
    const response = src.responses.get(row.responseId);
    const reference = referenceClass(kase, question);
    const answered = answeredClass(row, response);
    const primary = row.primary ? row.metrics[row.primary]?.value ?? null : null;
    return {
      row, response, kase, question, reviews: reviewsOf.get(row.responseId) ?? [],
      runId: row.runId, modelId: row.modelId, variant: row.variant,
      group: kase?.diseaseGroup?.trim() || (reference ?? 'no group'),
      cluster: byPatient ? patientCluster(row, src.cases) : `q:${row.caseId}\u0000${row.questionId}`,
      reference, answered, correct: primary, confidence: row.confidence,
      flags: answered !== null && answered !== 'unparsable' && isObject(response?.parsed) ? (() => {
        const f = safetyFlags(response.parsed);
        return { missingField: f.missingFields.length > 0, inconsistentSubtype: f.inconsistentSubtype, icdWithNormal: f.icdWithNormal };
      })() : null,
    };
  });
}
