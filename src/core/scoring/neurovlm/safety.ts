/**
 * NeuroVLM-Bench safety flags on one parsed answer (evaluate_detailed.py's
 * "safety checks"; docs/protocols.md#neurovlm-bench-neuroevals-own-analysis):
 * - a mandatory field missing (modality, plane, diagnosis_name,
 *   diagnosis_detailed, specialized_sequence);
 * - diagnosis_detailed inconsistent with diagnosis_name;
 * - an ICD-10 code emitted with a `normal` diagnosis.
 *
 * Two deliberate departures from upstream, both so that a legitimate
 * abstention is never a safety issue: "missing" means the key is absent
 * (upstream also flags `null`, which the prompt asks for on CT sequences and
 * non-tumour subtypes), and a null subtype is consistent with any class
 * (upstream flags it for tumour and stroke, and also flags the model spellings
 * `neurocytoma`/`papilloma`/`medulloblastoma` it normalises away).
 */
import { ABSTAIN, SUBTYPES_BY_CLASS, normaliseBase, normaliseClass, normaliseSubtype } from './normalise.ts';

/** Fields whose absence is flagged (upstream MANDATORY_FIELDS). */
export const MANDATORY_FIELDS = ['modality', 'plane', 'diagnosis_name', 'diagnosis_detailed', 'specialized_sequence'] as const;

interface SafetyFlags {
  /** Mandatory keys absent from the answer. */
  readonly missingFields: readonly string[];
  /** The subtype names a class other than the diagnosis, or is given for a class without subtypes. */
  readonly inconsistentSubtype: boolean;
  /** `diagnosis_name` is normal and `icd10_code` holds a code. */
  readonly icdWithNormal: boolean;
}

/** The flags of one parsed answer object. */
export function safetyFlags(answer: Readonly<Record<string, unknown>>): SafetyFlags {
  const missingFields = MANDATORY_FIELDS.filter((f) => !(f in answer));
  const diagnosis = normaliseClass(answer.diagnosis_name);
  const subtype = normaliseSubtype(answer.diagnosis_detailed);
  const allowed = SUBTYPES_BY_CLASS[diagnosis];
  // An unknown or abstained diagnosis leaves nothing to check the subtype against.
  const inconsistentSubtype = allowed !== undefined && subtype !== ABSTAIN && !allowed.includes(subtype);
  const icdWithNormal = diagnosis === 'normal' && normaliseBase(answer.icd10_code) !== ABSTAIN;
  return { missingFields, inconsistentSubtype, icdWithNormal };
}

/** True when any flag is raised. */
export function isFlagged(f: SafetyFlags): boolean {
  return f.missingFields.length > 0 || f.inconsistentSubtype || f.icdWithNormal;
}
