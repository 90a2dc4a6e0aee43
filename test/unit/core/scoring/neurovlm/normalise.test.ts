import { describe, expect, it } from 'vitest';
import {
  ABSTAIN,
  NEUROVLM_SCORED_FIELDS,
  SUBTYPES_BY_CLASS,
  normaliseBase,
  normaliseClass,
  normaliseField,
  normaliseModality,
  normalisePlane,
  normaliseSequence,
  normaliseSubtype,
} from '../../../../../src/core/scoring/neurovlm/normalise.ts';

describe('normaliseBase', () => {
  it('lower-cases, trims and turns underscores into spaces', () => {
    expect(normaliseBase('  Pituitary_Tumor ')).toBe('pituitary tumor');
    expect(normaliseBase('MULTIPLE_SCLEROSIS')).toBe('multiple sclerosis');
  });

  it.each([null, undefined, Number.NaN, '', '  ', 'null', 'None', 'none', 'NaN', 'nan', 'N/A', 'n/a'])('treats %s as an abstention', (v) => {
    expect(normaliseBase(v)).toBe(ABSTAIN);
  });

  it('stringifies numbers and booleans like Python str()', () => {
    expect(normaliseBase(1)).toBe('1');
    expect(normaliseBase(true)).toBe('true');
  });

  it('abstains the same way in every field', () => {
    for (const f of NEUROVLM_SCORED_FIELDS) {
      for (const v of [null, 'None', 'n/a', '', 'nan', 'null']) expect(normaliseField(f, v)).toBe(ABSTAIN);
    }
  });
});

describe('modality', () => {
  it.each([
    ['MRI', 'mri'],
    ['MR', 'mri'],
    ['mri scan', 'mri'],
    ['Brain MRI (FLAIR)', 'mri'],
    ['CT', 'ct'],
    ['ct', 'ct'],
    [null, ABSTAIN],
    ['N/A', ABSTAIN],
  ])('%s → %s', (input, out) => expect(normaliseModality(input)).toBe(out));
});

describe('sequence', () => {
  it.each([
    ['T1C+', 't1c+'],
    ['t1+c', 't1c+'],
    ['T1+C', 't1c+'],
    ['t1 c+', 't1c+'],
    ['T1 post-contrast', 't1c+'],
    ['post-contrast', 't1c+'],
    ['T1 with contrast', 't1c+'],
    ['T2-weighted', 't2'],
    ['T1-weighted', 't1'],
    ['non-contrast', 't1'],
    ['FLAIR', 'flair'],
    ['T2', 't2'],
    ['T1', 't1'],
    ['not applicable', ABSTAIN],
    ['brain', ABSTAIN],
    ['glas', ABSTAIN],
    [null, ABSTAIN],
  ])('%s → %s', (input, out) => expect(normaliseSequence(input)).toBe(out));
});

describe('plane', () => {
  it.each([
    ['Axial', 'axial'],
    ['SAGITTAL', 'sagittal'],
    ['s', 'sagittal'],
    ['coronal', 'coronal'],
    ['', ABSTAIN],
    [null, ABSTAIN],
  ])('%s → %s', (input, out) => expect(normalisePlane(input)).toBe(out));
});

describe('class', () => {
  it.each([
    ['Tumor', 'tumor'],
    ['stroke', 'stroke'],
    ['Multiple Sclerosis', 'multiple sclerosis'],
    ['multiple_sclerosis', 'multiple sclerosis'],
    ['multiplesclerosis', 'multiple sclerosis'],
    ['normal', 'normal'],
    ['other_abnormalities', 'other abnormalities'],
    // a tumour subtype name → tumor
    ['glioma', 'tumor'],
    ['Meningioma', 'tumor'],
    ['pituitary_tumor', 'tumor'],
    ['low-grade glioma', 'tumor'],
    ['medulloblastoma', 'tumor'],
    ['neurocytoma', 'tumor'],
    ['papilloma', 'tumor'],
    ['schwannoma', 'tumor'],
    ['tuberculoma', 'tumor'],
    ['germinoma', 'tumor'],
    ['granuloma', 'tumor'],
    ['carcinoma', 'tumor'],
    ['neurocitoma', 'tumor'],
    ['brain tumor', 'tumor'],
    ['tumors', 'tumor'],
    ['brain tumour', 'tumor'],
    // ischemic / hemorrhagic → stroke
    ['ischemic', 'stroke'],
    ['Hemorrhagic stroke', 'stroke'],
    ['ischaemic stroke', 'stroke'],
    ['haemorrhagic', 'stroke'],
    // atrophy / mass → other abnormalities
    ['atrophy', 'other abnormalities'],
    ['cerebral atrophy', 'other abnormalities'],
    ['mass', 'other abnormalities'],
    ['brain mass', 'other abnormalities'],
    ['stromal', 'other abnormalities'],
    ['brain', ABSTAIN],
    [null, ABSTAIN],
    ['none', ABSTAIN],
    ['lymphoma', 'lymphoma'],
  ])('%s → %s', (input, out) => expect(normaliseClass(input)).toBe(out));
});

describe('subtype', () => {
  it.each([
    // model spellings → dataset spellings
    ['neurocytoma', 'neurocitoma'],
    ['central neurocytoma', 'neurocitoma'],
    ['medulloblastoma', 'meduloblastoma'],
    ['papilloma', 'papiloma'],
    ['pituitary_tumor', 'pituitary tumor'],
    ['Pituitary adenoma', 'pituitary tumor'],
    ['likely microadenomas', 'pituitary tumor'],
    // dataset spellings stay
    ['neurocitoma', 'neurocitoma'],
    ['meduloblastoma', 'meduloblastoma'],
    ['papiloma', 'papiloma'],
    ['pituitary tumor', 'pituitary tumor'],
    ['Glioma', 'glioma'],
    ['meningioma', 'meningioma'],
    ['schwannoma', 'schwannoma'],
    // glioma family
    ['glioblastoma', 'glioma'],
    ['pilocytic astrocytoma', 'glioma'],
    ['ependymoma', 'glioma'],
    ['gliomatosis cerebri', 'glioma'],
    ['diffuse midline glioma', 'glioma'],
    ['brain tumor', 'glioma'],
    // hemorrhagic family
    ['hemorrhagic', 'hemorrhagic'],
    ['hematoma', 'hemorrhagic'],
    ['intracerebral hemorrhage', 'hemorrhagic'],
    ['intracerebral haemorrhage', 'hemorrhagic'],
    ['haematoma', 'hemorrhagic'],
    ['hemorrhagic stroke', 'hemorrhagic'],
    ['ischemic', 'ischemic'],
    ['acute ischemic stroke', 'ischemic'],
    ['ischaemic', 'ischemic'],
    // metastatic carcinoma naming a dataset subtype
    ['metastatic carcinoma vs meningioma', 'meningioma'],
    ['metastatic carcinoma or granuloma', 'granuloma'],
    ['metastatic tumor or glioma', 'glioma'],
    // → undetermined (abstention)
    ['metastasis', ABSTAIN],
    ['brain metastases', ABSTAIN],
    ['metastatic carcinoma', ABSTAIN],
    ['abscess', ABSTAIN],
    ['brain abscess', ABSTAIN],
    ['craniopharyngioma', ABSTAIN],
    ['cavernoma', ABSTAIN],
    ['hemangioblastoma', ABSTAIN],
    ['gliosis', ABSTAIN],
    ['other', ABSTAIN],
    ['unknown', ABSTAIN],
    ['cerebral atrophy', ABSTAIN],
    ['normal', ABSTAIN],
    ['multiple sclerosis', ABSTAIN],
    ['colloid cyst', ABSTAIN],
    ['other abnormalities', ABSTAIN],
    [null, ABSTAIN],
    ['lymphoma', 'lymphoma'],
  ])('%s → %s', (input, out) => expect(normaliseSubtype(input)).toBe(out));

  it('maps every subtype the prompt allows onto a subtype the dataset has', () => {
    const prompt = ['ischemic', 'hemorrhagic', 'glioma', 'meningioma', 'pituitary_tumor', 'carcinoma', 'germinoma', 'granuloma', 'medulloblastoma', 'neurocytoma', 'papilloma', 'schwannoma', 'tuberculoma'];
    const allowed = new Set(Object.values(SUBTYPES_BY_CLASS).flat());
    for (const p of prompt) expect(allowed.has(normaliseSubtype(p)), p).toBe(true);
  });
});
