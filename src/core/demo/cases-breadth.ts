/**
 * Breadth cases in the style of NeuroVLM-Bench: one 2-D slice each, five
 * classes, and per-field labels (diagnosis_name, diagnosis_detailed,
 * modality, specialized_sequence, plane). A few labels are null on purpose,
 * as in the real index (unknown plane, tumour without subtype): those fields
 * are "not scorable" for that case.
 */
import { type DemoCase, type SliceDraft, img, makeCase } from './case-kit.ts';
import * as L from './lesions.ts';

export const NVB_CLASSES = ['tumor', 'stroke', 'multiple sclerosis', 'normal', 'other abnormalities'] as const;
export type NvbClass = (typeof NVB_CLASSES)[number];
export const NVB_TUMOR_SUBTYPES = [
  'glioma',
  'meningioma',
  'pituitary_tumor',
  'carcinoma',
  'germinoma',
  'granuloma',
  'medulloblastoma',
  'neurocytoma',
  'papilloma',
  'schwannoma',
  'tuberculoma',
] as const;
export const NVB_STROKE_SUBTYPES = ['ischemic', 'hemorrhagic'] as const;
export const NVB_MODALITIES = ['CT', 'MRI'] as const;
export const NVB_SEQUENCES = ['FLAIR', 'T1', 'T2', 'T1C+'] as const;
export const NVB_PLANES = ['axial', 'sagittal', 'coronal'] as const;

export type NvbSequence = (typeof NVB_SEQUENCES)[number] | 'CT';
export type Subtype = (typeof NVB_TUMOR_SUBTYPES)[number] | (typeof NVB_STROKE_SUBTYPES)[number] | null;

const QUESTION =
  'Analyse this single brain image. Answer with one JSON object with the fields modality (CT or MRI), ' +
  'specialized_sequence (FLAIR, T1, T2, T1C+ or null for CT), plane (axial, sagittal or coronal), ' +
  'diagnosis_name (tumor, stroke, multiple sclerosis, normal or other abnormalities) and diagnosis_detailed ' +
  '(the tumour or stroke subtype, otherwise null).';

/** One NeuroVLM-Bench style case: a single slice, the benchmark's five classes and per-field labels. */
export function breadth(
  id: string,
  cls: NvbClass,
  detailed: Subtype,
  slice: SliceDraft,
  sequence: NvbSequence,
  sliceNo: number,
  opts: { unknownPlane?: boolean } = {},
): DemoCase {
  return makeCase(
    {
      id,
      split: 'breadth',
      taskFamily: 'classification',
      diseaseGroup: cls,
      style: 'neurovlm-bench',
      questions: [
        {
          id: 'q1',
          text: QUESTION,
          lang: 'en',
          reference: {
            labels: {
              diagnosis_name: cls,
              diagnosis_detailed: detailed,
              modality: sequence === 'CT' ? 'CT' : 'MRI',
              specialized_sequence: sequence === 'CT' ? null : sequence,
              plane: opts.unknownPlane ? null : slice.plane,
            },
          },
        },
      ],
    },
    [img(slice, sequence, sliceNo, { hidePlane: opts.unknownPlane })],
  );
}

const axial = (pathology?: L.Pathology, extra: Omit<SliceDraft, 'plane'> = {}): SliceDraft => ({ plane: 'axial', ...(pathology ? { pathology } : {}), ...extra });

export function breadthCases(): DemoCase[] {
  return [
    // Tumours: several subtypes, sequences and planes.
    breadth('breadth-tumor-t1c-axial-01', 'tumor', 'glioma', axial(L.glioma(0.3, -0.25, 0.14)), 'T1C+', 14),
    breadth('breadth-tumor-flair-axial-02', 'tumor', 'glioma', axial(L.glioma(-0.33, 0.12, 0.13, { grade: 'low' })), 'FLAIR', 16),
    breadth('breadth-tumor-t1c-axial-03', 'tumor', 'meningioma', axial(L.extraAxialMass(0.42, -0.5, 0.15, { edema: true })), 'T1C+', 18),
    breadth('breadth-tumor-t2-coronal-04', 'tumor', 'meningioma', { plane: 'coronal', pathology: L.extraAxialMass(-0.5, -0.48, 0.15) }, 'T2', 22),
    breadth('breadth-tumor-t1c-sagittal-05', 'tumor', 'pituitary_tumor', { plane: 'sagittal', pathology: L.pituitaryMacroadenoma() }, 'T1C+', 9),
    breadth(
      'breadth-tumor-t1c-axial-06',
      'tumor',
      'schwannoma',
      axial(L.extraAxialMass(-0.23, 0.07, 0.09, { tail: { x: -0.33, y: 0.045, r: 0.03 }, shift: 0.25 }), { level: 'posterior-fossa' }),
      'T1C+',
      6,
    ),
    breadth('breadth-tumor-t1-axial-07', 'tumor', null, axial(L.glioma(-0.25, -0.3, 0.15)), 'T1', 15),
    breadth(
      'breadth-tumor-t2-sagittal-08',
      'tumor',
      'medulloblastoma',
      { plane: 'sagittal', pathology: L.solidMass(0.24, 0.42, 0.09), anatomy: { ventricles: 1.6 } },
      'T2',
      10,
    ),
    // Stroke: non-contrast CT, ischaemic and haemorrhagic.
    breadth('breadth-stroke-ct-axial-01', 'stroke', 'ischemic', axial(L.territorialInfarct('MCA', 1)), 'CT', 12),
    breadth('breadth-stroke-ct-axial-02', 'stroke', 'ischemic', axial(L.territorialInfarct('PCA', -1)), 'CT', 11),
    breadth('breadth-stroke-ct-axial-03', 'stroke', 'hemorrhagic', axial(L.hematoma(-0.27, -0.04, 0.1, { intraventricular: -1 })), 'CT', 13),
    breadth('breadth-stroke-ct-axial-04', 'stroke', 'hemorrhagic', axial(L.hematoma(0.38, 0.3, 0.12)), 'CT', 15),
    breadth('breadth-stroke-ct-05', 'stroke', 'ischemic', axial(L.territorialInfarct('ACA', -1)), 'CT', 14, { unknownPlane: true }),
    breadth('breadth-stroke-ct-axial-06', 'stroke', null, axial(L.focalInfarct(-0.3, 0.42, 0.2, 0.22, 20), { level: 'posterior-fossa' }), 'CT', 5),
    // Multiple sclerosis: FLAIR and T2.
    breadth('breadth-ms-flair-axial-01', 'multiple sclerosis', null, axial(L.periventricularPlaques()), 'FLAIR', 17),
    breadth('breadth-ms-flair-sagittal-02', 'multiple sclerosis', null, { plane: 'sagittal', pathology: L.callosalPlaques() }, 'FLAIR', 12),
    breadth(
      'breadth-ms-t2-axial-03',
      'multiple sclerosis',
      null,
      axial(L.periventricularPlaques({ extra: [{ x: 0.55, y: -0.3, len: 0.03, angle: 60 }, { x: -0.5, y: 0.35, len: 0.03, angle: -40 }] })),
      'T2',
      18,
    ),
    // Normal controls: false findings here are a safety signal.
    breadth('breadth-normal-t1-axial-01', 'normal', null, axial(), 'T1', 16),
    breadth('breadth-normal-t2-axial-02', 'normal', null, axial(), 'T2', 15),
    breadth('breadth-normal-flair-sagittal-03', 'normal', null, { plane: 'sagittal' }, 'FLAIR', 11),
    breadth('breadth-normal-ct-axial-04', 'normal', null, axial(), 'CT', 14),
    breadth('breadth-normal-t1c-05', 'normal', null, axial(undefined, { level: 'posterior-fossa' }), 'T1C+', 7, { unknownPlane: true }),
    // Other abnormalities: cyst, abscess, hydrocephalus.
    breadth('breadth-other-t2-axial-01', 'other abnormalities', null, axial(L.arachnoidCyst(-0.52, -0.45, 0.14, 0.2)), 'T2', 19),
    breadth('breadth-other-t1c-axial-02', 'other abnormalities', null, axial(L.abscess(-0.35, 0.2, 0.09)), 'T1C+', 16),
    breadth('breadth-other-ct-axial-03', 'other abnormalities', null, axial(undefined, { anatomy: { ventricles: 1.9 } }), 'CT', 13),
  ];
}
