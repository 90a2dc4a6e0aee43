/**
 * Consistency probes: the same question asked again with the image mirrored
 * left to right (variant `probe:mirror`), or with the prompt reworded
 * (variant `probe:paraphrase`). Under the mirror a consistent model names the
 * same diagnosis and flips its laterality (left ↔ right; bilateral and
 * midline stay); under the paraphrase it names the same diagnosis.
 * NeuroEval's own figure: the share of answer pairs (original, probed) of one
 * model, case, question and sample that are consistent.
 */
import { normaliseClass } from '../neurovlm/normalise.ts';
import type { ResponseRecord } from '../../model/answer.ts';

export type ConsistencyProbe = 'mirror' | 'paraphrase';

/** The variant each probe asks under. */
const PROBE_VARIANT: Readonly<Record<ConsistencyProbe, string>> = { mirror: 'probe:mirror', paraphrase: 'probe:paraphrase' };

export interface ConsistencySummary {
  readonly modelId: string;
  readonly probe: ConsistencyProbe;
  /**
   * Answers the model gave under the probe, and of those the ones that did not
   * parse: a model that loses the answer format under the probe has no pairs,
   * and this is where that shows.
   */
  readonly probed: number;
  readonly probedUnreadable: number;
  /** Pairs where both answers parsed. */
  readonly pairs: number;
  /** Pairs whose answers name a diagnosis, and of those the ones naming the same. */
  readonly diagnosisPairs: number;
  readonly sameDiagnosis: number;
  /** Mirror only (0 for the paraphrase): pairs where the original answer is left or right, and of those the ones whose mirrored answer says the other side. */
  readonly lateralityPairs: number;
  readonly flippedLaterality: number;
  /** Pairs consistent on everything both answers state. */
  readonly consistent: number;
}

/** The diagnosis an answer names, whatever the protocol: NeuroVLM's class, a free diagnosis, the first hypothesis, an MCQ letter. */
function diagnosisOf(parsed: unknown): string | null {
  if (typeof parsed !== 'object' || parsed === null) return null;
  const p = parsed as Record<string, unknown>;
  if ('diagnosis_name' in p) {
    const c = normaliseClass(p.diagnosis_name);
    return c === '' ? null : c;
  }
  if (typeof p.diagnosis === 'string' && p.diagnosis.trim()) return p.diagnosis.trim().toLowerCase();
  if (Array.isArray(p.hypotheses)) {
    const first = (p.hypotheses as { rank?: number; diagnosis?: unknown }[]).find((h) => h.rank === 1) ?? p.hypotheses[0];
    const d = (first as { diagnosis?: unknown } | undefined)?.diagnosis;
    return typeof d === 'string' && d.trim() ? d.trim().toLowerCase() : null;
  }
  if (typeof p.choice === 'string') return p.choice;
  return null;
}

function lateralityOf(parsed: unknown): string | null {
  if (typeof parsed !== 'object' || parsed === null) return null;
  const p = parsed as Record<string, unknown>;
  const raw = p.laterality ?? (typeof p.lesion === 'object' && p.lesion !== null ? (p.lesion as Record<string, unknown>).laterality : undefined);
  return typeof raw === 'string' && raw.trim() ? raw.trim().toLowerCase() : null;
}

const MIRRORED: Readonly<Record<string, string>> = { left: 'right', right: 'left', bilateral: 'bilateral', midline: 'midline' };

/** The mirror probe's consistency per model, from the run's answers under `none` and `probe:mirror`; empty without the probe. */
export function mirrorConsistency(responses: readonly ResponseRecord[]): ConsistencySummary[] {
  return probeConsistency(responses, 'mirror');
}

/** The paraphrase probe's consistency per model (same diagnosis), from the answers under `none` and `probe:paraphrase`; empty without the probe. */
export function paraphraseConsistency(responses: readonly ResponseRecord[]): ConsistencySummary[] {
  return probeConsistency(responses, 'paraphrase');
}

/** Every probe's rows: the mirror's models, then the paraphrase's. */
export function runConsistency(responses: readonly ResponseRecord[]): ConsistencySummary[] {
  return [...mirrorConsistency(responses), ...paraphraseConsistency(responses)];
}

function probeConsistency(responses: readonly ResponseRecord[], probe: ConsistencyProbe): ConsistencySummary[] {
  const key = (r: ResponseRecord) => `${r.modelId}\u0000${r.caseId}\u0000${r.questionId}\u0000${r.sample}`;
  const original = new Map<string, ResponseRecord>();
  for (const r of responses) if (r.variant === 'none' && !r.error && !r.parseError) original.set(key(r), r);
  type Counts = Omit<ConsistencySummary, 'modelId' | 'probe'>;
  const byModel = new Map<string, { -readonly [K in keyof Counts]: number }>();
  for (const m of responses) {
    // An engine error is no answer; an unreadable one is counted, as it is the probe's finding too.
    if (m.variant !== PROBE_VARIANT[probe] || m.error) continue;
    const s = byModel.get(m.modelId) ?? { probed: 0, probedUnreadable: 0, pairs: 0, diagnosisPairs: 0, sameDiagnosis: 0, lateralityPairs: 0, flippedLaterality: 0, consistent: 0 };
    byModel.set(m.modelId, s);
    s.probed++;
    if (m.parseError) {
      s.probedUnreadable++;
      continue;
    }
    const o = original.get(key(m));
    if (!o) continue;
    s.pairs++;
    let ok = true;
    const [da, db] = [diagnosisOf(o.parsed), diagnosisOf(m.parsed)];
    if (da !== null && db !== null) {
      s.diagnosisPairs++;
      if (da === db) s.sameDiagnosis++;
      else ok = false;
    }
    // A reworded prompt asks the same of the same image: only the diagnosis is compared.
    const [la, lb] = probe === 'mirror' ? [lateralityOf(o.parsed), lateralityOf(m.parsed)] : [null, null];
    if (la !== null && MIRRORED[la] !== undefined) {
      // The original's side decides what the mirror must say; an answer that drops it is not consistent.
      if (la === 'left' || la === 'right') s.lateralityPairs++;
      const flipped = lb === MIRRORED[la];
      if (flipped && (la === 'left' || la === 'right')) s.flippedLaterality++;
      if (!flipped) ok = false;
    }
    if (ok) s.consistent++;
  }
  return [...byModel].map(([modelId, s]) => ({ modelId, probe, ...s }));
}
