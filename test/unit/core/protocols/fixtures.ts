/**
 * Recorded-style model outputs and small cases for the protocol tests. The
 * outputs are written the way local and API VLMs actually answer: valid JSON,
 * JSON in prose or fences, reasoning blocks, truncation at the token limit,
 * wrong types, extra keys, Chinese answers, every MCQ answer form.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BenchCase, CaseImage, QuestionOption } from '../../../../src/core/bundle/types.ts';

/**
 * Files of the public ChatMED/neurovlm-bench repository, kept beside this
 * repository at ../shared/reference/neurovlm-bench (never copied into it).
 */
export const NVB_DIR = new URL('../../../../../shared/reference/neurovlm-bench/', import.meta.url);

export function referenceBytes(name: string): Uint8Array {
  return new Uint8Array(readFileSync(fileURLToPath(new URL(name, NVB_DIR))));
}

function image(n: number, sequence: string): CaseImage {
  const sha256 = n.toString(16).padStart(64, '0');
  return { path: sha256, sha256, mime: 'image/png', sequence };
}

// ── Cases ────────────────────────────────────────────────────────────────────

export function nvbCase(id = 'images-17/glioma T2/glioma (63).jpg', cls = 'tumor'): BenchCase {
  return {
    id,
    split: 'subset_sample',
    taskFamily: 'classification',
    diseaseGroup: cls,
    images: [image(1, 'T2')],
    questions: [{ id: 'q1', text: 'Classify this head scan.', reference: { labels: { diagnosis_name: cls, diagnosis_detailed: 'glioma', modality: 'MRI', specialized_sequence: 'T2', plane: 'axial' } } }],
  };
}

/** A parsed few-shot CSV: [class, file_path] per row, in file order. */
export function parseFewShotCsv(text: string): [string, string][] {
  const rows = text.trim().split(/\r?\n/).slice(1);
  return rows.map((line) => {
    const cells = [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g)].map((m) => m[1]!.replace(/^"|"$/g, '').replace(/""/g, '"'));
    return [cells[0]!, cells[6]!];
  });
}

export function fewShotCase(i: number, cls: string, filePath: string): BenchCase {
  return {
    id: `few-shot/${filePath}`,
    split: 'few-shot',
    taskFamily: 'classification',
    diseaseGroup: cls,
    images: [image(100 + i, 'FLAIR')],
    questions: [{ id: 'q1', text: 'Classify this head scan.', reference: { labels: { diagnosis_name: cls } } }],
  };
}

export const NMB_CASE: BenchCase = {
  id: 'case_7',
  split: 'complex',
  taskFamily: 'differential-diagnosis',
  notes: 'A 34-year-old woman with two episodes of blurred vision in the right eye and numbness of both legs over 18 months.',
  ehr: { age: 34, sex: 'female', edss: 2.5, smoker: false, csf_oligoclonal_bands: null },
  images: [image(11, 'FLAIR'), image(12, 'DWI'), image(13, 'T1C+')],
  questions: [{ id: '1', text: '根据患者的症状和图片,对疾病进行诊断', lang: 'zh' }],
};

export const MULTI_ROUND_CASE: BenchCase = {
  id: 'multi-round-stroke-01',
  split: 'multi-round',
  taskFamily: 'multi-turn',
  notes: 'A 68-year-old woman collapsed with left-sided weakness. Image 1 is her non-contrast CT on arrival.',
  images: [image(21, 'CT'), image(22, 'DWI'), image(23, 'CTA')],
  questions: [
    {
      id: 'q1',
      text: 'What is the most likely diagnosis, and what does the CT rule out?',
      followUps: [
        { id: 'f1', text: 'Image 2 is the diffusion-weighted image obtained 30 minutes later. What does it show?', images: [1] },
        { id: 'f2', text: 'She is 2 hours from onset and takes no anticoagulant. What treatment do you recommend?' },
        { id: 'f3', text: 'Image 3 is the CT angiogram. Does it change your plan?', images: [2] },
      ],
    },
  ],
};

export const MCQ_OPTIONS: QuestionOption[] = [
  { key: 'A', text: 'Lesions confined to the basal ganglia' },
  { key: 'B', text: 'Smooth symmetric periventricular caps' },
  { key: 'C', text: 'Ovoid lesions of the corpus callosum oriented perpendicular to the ventricles' },
  { key: 'D', text: 'Cortical ribbon hyperintensity' },
];

export const MCQ_CASE: BenchCase = {
  id: 'mcq-ms-01',
  split: 'vqa',
  taskFamily: 'multiple-choice',
  images: [image(31, 'FLAIR'), image(32, 'T2'), image(33, 'T1')],
  questions: [{ id: 'q1', text: 'Which feature most supports multiple sclerosis rather than small-vessel disease?', options: MCQ_OPTIONS, reference: { answer: 'C' } }],
};

export const ZH_OPTIONS: QuestionOption[] = [
  { key: 'A', text: '急性脑出血' },
  { key: 'B', text: '急性脑梗死' },
  { key: 'C', text: '脑膜瘤' },
  { key: 'D', text: '蛛网膜囊肿' },
];

export const RUBRIC_CASE: BenchCase = {
  id: 'rubric-hemorrhage-01',
  taskFamily: 'open-question',
  images: [image(41, 'CT')],
  questions: [
    {
      id: 'q1',
      text: 'Write a short report of this non-contrast head CT.',
      reference: { rubric: [{ id: 'r1', text: 'Identifies an intraparenchymal haemorrhage', points: 5 }, { id: 'r2', text: 'Recommends thrombolysis', points: -5 }] },
    },
  ],
};

// ── NeuroVLM-Bench outputs ──────────────────────────────────────────────────

export const NVB_VALID = `{
  "modality": "MRI",
  "specialized_sequence": "T2",
  "plane": "axial",
  "diagnosis_name": "tumor",
  "diagnosis_detailed": "glioma",
  "icd10_code": "C71.9",
  "severity_score": 0.7,
  "diagnosis_confidence": 0.86,
  "severity_confidence": 0.74
}`;

export const NVB_PROSE = `Here is the structured interpretation of the uploaded head scan:

{"modality": "CT", "specialized_sequence": null, "plane": "axial", "diagnosis_name": "stroke", "diagnosis_detailed": "hemorrhagic", "icd10_code": "I61.9", "severity_score": 0.55, "diagnosis_confidence": 0.91, "severity_confidence": 0.8}

The hyperdense collection in the right basal ganglia is consistent with an acute intracerebral haemorrhage.`;

export const NVB_FENCED = '```json\n' + NVB_VALID + '\n```';

export const NVB_THINK = `<think>
The image is grey-scale with bright CSF, so it is T2-weighted. There is a mass in the left temporal lobe; {glioma vs meningioma}? The mass is intra-axial, so glioma.
</think>
${NVB_VALID}`;

export const NVB_UNTERMINATED_THINK = `<think>
Okay, let me look at this scan. The skull is bright and the brain is grey, which suggests CT. There is a hypodense area in the left MCA territory, so this could be an ischemic stroke. Let me check the plane: the orbits are visible, so it is axial. Now the severity: the lesion covers about a third of the`;

export const NVB_TRUNCATED = `{
  "modality": "MRI",
  "specialized_sequence": "T1C+",
  "plane": "coronal",
  "diagnosis_name": "tumor",
  "diagnosis_detailed": "mening`;

export const NVB_WRONG_TYPES = `{"modality": "MRI", "specialized_sequence": "FLAIR", "plane": "sagittal", "diagnosis_name": "multiple sclerosis", "diagnosis_detailed": null, "icd10_code": "G35", "severity_score": "0.4", "diagnosis_confidence": 90, "severity_confidence": "high"}`;

export const NVB_EXTRA_KEYS = `{"modality": "MRI", "specialized_sequence": "T1", "plane": "axial", "diagnosis_name": "normal", "diagnosis_detailed": null, "severity_score": null, "diagnosis_confidence": 0.8, "severity_confidence": 0.6, "findings": "No focal lesion.", "recommendation": "none"}`;

export const NVB_TWO_OBJECTS = `{"modality": "CT", "diagnosis_name": "stroke"}
Alternatively, if the image is MRI: {"modality": "MRI", "diagnosis_name": "tumor"}`;

export const NVB_PYTHON_DICT = `{'modality': 'MRI', 'specialized_sequence': 'T2', 'plane': 'axial', 'diagnosis_name': 'normal', 'diagnosis_detailed': None}`;

export const NVB_REFUSAL = "I'm sorry, but I can't provide a medical diagnosis from this image. Please consult a qualified radiologist.";

// ── Neural-MedBench differential outputs ────────────────────────────────────

export const DDX_VALID = `{
  "differential": [
    {"diagnosis": "Relapsing-remitting multiple sclerosis", "confidence": 0.78, "evidence": "Ovoid periventricular FLAIR lesions perpendicular to the ventricles; optic neuritis history"},
    {"diagnosis": "Neuromyelitis optica spectrum disorder", "confidence": 0.12, "evidence": "Optic neuritis and myelopathy, but lesions are not longitudinally extensive"},
    {"diagnosis": "Acute disseminated encephalomyelitis", "confidence": 0.06, "evidence": "Multifocal lesions, but the course is relapsing"}
  ]
}`;

export const DDX_PROSE = `Based on the FLAIR, DWI and post-contrast T1 images together with the relapsing history, here is my assessment.

{"differential": [{"diagnosis": "Multiple sclerosis", "confidence": 0.8, "evidence": "Dawson fingers on FLAIR"}, {"diagnosis": "Small-vessel disease", "confidence": 0.1, "evidence": "White-matter lesions"}]}

These findings should be correlated with CSF oligoclonal bands.`;

export const DDX_FENCED = 'Differential diagnosis:\n```json\n' + DDX_VALID + '\n```\nLet me know if you need the reasoning.';

export const DDX_THINK_FENCED = `<think>
The FLAIR shows periventricular lesions. In JSON I should write {"diagnosis": ...}. Options: MS, NMOSD, ADEM, small vessel disease.
</think>

\`\`\`json
{"differential": [{"diagnosis": "Multiple sclerosis", "confidence": 0.7, "evidence": "periventricular ovoid lesions"}]}
\`\`\``;

export const DDX_ORPHAN_CLOSE = `The patient is young with optic neuritis... lesions are periventricular, so MS is most likely.
</think>

{"differential": [{"diagnosis": "Multiple sclerosis", "confidence": 0.75, "evidence": "Dissemination in space and time"}]}`;

export const DDX_UNTERMINATED = `<think>
Let me think about this case. Young woman, optic neuritis, leg numbness. The FLAIR shows ovoid lesions. Differential: 1. MS 2. NMOSD 3.`;

export const DDX_TRUNCATED = `\`\`\`json
{
  "differential": [
    {"diagnosis": "Multiple sclerosis", "confidence": 0.72, "evidence": "Periventricular and juxtacortical lesions"},
    {"diagnosis": "NMOSD", "confidence": 0.15, "evidence": "Optic neuritis"},
    {"diagnosis": "Susac syndrome", "confidence": 0.05, "evidence": "Corpus callosum lesions, but no hearing loss or branch retinal art`;

export const DDX_WRONG_TYPES = `{"differential": [
  {"rank": 2, "diagnosis": "Neuromyelitis optica", "confidence": "0.2", "evidence": ["optic neuritis", "myelitis"]},
  {"rank": 1, "diagnosis": "Multiple sclerosis", "confidence": 90, "evidence": "Dawson fingers"},
  {"rank": 3, "diagnosis": "ADEM", "confidence": "high", "evidence": 42}
]}`;

export const DDX_EXTRA_KEYS = `{"differential": [{"diagnosis": "Glioblastoma", "confidence": 0.65, "evidence": "Ring enhancement with central necrosis", "icd10": "C71.9"}, {"diagnosis": "Brain abscess", "confidence": 0.25, "evidence": "Ring enhancement"}], "next_steps": ["MR spectroscopy", "DWI"], "urgency": "high"}`;

export const DDX_TOP_ARRAY = `[{"diagnosis": "Alzheimer disease", "confidence": 0.7, "evidence": "Bilateral hippocampal atrophy"}, {"diagnosis": "Frontotemporal dementia", "confidence": 0.2, "evidence": "Frontal atrophy is mild"}]`;

export const DDX_SINGLE_OBJECT = `{"diagnosis": "Autoimmune encephalitis", "confidence": 0.6, "evidence": "Bilateral mesial temporal FLAIR hyperintensity with subacute memory loss"}`;

export const DDX_CHINESE_JSON = `{"differential": [
  {"diagnosis": "阿尔茨海默病", "confidence": 0.72, "evidence": "双侧海马及内侧颞叶萎缩，进行性记忆减退"},
  {"diagnosis": "血管性痴呆", "confidence": 0.18, "evidence": "脑室旁白质高信号"},
  {"diagnosis": "路易体痴呆", "confidence": 0.06, "evidence": "波动性认知障碍证据不足"}
]}`;

export const DDX_CHINESE_LIST = `根据患者的症状和影像学表现，鉴别诊断如下：
1. 阿尔茨海默病——双侧海马及内侧颞叶萎缩，进行性记忆减退（可能性 70%）
2、血管性痴呆：脑室旁白质高信号
3. 路易体痴呆，依据：波动性认知障碍

建议完善脑脊液检查。`;

export const DDX_NUMBERED = `Key findings: restricted diffusion in the right MCA territory with no haemorrhage on CT.

Differential diagnosis:
1. **Acute ischemic stroke (right MCA territory)** — restricted diffusion on DWI matching the deficit (confidence 0.85)
2. **Todd paralysis** – no seizure reported; DWI would be normal
   - Evidence: transient deficit after seizures
3. Hemiplegic migraine - young patients, aura
4) Hypoglycemia: excluded by glucose 5.9 mmol/L`;

export const DDX_SIX = `{"differential": [{"diagnosis": "Glioblastoma"}, {"diagnosis": "Metastasis"}, {"diagnosis": "Abscess"}, {"diagnosis": "Lymphoma"}, {"diagnosis": "Tumefactive demyelination"}, {"diagnosis": "Subacute infarct"}]}`;

export const DDX_DIAGNOSIS_LINE = 'The MRI shows bilateral mesial temporal hyperintensity.\n\n**Most likely diagnosis:** Limbic encephalitis. Further CSF tests are advised.';

export const DDX_REFUSAL = 'I am an AI language model and cannot evaluate medical images or provide diagnoses.';

// ── Lesion, review, multi-round outputs ─────────────────────────────────────

export const LESION_VALID = `{"lesion_type": "Acute infarct with restricted diffusion", "location": "Right MCA territory, insula and frontal operculum", "laterality": "Right", "sequence": "DWI"}`;

export const LESION_CHINESE = '```json\n{"lesion_type": "急性脑梗死", "location": "右侧大脑中动脉供血区", "laterality": "右侧", "sequence": "DWI"}\n```';

export const LESION_ODD_LATERALITY = `{"lesion_type": "Ring-enhancing lesion", "location": "parieto-occipital white matter", "laterality": "left > right", "sequence": "T1C+"}`;

export const LESION_PARTIAL = `The lesion: {"lesion_type": "Demyelinating plaque", "location": "corpus callosum", "laterality": "midline"}`;

export const REVIEW_VALID = `{"anatomy": "Axial FLAIR at the level of the lateral ventricles", "key_findings": ["Ovoid periventricular hyperintensities", "Juxtacortical lesion in the left frontal lobe"], "sequence_recognition": "MRI FLAIR, DWI and post-contrast T1", "diagnostic_hypotheses": [{"diagnosis": "Multiple sclerosis", "confidence": 0.8, "evidence": "Dawson fingers"}, {"diagnosis": "Small-vessel disease", "confidence": 0.1, "evidence": "Age argues against"}], "confidence": 0.8}`;

export const REVIEW_WRONG_TYPES = `{"anatomy": "Brain, axial", "key_findings": "No acute abnormality", "sequence_recognition": ["T2", "FLAIR"], "diagnostic_hypotheses": ["Normal study"], "confidence": "85%"}`;

export const MR_TURN_1 = `<think>CT shows no bleed.</think>{"answer": "No haemorrhage on CT; hyperacute ischemic stroke is most likely.", "differential": [{"diagnosis": "Acute ischemic stroke", "confidence": 0.7, "evidence": "Sudden left hemiparesis, CT negative"}, {"diagnosis": "Intracerebral haemorrhage", "confidence": 0.05, "evidence": "Excluded by CT"}]}`;

export const MR_TURN_2 = `{"answer": "DWI shows restricted diffusion in the right MCA territory, confirming an acute infarct.", "differential": [{"diagnosis": "Acute ischemic stroke, right MCA", "confidence": 0.95, "evidence": "Restricted diffusion"}]}`;

export const MR_TURN_3 = `She should receive IV thrombolysis now and be assessed for thrombectomy.

1. Acute ischemic stroke (right MCA) — within 4.5 hours, no haemorrhage`;

// ── Multiple-choice outputs (options A–D; the key is C) ─────────────────────

export const MCQ_OUTPUTS = {
  boxed: 'The lesions are ovoid and perpendicular to the ventricles (Dawson fingers).\n\nThe final answer is $\\boxed{C}$',
  boxedText: '**Final Answer**\n\n\\[ \\boxed{\\text{C}} \\]',
  boxedNotOption: 'Between the choices I lean to \\boxed{E}.\nAnswer: C',
  answerLine: 'Periventricular caps are common in small-vessel disease, whereas callosal ovoid lesions are typical of MS.\nAnswer: C',
  finalAnswerBold: '**Final Answer:** C. Ovoid lesions of the corpus callosum oriented perpendicular to the ventricles',
  answerParen: 'Answer: (C)',
  answerLower: 'answer: c',
  answerIs: 'After reviewing all images, the correct answer is C because of the callosal involvement.',
  paren: 'I would choose (C), since callosal lesions are rare in small-vessel disease.',
  lineStart: 'C. Ovoid lesions of the corpus callosum oriented perpendicular to the ventricles',
  lineStartParen: 'C) callosal lesions',
  optionText: 'The image shows ovoid lesions of the corpus callosum oriented perpendicular to the ventricles, which is typical.',
  bare: 'C',
  think: '<think>Option (A) is basal ganglia, (B) is caps, (D) is cortex. So the answer should be C.</think>\nAnswer: C',
  echo: 'A. Lesions confined to the basal ganglia\nB. Smooth symmetric periventricular caps\nC. Ovoid lesions of the corpus callosum oriented perpendicular to the ventricles\nD. Cortical ribbon hyperintensity',
  echoThenLetter: 'A. Lesions confined to the basal ganglia\nB. Smooth symmetric periventricular caps\nC. Ovoid lesions of the corpus callosum oriented perpendicular to the ventricles\nD. Cortical ribbon hyperintensity\n\nI pick C',
  ambiguousLetters: 'It is either A or B.',
  ambiguousParens: 'Both (B) and (C) could fit, but (C) is more specific.',
  ambiguousText: 'Ovoid lesions of the corpus callosum oriented perpendicular to the ventricles and cortical ribbon hyperintensity are both present.',
  notAnOption: 'Answer: E',
  invalid: 'I cannot determine the answer from these images alone.',
  none: 'None of the options is correct.',
  empty: '   ',
  unterminated: '<think>Let me compare (A) and (C). The callosal lesions',
} as const;

export const MCQ_ZH_OUTPUTS = {
  marker: '该CT平扫显示右侧基底节区高密度影。\n答案：A',
  optionText: '该头颅CT平扫图像显示右侧基底节区类圆形高密度影，周围可见低密度水肿带，最符合急性脑出血。',
} as const;

export const DDX_FINDINGS_LIST = `Findings:
1. Bilateral mesial temporal FLAIR hyperintensity
2. No enhancement after contrast

Diagnosis: Autoimmune limbic encephalitis. Anti-LGI1 antibodies should be tested.`;

export const DDX_BRACES_IN_PROSE = `The pattern {periventricular, juxtacortical} fits.
{"differential": [{"diagnosis": "Multiple sclerosis", "confidence": 0.7, "evidence": "Dissemination in space"}]}
Note: {'other': None}`;
