/**
 * NeuroVLM-Bench's label normalisation exactly as its evaluator has it
 * (ChatMED/neurovlm-bench `evaluate_detailed.py`, commit 6e87ba4: the
 * `normalize_*_label` functions), quirks included, because every figure that
 * carries the benchmark's name is defined by them:
 * - `None` becomes "undetermined"; every other value is `str(x).strip().lower()`
 *   with `_` → space, so the string "None" becomes "none";
 * - only the sequence field treats "none", "n/a", "not applicable" as an
 *   abstention; on the class, subtype, modality and plane fields they are
 *   labels of their own (wrong answers);
 * - US spellings only: "tumour", "ischaemic" and "haemorrhagic" match nothing;
 * - a ground truth normalising to "undetermined" ("other abnormalities" as a
 *   subtype) stays in the series as gold "undetermined".
 * NeuroEval's own, more forgiving rules are in `../normalise.ts` and feed only
 * figures named as NeuroEval's. Do not "fix" anything here: a change moves
 * the figures away from the benchmark's.
 */
import { pyStr, pyStrip, type PyValue } from '../../../python/values.ts';

export const UPSTREAM_ABSTAIN = 'undetermined';

/** `normalize_str`. */
export function normalizeStr(x: PyValue | undefined): string {
  return x === null || x === undefined ? UPSTREAM_ABSTAIN : pyStrip(pyStr(x)).toLowerCase().replace(/_/g, ' ');
}

/** The "Whether to handle it like this???" check most normalisers end with (after lower(), "None" can no longer match). */
const isNullish = (s: string): boolean => s === 'null' || s === 'nan' || s === '';

/** `normalize_modality_label`. */
export function normalizeModalityLabel(x: PyValue | undefined): string {
  const s = normalizeStr(x);
  if (s.includes('mr')) return 'mri';
  if (isNullish(s)) return UPSTREAM_ABSTAIN;
  return s;
}

/** `normalize_modality_subtype_label` (the sequence field). */
export function normalizeModalitySubtypeLabel(x: PyValue | undefined): string {
  const s = normalizeStr(x);
  if (s === 't1+c' || s === 't1 c+') return 't1c+';
  if (s === 't2-weighted') return 't2';
  if (s === 'non-contrast' || s === 't1-weighted') return 't1';
  if (s.includes('post-contrast') || s.includes('with contrast')) return 't1c+';
  if (s === 'glas') return UPSTREAM_ABSTAIN;
  if (isNullish(s) || s === 'n/a' || s === 'none' || s === 'not applicable' || s === 'brain') return UPSTREAM_ABSTAIN;
  return s;
}

/** `normalize_plane_label`. */
export function normalizePlaneLabel(x: PyValue | undefined): string {
  const s = normalizeStr(x);
  if (s === 's') return 'sagittal';
  if (isNullish(s)) return UPSTREAM_ABSTAIN;
  return s;
}

/** `SUBCLASS_BY_CLASS` of the evaluator, whose members `normalize_class_label` looks for as substrings. */
export const TUMOR_SUBCLASSES: readonly string[] = ['glioma', 'meningioma', 'pituitary tumor', 'carcinoma', 'germinoma', 'granuloma', 'medulloblastoma', 'neurocytoma', 'papilloma', 'schwannoma', 'tuberculoma'];
export const STROKE_SUBCLASSES: readonly string[] = ['ischemic', 'hemorrhagic'];

/** `normalize_class_label`: each rule applies to the previous rule's result. */
export function normalizeClassLabel(x: PyValue | undefined): string {
  let s = normalizeStr(x);
  if (s.includes('atrophy')) s = 'other abnormalities';
  if (s === 'brain mass' || s === 'mass' || s === 'stromal') s = 'other abnormalities';
  if (s === 'multiplesclerosis') s = 'multiple sclerosis';
  if (TUMOR_SUBCLASSES.some((t) => s.includes(t))) s = 'tumor';
  if (STROKE_SUBCLASSES.some((t) => s.includes(t))) s = 'stroke';
  if (s === 'tumors' || s === 'brain tumor') s = 'tumor';
  if (s === 'brain') s = UPSTREAM_ABSTAIN;
  if (isNullish(s)) s = UPSTREAM_ABSTAIN;
  return s;
}

/** `normalize_subclass_label`'s exact-match lists of model phrasings seen in the harness's runs. */
export const GLIOMA_PHRASES: ReadonlySet<string> = new Set([
  'brain parenchymal tumor', 'brain stem tumor', 'brain tumor', 'brainstem glioma', 'brainstem tumor',
  'diffuse midline glioma', 'glial', 'likely brainstem tumor', 'malignant glioma',
]);
export const HEMORRHAGIC_PHRASES: ReadonlySet<string> = new Set([
  'cerebellar hemorrhage', 'hematoma', 'intracerebral hemorrhage', 'intraparenchymal hemorrhage', 'intracerebral',
  'multiple small, ill-defined hypodense foci bilaterally within the cerebral hemispheres. these findings can be ' +
    'interpreted as a number of small hemorrhages or represent chronic changes. further evaluation is recommended ' +
    'to determine source.',
]);
export const UNDETERMINED_PHRASES: ReadonlySet<string> = new Set([
  'abnormal intracranial pressure', 'brain herniation', 'brain herniation and possible mass effect', 'brain lesion',
  'brain mass', 'brainstem', 'cerebellar edema', 'cerebellar hamartoma', 'cerebellar lesion', 'cerebellar tumor',
  'cerebral edema', 'epidermoid cyst', 'intracerebral', 'lesion', 'likely a brain herniation',
  'likely a brain tumor (e.g., some type of brain tumor)', 'likely a lesion',
  'likely an infiltrative lesion or edema associated with the mass', 'mixed', 'mixed round', 'multiple',
  'multiple lesions', 'multiple sclerosis lesions', 'no further specified', 'periventricular lesions', 'region',
  'ring-enhancing lesion', 'traumatic brain injury', 'tumorous lesion', 'unknown', 'other abnormalities',
]);

/** `normalize_subclass_label`: the first matching rule wins, in the evaluator's order. */
export function normalizeSubclassLabel(x: PyValue | undefined): string {
  const s = normalizeStr(x);
  if (s === 'papilloma') return 'papiloma';
  if (s.includes('neurocytoma')) return 'neurocitoma';
  if (s === 'medulloblastoma') return 'meduloblastoma';
  if (s.includes('ischemic')) return 'ischemic';
  if (s === 'glioblastoma') return 'glioma';
  if (s.includes('astrocytoma')) return 'glioma';
  if (s === 'ependymoma') return 'glioma';
  if (s.includes('metastatic carcinoma') && s.includes('meningioma')) return 'meningioma';
  if (s.includes('metastatic carcinoma') && s.includes('carcioma')) return 'carcioma';
  if (s.includes('metastatic carcinoma') && s.includes('granuloma')) return 'granuloma';
  if (s.includes('metastatic carcinoma') && s.includes('glioma')) return 'glioma';
  if (s.includes('metastatic tumor') && s.includes('glioma')) return 'glioma';
  if (s.includes('abscess')) return UPSTREAM_ABSTAIN;
  if (s.includes('craniopharyngioma')) return UPSTREAM_ABSTAIN;
  if (s.includes('atrophy')) return UPSTREAM_ABSTAIN;
  if (s === 'calcified pineal gland') return UPSTREAM_ABSTAIN;
  if (s === 'central nervous system tumor') return UPSTREAM_ABSTAIN;
  if (s === 'gliomatosis cerebri') return 'glioma';
  if (GLIOMA_PHRASES.has(s)) return 'glioma';
  if (HEMORRHAGIC_PHRASES.has(s)) return 'hemorrhagic';
  if (s === 'likely microadenomas') return 'pituitary tumor';
  if (UNDETERMINED_PHRASES.has(s)) return UPSTREAM_ABSTAIN;
  if (s === 'gliosis') return UPSTREAM_ABSTAIN;
  if (s.includes('hemangioblastoma')) return UPSTREAM_ABSTAIN;
  if (s === 'other') return UPSTREAM_ABSTAIN;
  if (s.includes('pituitary')) return 'pituitary tumor';
  if (s === 'cavernoma') return UPSTREAM_ABSTAIN;
  if (s.includes('metastases') || s.includes('metastasis') || s.includes('metastatic')) return UPSTREAM_ABSTAIN;
  if (s === 'normal' || s === 'multiple sclerosis' || s === 'colloid cyst') return UPSTREAM_ABSTAIN;
  if (isNullish(s)) return UPSTREAM_ABSTAIN;
  return s;
}
