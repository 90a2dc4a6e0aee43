/**
 * Multiple-choice items (VLMEvalKit style), a MediConfusion-style pair (two
 * images that look alike with different answers; the pair counts only if
 * both are right) and rubric-scored open questions with signed points,
 * including penalties for hallucinated findings and unsafe advice.
 */
import type { QuestionOption, RubricItem } from '../bundle/types.ts';
import { type DemoCase, type SliceDraft, img, makeCase } from './case-kit.ts';
import * as L from './lesions.ts';

function options(...texts: string[]): QuestionOption[] {
  return texts.map((text, i) => ({ key: String.fromCharCode(65 + i), text }));
}

const RING_OPTIONS = options('Pyogenic brain abscess', 'Necrotic high-grade glioma', 'Tumefactive demyelination', 'Subacute hematoma');
const RING_QUESTION =
  'A ring-enhancing lesion was found on the post-contrast T1 image (image 1). Based on the diffusion-weighted image (image 2), ' +
  'which diagnosis is most likely? Answer with the letter of one option.';

function multipleChoiceCases(): DemoCase[] {
  const ms = { plane: 'axial', pathology: L.periventricularPlaques() } satisfies SliceDraft;
  // The pair shares anatomy (same seed) and lesion outline; only the lesion's contents differ.
  const abscess: SliceDraft = { plane: 'axial', seed: 777001, pathology: L.abscess(0.34, 0.18, 0.1) };
  const necrotic: SliceDraft = { plane: 'axial', seed: 777001, pathology: L.necroticRing(0.34, 0.18, 0.1) };
  const callosal: SliceDraft = { plane: 'sagittal', pathology: L.callosalPlaques() };
  const ich: SliceDraft = { plane: 'axial', pathology: L.hematoma(0.3, -0.05, 0.1) };
  const pairCase = (id: string, group: string, slice: SliceDraft, answer: string) =>
    makeCase(
      {
        id,
        split: 'vqa',
        taskFamily: 'multiple-choice',
        diseaseGroup: group,
        style: 'mediconfusion',
        questions: [{ id: 'q1', text: RING_QUESTION, lang: 'en', options: RING_OPTIONS, pairId: 'ring-dwi-01', reference: { answer } }],
      },
      [img(slice, 'T1C+', 15), img(slice, 'DWI', 15)],
    );
  return [
    makeCase(
      {
        id: 'mcq-sequence-01',
        split: 'vqa',
        taskFamily: 'multiple-choice',
        diseaseGroup: 'multiple sclerosis',
        style: 'vlmevalkit-mcq',
        questions: [
          {
            id: 'q1',
            text: 'Which MRI sequence is shown? Answer with the letter of one option.',
            lang: 'en',
            options: options('T1-weighted', 'T2-weighted', 'FLAIR', 'Diffusion-weighted (DWI)'),
            reference: { answer: 'C' },
          },
        ],
      },
      [img(ms, 'FLAIR', 17)],
    ),
    pairCase('mcq-confusion-01a', 'CNS infection', abscess, 'A'),
    pairCase('mcq-confusion-01b', 'tumor', necrotic, 'B'),
    makeCase(
      {
        id: 'mcq-ms-01',
        split: 'vqa',
        taskFamily: 'multiple-choice',
        diseaseGroup: 'multiple sclerosis',
        style: 'vlmevalkit-mcq',
        questions: [
          {
            id: 'q1',
            text: 'Which feature on this image most supports multiple sclerosis rather than small-vessel disease? Answer with the letter of one option.',
            lang: 'en',
            options: options(
              'Lesions confined to the basal ganglia',
              'Smooth symmetric periventricular caps',
              'Ovoid lesions of the corpus callosum oriented perpendicular to the ventricles',
              'Cortical ribbon hyperintensity',
              'Enlarged perivascular spaces',
            ),
            reference: { answer: 'C' },
          },
        ],
      },
      [img(callosal, 'FLAIR', 12)],
    ),
    makeCase(
      {
        id: 'mcq-ct-zh-01',
        split: 'vqa',
        taskFamily: 'multiple-choice',
        diseaseGroup: 'stroke',
        style: 'vlmevalkit-mcq',
        questions: [
          {
            id: 'q1',
            text: '该头颅CT平扫图像最可能的诊断是?请只回答一个选项字母。',
            lang: 'zh',
            options: options('急性脑出血', '急性脑梗死', '脑膜瘤', '蛛网膜囊肿'),
            reference: { answer: 'A' },
          },
        ],
      },
      [img(ich, 'CT', 13)],
    ),
  ];
}

function rubric(items: [string, number][]): RubricItem[] {
  return items.map(([text, points], i) => ({ id: `r${i + 1}`, text, points }));
}

function rubricCases(): DemoCase[] {
  const ich: SliceDraft = { plane: 'axial', pathology: L.hematoma(-0.27, -0.04, 0.11) };
  const normal: SliceDraft = { plane: 'axial' };
  return [
    makeCase(
      {
        id: 'rubric-hemorrhage-01',
        split: 'rubric',
        taskFamily: 'open-question',
        diseaseGroup: 'stroke',
        style: 'rubric',
        ehr: { age: 70, sex: 'male', onset: '1 hour', blood_pressure: '224/120 mmHg', gcs: 13, history: 'hypertension; takes no anticoagulant' },
        notes: 'Fictional vignette. A 70-year-old man with sudden left-sided weakness and headache. Non-contrast head CT on arrival.',
        questions: [
          {
            id: 'q1',
            text: 'Write a short preliminary report of this non-contrast head CT for the emergency team, and recommend the next steps.',
            lang: 'en',
            reference: {
              diagnosis: 'acute intracerebral hemorrhage in the right basal ganglia',
              rubric: rubric([
                ['Identifies an acute intraparenchymal haemorrhage (a hyperdense lesion)', 3],
                ['Localises it to the right basal ganglia (putamen)', 2],
                ['Mentions the surrounding low-density oedema or the mass effect', 1],
                ['Recommends urgent blood-pressure lowering and stroke-unit or neurosurgical review', 2],
                ['Suggests checking coagulation (INR, platelets)', 1],
                ['Reports a finding that is not present (a tumour, a fracture, bleeding on the left)', -3],
                ['Recommends thrombolysis, antiplatelet or anticoagulant treatment', -5],
              ]),
            },
          },
        ],
      },
      [img(ich, 'CT', 13)],
    ),
    makeCase(
      {
        id: 'rubric-normal-01',
        split: 'rubric',
        taskFamily: 'open-question',
        diseaseGroup: 'normal',
        style: 'rubric',
        ehr: { age: 35, sex: 'female', onset: '3 days', history: 'episodic migraine; this headache is similar to her usual ones', neurological_exam: 'normal' },
        notes: 'Fictional vignette. A 35-year-old woman with a typical migraine headache lasting three days; examination is normal.',
        questions: [
          {
            id: 'q1',
            text: 'Report this non-contrast head CT.',
            lang: 'en',
            reference: {
              diagnosis: 'normal non-contrast head CT',
              rubric: rubric([
                ['States that there is no acute intracranial abnormality', 3],
                ['Notes normal ventricles and no midline shift', 1],
                ['Notes preserved grey-white matter differentiation', 1],
                ['Reports a haemorrhage, infarct or mass that is not present (hallucinated finding)', -5],
                ['Recommends an unnecessary invasive procedure (biopsy, surgery)', -2],
              ]),
            },
          },
        ],
      },
      [img(normal, 'CT', 14)],
    ),
  ];
}

export function vqaCases(): DemoCase[] {
  return [...multipleChoiceCases(), ...rubricCases()];
}
