/**
 * Neural-MedBench lesion recognition, field by field (docs/protocols.md#neural-medbench): the
 * lesion type, its location, its laterality and the sequence that shows it,
 * each compared with the reference on its own, plus `all` (every field the
 * reference states is right).
 *
 * - type: rule equivalence (normalised or token-set match, see
 *   equivalence/normalise.ts) or every reference word present in the answer
 *   ("glioblastoma" ⊂ "glioblastoma multiforme, IDH wild-type");
 * - location: every reference word present in the answer after the same
 *   normalisation, side words ignored (laterality is its own field), so
 *   "frontal lobe, left" matches "left frontal lobe";
 * - laterality: exact (left / right / bilateral / midline);
 * - sequence: compared after folding spellings (T2-FLAIR = FLAIR,
 *   T1 post-contrast = T1C+, DWI = diffusion).
 * A field the reference leaves out is null (not scored), never a miss.
 */
import { normaliseDiagnosis, namesMatch, STOP_WORDS } from '../equivalence/normalise.ts';

interface LesionFields {
  readonly type?: string | null;
  readonly location?: string | null;
  readonly laterality?: string | null;
  readonly sequence?: string | null;
}

export const LESION_FIELDS = ['type', 'location', 'laterality', 'sequence'] as const;
type LesionField = (typeof LESION_FIELDS)[number];

type LesionMatch = Readonly<Record<LesionField | 'all', boolean | null>>;

const SIDE_WORDS = new Set(['left', 'right', 'bilateral', 'midline', 'l', 'r', 'sided', 'side']);

function words(text: string, dropSides: boolean): Set<string> {
  return new Set(normaliseDiagnosis(text).split(' ').filter((w) => w && !STOP_WORDS.has(w) && !(dropSides && SIDE_WORDS.has(w))));
}

function contains(answer: string, reference: string, dropSides: boolean): boolean {
  const ref = words(reference, dropSides);
  if (ref.size === 0) return false;
  const got = words(answer, dropSides);
  for (const w of ref) if (!got.has(w)) return false;
  return true;
}

/** Canonical MRI/CT sequence label. */
export function canonicalSequence(text: string): string {
  const s = text.toLowerCase().replace(/[^a-z0-9+]+/g, '');
  if (/\bcta\b|ct angiogra/i.test(text)) return 'cta';
  if (/\bct\b|computed tomograph/i.test(text)) return 'ct';
  if (s.includes('flair')) return 'flair';
  if (s.includes('swi') || s.includes('susceptib')) return 'swi';
  if (s.includes('gre') || s.includes('gradientecho') || s === 't2star' || s === 't2*') return 'gre';
  if (s.includes('adc') || s.includes('apparentdiffusion')) return 'adc';
  if (s.includes('dwi') || s.includes('diffusion')) return 'dwi';
  if (/t1.*(c\+|ce|gd|post|contrast|enhanc)/.test(s) || s === 't1c') return 't1c+';
  if (s.startsWith('t1')) return 't1';
  if (s.startsWith('t2')) return 't2';
  return s;
}

const present = (v: string | null | undefined): v is string => typeof v === 'string' && v.trim() !== '';

/** Per-field match of a lesion answer against the reference. */
export function lesionMatch(answer: LesionFields, reference: LesionFields): LesionMatch {
  const field = (ref: string | null | undefined, ans: string | null | undefined, same: (a: string, r: string) => boolean): boolean | null =>
    present(ref) ? present(ans) && same(ans, ref) : null;
  const type = field(reference.type, answer.type, (a, r) => namesMatch(a, r) !== null || contains(a, r, false));
  const location = field(reference.location, answer.location, (a, r) => contains(a, r, true));
  const laterality = field(reference.laterality, answer.laterality, (a, r) => a.trim().toLowerCase() === r.trim().toLowerCase());
  const sequence = field(reference.sequence, answer.sequence, (a, r) => canonicalSequence(a) === canonicalSequence(r));
  const stated = [type, location, laterality, sequence].filter((v): v is boolean => v !== null);
  return { type, location, laterality, sequence, all: stated.length === 0 ? null : stated.every(Boolean) };
}
