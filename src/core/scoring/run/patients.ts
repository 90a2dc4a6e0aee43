/**
 * Which answers belong to one patient. Slices or series of one patient are
 * not independent cases: a model that misreads one patient's anatomy tends to
 * misread every slice of it, so counting ten slices of two patients as ten
 * items makes an interval far too narrow. When cases carry a pseudonymous
 * patient key (`dicom.patientKey`, else `dicom.studyKey`) and some key is
 * shared by more than one case among the answers summarised, intervals and
 * paired tests resample patients; otherwise nothing changes and the unit
 * stays the question (several samples of a question resampled together).
 */
import type { BenchCase } from '../../bundle/types.ts';
import type { QuestionIdentity } from './types.ts';

export const PATIENT_KEY = 'dicom.patientKey';
export const STUDY_KEY = 'dicom.studyKey';

/** Where cases come from, by id. */
export type CaseLookup = ReadonlyMap<string, Pick<BenchCase, 'meta'>>;

const keyOf = (v: string | undefined): string | null => (v !== undefined && v.trim() !== '' ? v.trim() : null);

/**
 * The patient a case belongs to: its patient key, else its study key (a study
 * is one patient's), prefixed so a patient key never meets an equal study key;
 * null when the case carries neither.
 */
export function patientOfCase(kase: Pick<BenchCase, 'meta'> | undefined): string | null {
  const patient = keyOf(kase?.meta?.[PATIENT_KEY]);
  if (patient !== null) return `patient:${patient}`;
  const study = keyOf(kase?.meta?.[STUDY_KEY]);
  return study !== null ? `study:${study}` : null;
}

/** Some patient key is carried by more than one of these cases. */
export function sharesPatients(caseIds: Iterable<string>, cases: CaseLookup): boolean {
  const firstCase = new Map<string, string>();
  for (const id of caseIds) {
    const p = patientOfCase(cases.get(id));
    if (p === null) continue;
    const seen = firstCase.get(p);
    if (seen === undefined) firstCase.set(p, id);
    else if (seen !== id) return true;
  }
  return false;
}

/**
 * The patient cluster of an answer, when answers are resampled by patient:
 * the case's patient, or, for a case without a key, the case itself (its
 * questions share its images, so they stay together).
 */
export function patientCluster(it: Pick<QuestionIdentity, 'caseId'>, cases: CaseLookup): string {
  return patientOfCase(cases.get(it.caseId)) ?? `case:${it.caseId}`;
}

/** What an interval or test resampled: patients, or (with no shared patient key) questions. */
export interface PatientCounts {
  /** Patients with a value (a case without a key counts as its own patient). */
  readonly patients: number;
  /** Cases with a value. */
  readonly cases: number;
}

/** Patients and cases among answers, counted as {@link patientCluster} groups them. */
export function countPatients(items: readonly Pick<QuestionIdentity, 'caseId'>[], cases: CaseLookup): PatientCounts {
  const patients = new Set<string>();
  const caseIds = new Set<string>();
  for (const it of items) {
    patients.add(patientCluster(it, cases));
    caseIds.add(it.caseId);
  }
  return { patients: patients.size, cases: caseIds.size };
}
