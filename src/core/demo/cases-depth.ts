/**
 * Depth cases in the style of Neural-MedBench: several sequences per case,
 * a structured EHR and a short clinical vignette, in three task families
 * (differential diagnosis, lesion recognition, rationale generation) and
 * three levels (direct, complex, multi-round). Every patient, history and
 * number here is invented for the demo.
 */
import { type DemoCase, type SliceDraft, img, makeCase } from './case-kit.ts';
import * as L from './lesions.ts';

const DDX_QUESTION =
  'Based on the history and the images, give a ranked differential diagnosis (most likely first, up to five), with the key evidence for each.';
export const LESION_QUESTION = 'Identify the main lesion: its type, its anatomical location, its side, and the sequence on which it is best seen.';
const RATIONALE_QUESTION =
  'What is the most likely diagnosis? Explain your reasoning, linking the clinical picture to the imaging findings on each sequence.';

const axial = (pathology?: L.Pathology, extra: Omit<SliceDraft, 'plane'> = {}): SliceDraft => ({ plane: 'axial', ...(pathology ? { pathology } : {}), ...extra });

function directCases(): DemoCase[] {
  const stroke = axial(L.territorialInfarct('MCA', 1));
  const gbm = axial(L.glioma(-0.3, -0.25, 0.15, { seed: 7 }));
  const msAxial = axial(L.periventricularPlaques({ active: 1 }));
  const msSag: SliceDraft = { plane: 'sagittal', pathology: L.callosalPlaques() };
  const ich = axial(L.hematoma(-0.27, -0.04, 0.1));
  const abscess = axial(L.abscess(0.35, 0.2, 0.09));
  const adCor: SliceDraft = { plane: 'coronal', anatomy: { atrophy: 0.6, hippocampalAtrophy: 0.8 } };
  const adAx = axial(undefined, { anatomy: { atrophy: 0.6 } });
  const meningioma = axial(L.extraAxialMass(0.45, -0.48, 0.16, { edema: true }));
  const sah = axial(L.subarachnoidBlood());
  return [
    makeCase(
      {
        id: 'direct-stroke-01',
        split: 'direct',
        taskFamily: 'differential-diagnosis',
        diseaseGroup: 'stroke',
        style: 'neural-medbench',
        ehr: {
          age: 72,
          sex: 'male',
          onset: 'sudden, last seen well 5 hours before arrival',
          nihss: 16,
          blood_pressure: '176/94 mmHg',
          glucose_mmol_l: 6.8,
          history: 'atrial fibrillation (not anticoagulated); hypertension; type 2 diabetes',
          medications: 'metformin; amlodipine',
        },
        notes:
          'Fictional vignette. A 72-year-old right-handed man was found at home with weakness of the right arm and face and ' +
          'difficulty finding words. On examination: global aphasia, right facial droop, right hemiparesis (arm worse than leg), ' +
          'gaze deviation to the left. Pulse irregularly irregular.',
        questions: [
          {
            id: 'q1',
            text: DDX_QUESTION,
            lang: 'en',
            reference: {
              diagnosis: 'acute ischemic stroke in the left middle cerebral artery territory',
              aliases: ['acute ischaemic stroke', 'left MCA infarct', 'left MCA stroke', 'cardioembolic stroke', 'cerebral infarction'],
              differential: [
                'acute ischemic stroke (left MCA territory, cardioembolic)',
                'intracerebral hemorrhage',
                'Todd paralysis after an unwitnessed seizure',
                'hypoglycemia',
                'brain tumor with acute presentation',
              ],
            },
          },
        ],
      },
      [img(stroke, 'CT', 12), img(stroke, 'DWI', 12), img(stroke, 'FLAIR', 12)],
    ),
    makeCase(
      {
        id: 'direct-tumor-01',
        split: 'direct',
        taskFamily: 'differential-diagnosis',
        diseaseGroup: 'tumor',
        style: 'neural-medbench',
        ehr: {
          age: 58,
          sex: 'male',
          onset: 'progressive over 6 weeks',
          kps: 70,
          history: 'no prior illness; ex-smoker (20 pack-years)',
          chest_ct: 'normal',
        },
        notes:
          'Fictional vignette. A 58-year-old man has had morning headaches and increasing apathy for six weeks, noticed by his ' +
          'family, and had a first generalised seizure yesterday. Mild left pronator drift. No fever. Chest CT is normal.',
        questions: [
          {
            id: 'q1',
            text: DDX_QUESTION,
            lang: 'en',
            reference: {
              diagnosis: 'glioblastoma',
              aliases: ['GBM', 'glioblastoma, IDH-wildtype', 'glioblastoma multiforme', 'high-grade glioma', 'WHO grade 4 glioma'],
              differential: ['glioblastoma', 'solitary brain metastasis', 'primary CNS lymphoma', 'brain abscess', 'tumefactive demyelination'],
            },
          },
        ],
      },
      [img(gbm, 'T1C+', 15), img(gbm, 'FLAIR', 15), img(gbm, 'T2', 15)],
    ),
    makeCase(
      {
        id: 'direct-ms-01',
        split: 'direct',
        taskFamily: 'differential-diagnosis',
        diseaseGroup: 'multiple sclerosis',
        style: 'neural-medbench',
        ehr: {
          age: 29,
          sex: 'female',
          onset: 'subacute over 4 days',
          edss: 2.0,
          history: 'painful loss of vision in the right eye 2 years ago, recovered over 6 weeks',
          csf_oligoclonal_bands: 'pending',
        },
        notes:
          'Fictional vignette. A 29-year-old woman reports numbness rising from both feet to the waist over four days and an ' +
          'electric sensation down the spine when bending the neck. Two years ago she had a painful episode of blurred vision in ' +
          'the right eye that recovered. Examination: reduced vibration sense in both legs, brisk reflexes.',
        questions: [
          {
            id: 'q1',
            text: DDX_QUESTION,
            lang: 'en',
            reference: {
              diagnosis: 'relapsing-remitting multiple sclerosis',
              aliases: ['multiple sclerosis', 'MS', 'RRMS', 'relapsing remitting MS'],
              differential: [
                'relapsing-remitting multiple sclerosis',
                'neuromyelitis optica spectrum disorder',
                'MOG antibody-associated disease',
                'acute disseminated encephalomyelitis',
                'small vessel ischemic disease',
              ],
            },
          },
        ],
      },
      [img(msAxial, 'FLAIR', 17), img(msSag, 'FLAIR', 12), img(msAxial, 'T1C+', 17)],
    ),
    makeCase(
      {
        id: 'direct-hemorrhage-01',
        split: 'direct',
        taskFamily: 'differential-diagnosis',
        diseaseGroup: 'stroke',
        style: 'neural-medbench',
        ehr: {
          age: 64,
          sex: 'male',
          onset: 'sudden, 90 minutes before arrival',
          nihss: 11,
          gcs: 14,
          blood_pressure: '212/118 mmHg',
          history: 'untreated hypertension; heavy alcohol use',
          inr: 1.0,
        },
        notes:
          'Fictional vignette. A 64-year-old man developed a sudden headache, vomiting and left-sided weakness while watching ' +
          'television. He has not seen a doctor for years. MRI was done the next day.',
        questions: [
          {
            id: 'q1',
            text: DDX_QUESTION,
            lang: 'en',
            reference: {
              diagnosis: 'hypertensive intracerebral hemorrhage in the right putamen',
              aliases: ['intracerebral hemorrhage', 'intracerebral haemorrhage', 'ICH', 'hypertensive hemorrhage', 'basal ganglia hemorrhage', 'putaminal hemorrhage'],
              differential: [
                'hypertensive intracerebral hemorrhage',
                'hemorrhage into an underlying tumor',
                'arteriovenous malformation',
                'hemorrhagic transformation of an infarct',
                'cerebral venous thrombosis with hemorrhage',
              ],
            },
          },
        ],
      },
      [img(ich, 'CT', 13), img(ich, 'T2', 13)],
    ),
    makeCase(
      {
        id: 'direct-infection-01',
        split: 'direct',
        taskFamily: 'differential-diagnosis',
        diseaseGroup: 'CNS infection',
        style: 'neural-medbench',
        ehr: {
          age: 45,
          sex: 'male',
          onset: 'over 10 days',
          temperature_c: 38.4,
          crp_mg_l: 64,
          white_cell_count: '14.2 x10^9/L',
          history: 'dental abscess treated 4 weeks ago',
        },
        notes:
          'Fictional vignette. A 45-year-old man has a worsening headache for ten days, low-grade fever and, since yesterday, ' +
          'difficulty reading and right-sided visual field loss. He had a dental abscess drained a month ago.',
        questions: [
          {
            id: 'q1',
            text: DDX_QUESTION,
            lang: 'en',
            reference: {
              diagnosis: 'pyogenic brain abscess',
              aliases: ['brain abscess', 'cerebral abscess', 'bacterial brain abscess', 'intracranial abscess'],
              differential: ['pyogenic brain abscess', 'glioblastoma', 'brain metastasis', 'tuberculoma', 'cerebral toxoplasmosis'],
            },
          },
        ],
      },
      [img(abscess, 'T1C+', 16), img(abscess, 'DWI', 16), img(abscess, 'FLAIR', 16)],
    ),
    makeCase(
      {
        id: 'direct-alzheimer-01',
        split: 'direct',
        taskFamily: 'differential-diagnosis',
        diseaseGroup: 'Alzheimer disease',
        style: 'neural-medbench',
        ehr: {
          age: 74,
          sex: 'female',
          onset: 'insidious, progressive over 3 years',
          mmse: 19,
          history: 'hypercholesterolaemia; mother had dementia in her 80s',
          b12_and_thyroid: 'normal',
        },
        notes:
          'Fictional vignette. A 74-year-old retired teacher repeats questions, misplaces things and got lost driving to a familiar ' +
          'shop. Her husband now manages the finances. No falls, hallucinations or parkinsonism. Neurological examination is normal.',
        questions: [
          {
            id: 'q1',
            text: DDX_QUESTION,
            lang: 'en',
            reference: {
              diagnosis: 'Alzheimer disease',
              aliases: ["Alzheimer's disease", 'AD', 'dementia of the Alzheimer type', 'Alzheimer dementia', 'late-onset Alzheimer disease'],
              differential: ['Alzheimer disease', 'vascular dementia', 'dementia with Lewy bodies', 'frontotemporal dementia', 'normal pressure hydrocephalus'],
            },
          },
        ],
      },
      [img(adCor, 'T1', 20), img(adAx, 'FLAIR', 16)],
    ),
    makeCase(
      {
        id: 'direct-tumor-zh-01',
        split: 'direct',
        taskFamily: 'differential-diagnosis',
        diseaseGroup: 'tumor',
        style: 'neural-medbench',
        ehr: { age: 55, sex: 'female', onset: '8 months', history: 'breast fibroadenoma removed at 40' },
        notes:
          '虚构病例(仅供演示)。女,55岁。头痛8个月,近1周出现右手阵发性抽搐两次。查体:右侧肢体肌力5-级,余无特殊。' +
          '既往体健。',
        questions: [
          {
            id: 'q1',
            text: '根据患者的症状和图片,对疾病进行诊断',
            lang: 'zh',
            reference: {
              diagnosis: 'meningioma',
              aliases: ['脑膜瘤', 'convexity meningioma', 'left frontal convexity meningioma', '凸面脑膜瘤'],
              differential: ['meningioma', 'dural metastasis', 'solitary fibrous tumor', 'glioma', 'dural lymphoma'],
            },
          },
        ],
      },
      [img(meningioma, 'T1C+', 18), img(meningioma, 'T2', 18), img(meningioma, 'FLAIR', 18)],
    ),
    makeCase(
      {
        id: 'direct-sah-01',
        split: 'direct',
        taskFamily: 'differential-diagnosis',
        diseaseGroup: 'stroke',
        style: 'neural-medbench',
        ehr: { age: 49, sex: 'female', onset: 'instantaneous, 3 hours before arrival', gcs: 14, blood_pressure: '168/92 mmHg', history: 'smoker; polycystic kidney disease in her father' },
        notes:
          'Fictional vignette. A 49-year-old woman had a sudden, explosive headache ("the worst of my life") while lifting a box, ' +
          'then vomited. She is drowsy with neck stiffness; no focal weakness.',
        questions: [
          {
            id: 'q1',
            text: DDX_QUESTION,
            lang: 'en',
            reference: {
              diagnosis: 'aneurysmal subarachnoid hemorrhage',
              aliases: ['subarachnoid hemorrhage', 'subarachnoid haemorrhage', 'SAH', 'aneurysmal SAH'],
              differential: [
                'aneurysmal subarachnoid hemorrhage',
                'perimesencephalic non-aneurysmal hemorrhage',
                'reversible cerebral vasoconstriction syndrome',
                'pituitary apoplexy',
                'bacterial meningitis',
              ],
            },
          },
        ],
      },
      [img(sah, 'CT', 12), img(sah, 'FLAIR', 12)],
    ),
  ];
}

function lesionCases(): DemoCase[] {
  const msAxial = axial(L.periventricularPlaques({ extra: [{ x: 0.55, y: -0.28, len: 0.03, angle: 60 }] }));
  const msSag: SliceDraft = { plane: 'sagittal', pathology: L.callosalPlaques() };
  const stroke = axial(L.territorialInfarct('MCA', -1, { deep: true }));
  const schwannoma = axial(L.extraAxialMass(-0.22, 0.07, 0.08, { tail: { x: -0.31, y: 0.045, r: 0.03 }, shift: 0.2 }), { level: 'posterior-fossa' });
  const pituitary: SliceDraft = { plane: 'sagittal', pathology: L.pituitaryMacroadenoma() };
  const lesion = (
    id: string,
    group: string,
    ehr: Record<string, string | number>,
    notes: string,
    ref: { type: string; location: string; laterality: 'left' | 'right' | 'bilateral' | 'midline'; sequence: string; diagnosis: string },
  ) => ({
    id,
    split: 'direct',
    taskFamily: 'lesion-recognition' as const,
    diseaseGroup: group,
    style: 'neural-medbench',
    ehr,
    notes,
    questions: [
      {
        id: 'q1',
        text: LESION_QUESTION,
        lang: 'en',
        reference: {
          diagnosis: ref.diagnosis,
          lesion: { type: ref.type, location: ref.location, laterality: ref.laterality, sequence: ref.sequence },
        },
      },
    ],
  });
  return [
    makeCase(
      lesion(
        'lesion-ms-01',
        'multiple sclerosis',
        { age: 34, sex: 'female', onset: 'subacute', edss: 1.5, history: 'right optic neuritis at 31' },
        'Fictional vignette. A 34-year-old woman has had tingling in the left hand for a week. MRI of the brain is requested.',
        {
          type: 'ovoid demyelinating plaques, perpendicular to the ventricles (Dawson fingers)',
          location: 'periventricular and juxtacortical white matter and the corpus callosum',
          laterality: 'bilateral',
          sequence: 'FLAIR',
          diagnosis: 'multiple sclerosis',
        },
      ),
      [img(msAxial, 'FLAIR', 17), img(msSag, 'FLAIR', 12)],
    ),
    makeCase(
      lesion(
        'lesion-stroke-01',
        'stroke',
        { age: 67, sex: 'female', onset: 'woke with symptoms', nihss: 9, history: 'hypertension; smoker' },
        'Fictional vignette. A 67-year-old woman woke up with left-sided weakness and slurred speech.',
        {
          type: 'acute ischemic infarct with restricted diffusion',
          location: 'right middle cerebral artery territory: lentiform nucleus, insula and fronto-parietal cortex and white matter',
          laterality: 'right',
          sequence: 'DWI',
          diagnosis: 'acute ischemic stroke in the right middle cerebral artery territory',
        },
      ),
      [img(stroke, 'DWI', 13), img(stroke, 'ADC', 13), img(stroke, 'FLAIR', 13)],
    ),
    makeCase(
      lesion(
        'lesion-schwannoma-01',
        'tumor',
        { age: 51, sex: 'male', onset: 'gradual over 2 years', history: 'none' },
        'Fictional vignette. A 51-year-old man has slowly progressive hearing loss and tinnitus in the right ear and mild unsteadiness.',
        {
          type: 'extra-axial, avidly enhancing mass (vestibular schwannoma)',
          location: 'cerebellopontine angle extending into the internal auditory canal',
          laterality: 'right',
          sequence: 'T1C+',
          diagnosis: 'vestibular schwannoma',
        },
      ),
      [img(schwannoma, 'T1C+', 6), img(schwannoma, 'T2', 6)],
    ),
    makeCase(
      lesion(
        'lesion-pituitary-01',
        'tumor',
        { age: 46, sex: 'male', onset: 'over 1 year', history: 'reduced libido; fatigue', prolactin: 'mildly raised (stalk effect)' },
        'Fictional vignette. A 46-year-old man bumps into door frames; the optician found loss of the outer half of the visual field in both eyes.',
        {
          type: 'enhancing sellar and suprasellar mass (pituitary macroadenoma)',
          location: 'pituitary fossa extending into the suprasellar cistern towards the optic chiasm',
          laterality: 'midline',
          sequence: 'T1C+',
          diagnosis: 'pituitary macroadenoma',
        },
      ),
      [img(pituitary, 'T1', 9), img(pituitary, 'T1C+', 9)],
    ),
  ];
}

function complexCases(): DemoCase[] {
  const tumefactive = axial(
    L.combine(
      L.tumefactivePlaque(0.3, 0.0, 0.12, 0),
      L.plaques([
        { x: -0.2, y: -0.3, len: 0.04, angle: -50 },
        { x: -0.25, y: 0.28, len: 0.035, angle: 35 },
      ]),
    ),
  );
  const cjd = axial(
    L.corticalRibbon(
      [
        { x: 0.42, y: 0.2, rx: 0.35, ry: 0.55 },
        { x: -0.45, y: -0.35, rx: 0.3, ry: 0.3 },
      ],
      true,
    ),
  );
  const aeCor: SliceDraft = {
    plane: 'coronal',
    pathology: L.encephalitis([
      { x: -0.28, y: 0.34, rx: 0.12, ry: 0.09 },
      { x: 0.28, y: 0.34, rx: 0.12, ry: 0.09 },
    ]),
  };
  const hsvAx = axial(L.encephalitis([{ x: 0.45, y: -0.18, rx: 0.2, ry: 0.3 }]), { level: 'posterior-fossa' });
  const hsvCor: SliceDraft = { plane: 'coronal', pathology: L.encephalitis([{ x: 0.4, y: 0.3, rx: 0.22, ry: 0.2 }]) };
  const nph = axial(undefined, { anatomy: { ventricles: 1.7, atrophy: 0.1 } });
  const nphSag: SliceDraft = { plane: 'sagittal', anatomy: { ventricles: 1.7 } };
  const caa = axial(L.hematoma(0.45, -0.35, 0.11, { shift: 0.2 }), { anatomy: { atrophy: 0.4 } });
  const rationale = (
    id: string,
    group: string,
    ehr: Record<string, string | number>,
    notes: string,
    diagnosis: string,
    aliases: string[],
    text: string,
  ) => ({
    id,
    split: 'complex',
    taskFamily: 'rationale-generation' as const,
    diseaseGroup: group,
    style: 'neural-medbench',
    ehr,
    notes,
    questions: [{ id: 'q1', text: RATIONALE_QUESTION, lang: 'en', reference: { diagnosis, aliases, rationale: text } }],
  });
  return [
    makeCase(
      {
        id: 'complex-tumefactive-01',
        split: 'complex',
        taskFamily: 'differential-diagnosis',
        diseaseGroup: 'multiple sclerosis',
        style: 'neural-medbench',
        ehr: { age: 33, sex: 'female', onset: 'subacute over 2 weeks', edss: 3.5, history: 'episode of leg numbness 3 years ago, not investigated' },
        notes:
          'Fictional vignette. A 33-year-old woman has had progressive right-sided clumsiness and word-finding pauses for two weeks. ' +
          'She is alert with a mild right hemiparesis; no headache, no fever. Surgery is being discussed.',
        questions: [
          {
            id: 'q1',
            text: DDX_QUESTION,
            lang: 'en',
            reference: {
              diagnosis: 'tumefactive demyelinating lesion',
              aliases: ['tumefactive multiple sclerosis', 'tumefactive MS', 'tumefactive demyelination', 'Marburg-type demyelination'],
              differential: ['tumefactive demyelinating lesion', 'high-grade glioma', 'primary CNS lymphoma', 'brain abscess', 'brain metastasis'],
              rationale:
                'A large left hemispheric white-matter lesion with an incomplete, open ring of enhancement facing the cortex and little ' +
                'mass effect for its size favours demyelination over tumour or abscess. Additional small ovoid periventricular plaques ' +
                'indicate dissemination in space, and the earlier sensory episode suggests a relapsing course. Biopsy should be ' +
                'avoided or deferred until CSF and a steroid trial are considered.',
            },
          },
        ],
      },
      [img(tumefactive, 'T1C+', 16), img(tumefactive, 'FLAIR', 16), img(tumefactive, 'DWI', 16)],
    ),
    makeCase(
      {
        id: 'complex-prion-01',
        split: 'complex',
        taskFamily: 'differential-diagnosis',
        diseaseGroup: 'prion disease',
        style: 'neural-medbench',
        ehr: { age: 67, sex: 'male', onset: 'rapidly progressive over 10 weeks', mmse: 14, history: 'none', eeg: 'periodic sharp-wave complexes' },
        notes:
          'Fictional vignette. A 67-year-old man has become forgetful, unsteady and withdrawn over ten weeks and now has sudden jerks ' +
          'of the limbs when startled. Routine blood tests and CSF cell count are normal.',
        questions: [
          {
            id: 'q1',
            text: DDX_QUESTION,
            lang: 'en',
            reference: {
              diagnosis: 'sporadic Creutzfeldt-Jakob disease',
              aliases: ['Creutzfeldt-Jakob disease', 'CJD', 'sCJD', 'prion disease'],
              differential: ['sporadic Creutzfeldt-Jakob disease', 'autoimmune encephalitis', 'Hashimoto encephalopathy', 'rapidly progressive Alzheimer disease', 'non-convulsive status epilepticus'],
              rationale:
                'Rapidly progressive dementia with startle myoclonus and periodic sharp waves suggests prion disease. Diffusion restriction ' +
                'follows the cortical ribbon in several lobes and involves both caudate and putamen, with only subtle FLAIR change, the ' +
                'typical MRI pattern of sporadic CJD; RT-QuIC in CSF would support it.',
            },
          },
        ],
      },
      [img(cjd, 'DWI', 14), img(cjd, 'ADC', 14), img(cjd, 'FLAIR', 14)],
    ),
    makeCase(
      rationale(
        'complex-encephalitis-01',
        'autoimmune encephalitis',
        { age: 61, sex: 'male', onset: 'subacute over 6 weeks', sodium_mmol_l: 127, history: 'brief jerks of the left arm and face many times a day', csf: '4 cells/uL, protein 0.5 g/L' },
        'Fictional vignette. A 61-year-old man has brief stereotyped jerks of the face and arm many times a day, then new memory loss ' +
          'and confusion over six weeks. No fever.',
        'anti-LGI1 autoimmune limbic encephalitis',
        ['LGI1 encephalitis', 'autoimmune limbic encephalitis', 'limbic encephalitis', 'anti-LGI1 encephalitis'],
        'Subacute memory loss with frequent faciobrachial dystonic seizures and hyponatraemia is the classic picture of anti-LGI1 ' +
          'encephalitis. FLAIR and T2 show bilateral swollen, hyperintense hippocampi without enhancement, in keeping with limbic ' +
          'encephalitis, and the near-normal CSF and absent fever make herpes encephalitis less likely. Serum LGI1 antibodies ' +
          'confirm it, and early immunotherapy is indicated.',
      ),
      [img(aeCor, 'FLAIR', 21), img(aeCor, 'T2', 21), img(aeCor, 'T1C+', 21)],
    ),
    makeCase(
      rationale(
        'complex-encephalitis-02',
        'CNS infection',
        { age: 52, sex: 'female', onset: 'acute over 3 days', temperature_c: 39.1, gcs: 13, csf: '86 lymphocytes/uL, protein 0.9 g/L, glucose normal' },
        'Fictional vignette. A 52-year-old woman has fever, headache and strange behaviour for three days, and this morning had a ' +
          'seizure and difficulty naming objects.',
        'herpes simplex virus encephalitis',
        ['HSV encephalitis', 'herpes simplex encephalitis', 'HSV-1 encephalitis', 'viral encephalitis'],
        'Fever, altered behaviour, aphasia and a lymphocytic CSF point to encephalitis. FLAIR hyperintensity and swelling of the left ' +
          'medial and anterior temporal lobe, with restricted diffusion, is the typical distribution of herpes simplex encephalitis. ' +
          'Aciclovir should be started at once, before the CSF HSV PCR result.',
      ),
      [img(hsvAx, 'FLAIR', 5), img(hsvAx, 'DWI', 5), img(hsvCor, 'FLAIR', 19)],
    ),
    makeCase(
      rationale(
        'complex-hydrocephalus-01',
        'other abnormalities',
        { age: 78, sex: 'male', onset: 'gradual over 1 year', mmse: 24, history: 'urinary urgency and incontinence; 3 falls this year' },
        'Fictional vignette. A 78-year-old man walks with short, shuffling, broad-based steps "as if glued to the floor", has urinary ' +
          'incontinence and has become slower in thinking over a year. No tremor.',
        'normal pressure hydrocephalus',
        ['NPH', 'idiopathic normal pressure hydrocephalus', 'iNPH', 'communicating hydrocephalus'],
        'The triad of magnetic gait, urinary incontinence and mild cognitive slowing suggests normal pressure hydrocephalus. The lateral ' +
          'ventricles are enlarged out of proportion to the cortical sulci, which is the imaging hallmark, without an obstructing lesion. ' +
          'A high-volume lumbar tap test can predict the response to shunting.',
      ),
      [img(nph, 'CT', 14), img(nph, 'FLAIR', 14), img(nphSag, 'T1', 10)],
    ),
    makeCase(
      rationale(
        'complex-hemorrhage-02',
        'stroke',
        { age: 81, sex: 'female', onset: 'sudden, 2 hours before arrival', blood_pressure: '148/82 mmHg', history: 'mild memory problems; two transient episodes of tingling spreading up the left arm', inr: 1.0 },
        'Fictional vignette. An 81-year-old woman suddenly could not move her right hand and became confused. Her blood pressure has ' +
          'always been normal.',
        'lobar intracerebral hemorrhage due to cerebral amyloid angiopathy',
        ['cerebral amyloid angiopathy', 'CAA-related hemorrhage', 'lobar hemorrhage', 'amyloid angiopathy'],
        'CT shows an acute lobar haematoma in the left frontal lobe extending towards the cortex, in an elderly normotensive ' +
          'patient with cognitive complaints. A lobar rather than deep location in this age group points to cerebral amyloid ' +
          'angiopathy; the transient spreading sensory episodes suggest convexity subarachnoid bleeding. Susceptibility imaging ' +
          'for microbleeds and superficial siderosis would support it.',
      ),
      [img(caa, 'CT', 16), img(caa, 'FLAIR', 16)],
    ),
  ];
}

function multiRoundCases(): DemoCase[] {
  const base = { plane: 'axial', seed: 424242 } as const;
  const ctEarly: SliceDraft = { ...base };
  const strokeDwi: SliceDraft = { ...base, pathology: L.territorialInfarct('MCA', -1) };
  const ring = axial(L.abscess(-0.32, 0.22, 0.1));
  const aeCor: SliceDraft = {
    plane: 'coronal',
    pathology: L.encephalitis([
      { x: -0.28, y: 0.34, rx: 0.12, ry: 0.09 },
      { x: 0.28, y: 0.34, rx: 0.11, ry: 0.08 },
    ]),
  };
  const msBefore: SliceDraft = { plane: 'axial', seed: 515151, pathology: L.periventricularPlaques() };
  const msSag: SliceDraft = { plane: 'sagittal', pathology: L.callosalPlaques() };
  const msAfter: SliceDraft = {
    plane: 'axial',
    seed: 515151,
    pathology: L.combine(L.periventricularPlaques(), L.plaques([{ x: 0.4, y: 0.05, len: 0.05, angle: 80, active: true }])),
  };
  return [
    makeCase(
      {
        id: 'multi-round-stroke-01',
        split: 'multi-round',
        taskFamily: 'multi-turn',
        diseaseGroup: 'stroke',
        style: 'neural-medbench',
        ehr: { age: 68, sex: 'female', onset: 'witnessed, 70 minutes before arrival', nihss: 14, glucose_mmol_l: 5.9, history: 'hypertension; hyperlipidaemia' },
        notes:
          'Fictional vignette. A 68-year-old woman collapsed in a shop with left-sided weakness, left facial droop and neglect of the ' +
          'left side. Image 1 is her non-contrast CT on arrival.',
        questions: [
          {
            id: 'q1',
            text: 'Look at the non-contrast CT (image 1) and the history. What is the most likely diagnosis, and what does the CT rule out?',
            lang: 'en',
            reference: {
              diagnosis: 'hyperacute ischemic stroke in the right middle cerebral artery territory',
              aliases: ['acute ischemic stroke', 'acute ischaemic stroke', 'right MCA stroke', 'cerebral infarction'],
              differential: ['acute ischemic stroke (right MCA)', 'intracerebral hemorrhage (excluded by CT)', 'Todd paralysis', 'hypoglycemia (excluded)', 'migraine with aura'],
              rationale: 'The CT shows no haemorrhage and no established infarct, which is expected within the first hours of ischaemia and permits reperfusion treatment.',
            },
            followUps: [
              {
                id: 'f1',
                text: 'An MRI was obtained 30 minutes later; image 2 is the diffusion-weighted image. What does it show?',
                images: [1],
                reference: {
                  diagnosis: 'acute ischemic stroke in the right middle cerebral artery territory',
                  lesion: { type: 'acute infarct with restricted diffusion', location: 'right MCA territory, cortex and subcortical white matter', laterality: 'right', sequence: 'DWI' },
                },
              },
              {
                id: 'f2',
                text: 'CT angiography shows occlusion of the proximal right M1 segment. She is 2 hours from onset and takes no anticoagulant. What treatment do you recommend?',
                reference: {
                  rationale:
                    'Intravenous thrombolysis without delay, since she is within 4.5 hours and CT excluded haemorrhage, and transfer for ' +
                    'mechanical thrombectomy for the large-vessel occlusion, since she is within 6 hours with a disabling deficit.',
                },
              },
            ],
          },
        ],
      },
      [img(ctEarly, 'CT', 12), img(strokeDwi, 'DWI', 12)],
    ),
    makeCase(
      {
        id: 'multi-round-infection-01',
        split: 'multi-round',
        taskFamily: 'multi-turn',
        diseaseGroup: 'CNS infection',
        style: 'neural-medbench',
        ehr: { age: 39, sex: 'male', onset: 'over 2 weeks', temperature_c: 37.9, history: 'congenital heart disease (tetralogy of Fallot, repaired in childhood)' },
        notes: 'Fictional vignette. A 39-year-old man has headache for two weeks and, since yesterday, left-sided weakness. Image 1 is a post-contrast T1 MRI.',
        questions: [
          {
            id: 'q1',
            text: 'What lesion does the post-contrast image show, and what is your differential diagnosis?',
            lang: 'en',
            reference: {
              diagnosis: 'ring-enhancing lesion: pyogenic abscess or necrotic tumour',
              differential: ['pyogenic brain abscess', 'glioblastoma', 'brain metastasis', 'tuberculoma', 'tumefactive demyelination'],
              lesion: { type: 'ring-enhancing lesion with a smooth thin wall and surrounding oedema', location: 'right parieto-occipital white matter', laterality: 'right', sequence: 'T1C+' },
            },
            followUps: [
              {
                id: 'f1',
                text: 'Image 2 is the diffusion-weighted image of the same slice. Does it change your assessment?',
                images: [1],
                reference: {
                  diagnosis: 'pyogenic brain abscess',
                  aliases: ['brain abscess', 'cerebral abscess'],
                  rationale: 'Marked restricted diffusion in the cavity indicates pus, which strongly favours abscess over a necrotic tumour, whose core does not restrict.',
                },
              },
              {
                id: 'f2',
                text: 'Blood cultures grow Streptococcus intermedius. Echocardiography shows no vegetation. What is the likely source and the management?',
                reference: {
                  diagnosis: 'pyogenic brain abscess (Streptococcus anginosus group)',
                  rationale:
                    'A paradoxical embolus through a right-to-left cardiac shunt or an odontogenic source is likely; treatment is aspiration ' +
                    'or drainage plus several weeks of intravenous antibiotics such as ceftriaxone with metronidazole.',
                },
              },
            ],
          },
        ],
      },
      [img(ring, 'T1C+', 16), img(ring, 'DWI', 16)],
    ),
    makeCase(
      {
        id: 'multi-round-encephalitis-01',
        split: 'multi-round',
        taskFamily: 'multi-turn',
        diseaseGroup: 'autoimmune encephalitis',
        style: 'neural-medbench',
        ehr: { age: 58, sex: 'female', onset: 'subacute over 4 weeks', temperature_c: 36.9, history: 'none' },
        notes: 'Fictional vignette. A 58-year-old woman has new memory loss, anxiety and two focal seizures with an odd rising feeling in the stomach over four weeks.',
        questions: [
          {
            id: 'q1',
            text: 'What do the images show, and what are the main diagnoses to consider?',
            lang: 'en',
            reference: {
              diagnosis: 'limbic encephalitis',
              differential: ['autoimmune limbic encephalitis', 'herpes simplex encephalitis', 'paraneoplastic limbic encephalitis', 'status epilepticus-related change', 'low-grade glioma'],
              lesion: { type: 'swollen, FLAIR-hyperintense hippocampi', location: 'mesial temporal lobes', laterality: 'bilateral', sequence: 'FLAIR' },
            },
            followUps: [
              {
                id: 'f1',
                text: 'CSF: 9 lymphocytes/uL, normal glucose, HSV-1/2 PCR negative twice. Sodium 126 mmol/L. How does this change the differential?',
                reference: {
                  diagnosis: 'autoimmune limbic encephalitis',
                  rationale: 'Two negative HSV PCRs with a mild CSF pleocytosis and hyponatraemia make herpes encephalitis unlikely and point to autoimmune, probably LGI1, limbic encephalitis.',
                },
              },
              {
                id: 'f2',
                text: 'Serum anti-LGI1 antibodies are positive. What is the final diagnosis?',
                reference: {
                  diagnosis: 'anti-LGI1 autoimmune limbic encephalitis',
                  aliases: ['LGI1 encephalitis', 'anti-LGI1 encephalitis', 'autoimmune limbic encephalitis'],
                },
              },
            ],
          },
        ],
      },
      [img(aeCor, 'FLAIR', 21), img(aeCor, 'T2', 21)],
    ),
    makeCase(
      {
        id: 'multi-round-ms-01',
        split: 'multi-round',
        taskFamily: 'multi-turn',
        diseaseGroup: 'multiple sclerosis',
        style: 'neural-medbench',
        ehr: { age: 26, sex: 'female', onset: 'acute over 3 days', edss: 1.5, history: 'none', csf_oligoclonal_bands: 'not done' },
        notes: 'Fictional vignette. A 26-year-old woman has double vision for three days (right internuclear ophthalmoplegia). This is her first neurological episode.',
        questions: [
          {
            id: 'q1',
            text: 'What do the FLAIR images show, and what is the diagnosis at this point?',
            lang: 'en',
            reference: {
              diagnosis: 'clinically isolated syndrome suggestive of multiple sclerosis',
              aliases: ['CIS', 'clinically isolated syndrome', 'radiologically suggestive CIS'],
              differential: ['clinically isolated syndrome (demyelinating)', 'multiple sclerosis', 'neuromyelitis optica spectrum disorder', 'MOG antibody-associated disease', 'small vessel disease'],
              lesion: { type: 'ovoid periventricular and callosal plaques', location: 'periventricular white matter and corpus callosum', laterality: 'bilateral', sequence: 'FLAIR' },
            },
            followUps: [
              {
                id: 'f1',
                text: 'A follow-up MRI three months later includes a post-contrast T1 image (image 3). What has changed, and what is the diagnosis now?',
                images: [2],
                reference: {
                  diagnosis: 'relapsing-remitting multiple sclerosis',
                  aliases: ['multiple sclerosis', 'MS', 'RRMS'],
                  rationale: 'A new enhancing lesion next to older non-enhancing plaques shows dissemination in time, which, with dissemination in space, fulfils the McDonald criteria for multiple sclerosis.',
                },
              },
            ],
          },
        ],
      },
      [img(msBefore, 'FLAIR', 17), img(msSag, 'FLAIR', 12), img(msAfter, 'T1C+', 17)],
    ),
  ];
}

export function depthCases(): DemoCase[] {
  return [...directCases(), ...lesionCases(), ...complexCases(), ...multiRoundCases()];
}
