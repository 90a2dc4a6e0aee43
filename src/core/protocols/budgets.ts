/**
 * Answer budgets: how many tokens each protocol's answer format needs.
 *
 * Every protocol has example answers of its own format at full length (the
 * NeuroVLM-Bench prompt's own output example, five-hypothesis differentials
 * with evidence, a few paragraphs of rationale…). Its budget is the longest
 * of them in tokens of the catalogue models' tokenizers (Gemma 3 for
 * MedGemma and Gemma, Qwen for Qwen-VL, Llama 2 for Phi-3.5-vision) times
 * 1.25 for headroom, rounded up to a multiple of 32. A unit test
 * (test/unit/core/protocols/budgets.test.ts) tokenizes the examples and fails when
 * a budget is too small for them, or far larger than they need. The run form
 * shows the budget and lets the user change it; answers that hit it are
 * marked truncated.
 */
import { NEUROVLM_PROMPT } from './neurovlm/prompt.ts';
import type { ProtocolId } from './types.ts';

export interface AnswerBudget {
  /** Tokens the answer may use (the request's `maxTokens`). */
  readonly tokens: number;
  /** Full-length answers in the protocol's own format, the budget's basis. */
  readonly examples: readonly string[];
}

/** Headroom over the longest example, as a factor. */
export const BUDGET_HEADROOM = 1.25;

/** The output example the NeuroVLM-Bench prompt itself gives ("OUTPUT EXAMPLE 1"), verbatim. */
export function neuroVlmPromptExample(): string {
  const start = NEUROVLM_PROMPT.indexOf('{', NEUROVLM_PROMPT.indexOf('OUTPUT EXAMPLE 1'));
  const end = NEUROVLM_PROMPT.indexOf('}', start);
  if (start < 0 || end < 0) throw new Error('The NeuroVLM-Bench prompt has no output example.');
  return NEUROVLM_PROMPT.slice(start, end + 1);
}

/** The longest values the NeuroVLM-Bench schema allows, in a fenced block as chat models often answer. */
const NEUROVLM_LONGEST =
  '```json\n{\n  "modality": "MRI",\n  "specialized_sequence": "T1C+",\n  "plane": "coronal",\n' +
  '  "diagnosis_name": "other abnormalities",\n  "diagnosis_detailed": "pituitary_tumor",\n  "icd10_code": "D35.2",\n' +
  '  "severity_score": 0.65,\n  "diagnosis_confidence": 0.92,\n  "severity_confidence": 0.81\n}\n```';

const HYPOTHESES = [
  ['Glioblastoma, IDH-wildtype', 0.55, 'Irregular ring-enhancing mass with central necrosis crossing the corpus callosum, extensive surrounding T2/FLAIR hyperintensity and mass effect in a 62-year-old with progressive headache and left hemiparesis.'],
  ['Primary CNS lymphoma', 0.2, 'Periventricular location and involvement of the corpus callosum; against it, the necrotic centre and the absence of immunosuppression, and lymphoma usually enhances homogeneously.'],
  ['Brain metastasis', 0.12, 'Ring enhancement with vasogenic oedema in an older patient; against it, a single lesion and no known primary tumour on the record.'],
  ['Pyogenic brain abscess', 0.08, 'Ring-enhancing lesion with oedema; against it, no fever or raised inflammatory markers, and the enhancing wall is thick and irregular rather than smooth.'],
  ['Tumefactive demyelination', 0.05, 'Large lesion with mass effect can mimic tumour; against it, the age, no open-ring enhancement and no other white-matter lesions.'],
] as const;

const hypothesesJson = (indent: string) =>
  HYPOTHESES.map(([d, c, e]) => `${indent}{"diagnosis": "${d}", "confidence": ${c}, "evidence": "${e}"}`).join(',\n');

const DIFFERENTIAL = `{"differential": [\n${hypothesesJson('  ')}\n]}`;

const LESION =
  '{"lesion_type": "acute ischaemic infarct with restricted diffusion", "location": "left middle cerebral artery territory, ' +
  'insular cortex and posterior frontal operculum, extending into the corona radiata", "laterality": "left", "sequence": "DWI with ADC map"}';

const REVIEW =
  '{"anatomy": "Supratentorial brain at the level of the lateral ventricles, axial plane",\n' +
  ' "key_findings": ["Irregular ring-enhancing mass in the right frontal lobe, about 4 cm", "Central necrosis", ' +
  '"Extensive surrounding FLAIR hyperintensity", "Midline shift of 6 mm to the left", "Involvement of the genu of the corpus callosum"],\n' +
  ' "sequence_recognition": "Image 1: MRI axial T1 after gadolinium; image 2: MRI axial FLAIR; image 3: MRI axial DWI",\n' +
  ` "diagnostic_hypotheses": [\n${hypothesesJson('  ')}\n ],\n` +
  ' "confidence": 0.55}';

const RATIONALE = [
  'The key imaging finding is an irregular, thick-walled ring-enhancing mass in the right frontal lobe with central necrosis, ' +
    'crossing the genu of the corpus callosum, with extensive surrounding FLAIR hyperintensity and 6 mm of midline shift. ' +
    'Diffusion is not restricted in the necrotic centre. Clinically, a 62-year-old presents with three weeks of progressive ' +
    'headache, personality change and a new left hemiparesis, without fever or a known cancer.',
  'Together these point to a high-grade glial tumour, most likely glioblastoma: the age, the necrotic ring with irregular ' +
    'nodular enhancement, the butterfly extension across the corpus callosum and the infiltrative oedema are its typical ' +
    'pattern, and the subacute progressive course fits a rapidly growing intra-axial mass.',
  'Against the main alternatives: primary CNS lymphoma usually enhances homogeneously and restricts diffusion, and necrosis ' +
    'is unusual without immunosuppression. A single metastasis is possible, but there is no known primary and metastases rarely ' +
    'cross the corpus callosum. An abscess would show a smooth, thin wall and restricted diffusion in its cavity, with signs ' +
    'of infection. Tumefactive demyelination is less likely at this age and with a necrotic, nodular ring. Tissue diagnosis ' +
    'by biopsy or resection is needed to confirm the diagnosis and its molecular subtype.',
].join('\n\n');

const MCQ =
  'The image shows a hyperdense crescent-shaped collection along the right cerebral convexity that crosses the coronal ' +
  'suture but not the midline, with mass effect on the right lateral ventricle. A crescent that crosses suture lines is a ' +
  'subdural haematoma, while an epidural haematoma is lens-shaped and limited by sutures; subarachnoid blood would follow ' +
  'the sulci and cisterns. The hyperdensity means the blood is acute.\nAnswer: B';

const FREE_TEXT =
  'The findings are most consistent with relapsing-remitting multiple sclerosis: several ovoid periventricular T2/FLAIR ' +
  'lesions perpendicular to the ventricles (Dawson fingers), a juxtacortical lesion and an infratentorial lesion, one of them ' +
  'enhancing, which shows dissemination in space and in time by the 2017 McDonald criteria. Next steps are a spinal cord MRI, ' +
  'cerebrospinal fluid analysis for oligoclonal bands, and tests to exclude mimics (aquaporin-4 and MOG antibodies, vitamin B12, ' +
  'infection serology). Acute relapses are treated with high-dose methylprednisolone after excluding infection, and a ' +
  'disease-modifying therapy should be discussed early with the patient, taking pregnancy plans and comorbidities into account. ' +
  'Red flags that would argue against MS include a progressive course from onset in an older patient, meningeal enhancement, ' +
  'or lesions sparing the periventricular white matter.';

/** A short answer as lmms-eval asks for one (it allows 32 new tokens); a model that adds a sentence still fits. */
const SHORT_ANSWER = 'Yes, a hyperintense lesion in the left frontal lobe near the lateral ventricle.';

/** MedCalc-Bench's zero-shot JSON: the reasoning, then the answer. */
const NUMERIC =
  '{"step_by_step_thinking": "The Cockcroft-Gault equation is CrCl = (140 - age) x adjusted weight x (0.85 if female) / (72 x serum creatinine). ' +
  'The patient is a 67-year-old woman weighing 72 kg, 165 cm tall, so her BMI is 26.4 and the adjusted body weight is used: ideal body weight ' +
  '57.0 kg, adjusted weight 57.0 + 0.4 x (72 - 57.0) = 63.0 kg. Her serum creatinine is 1.3 mg/dL. CrCl = (140 - 67) x 63.0 x 0.85 / (72 x 1.3) ' +
  '= 3909.2 / 93.6 = 41.77 mL/min.", "answer": "41.77"}';

/** A box with a short label, as grounding models write one. */
const BOX = 'The lesion lies in the right parietal lobe: [412, 188, 506, 279]';

/** The budget of each protocol. The numbers are checked against the examples by the budgets test. */
export const ANSWER_BUDGETS: Readonly<Record<ProtocolId, AnswerBudget>> = {
  'neurovlm-structured': { tokens: 192, examples: [neuroVlmPromptExample(), NEUROVLM_LONGEST] },
  'nmb-differential': { tokens: 480, examples: [DIFFERENTIAL] },
  'nmb-lesion': { tokens: 96, examples: [LESION] },
  'nmb-rationale': { tokens: 448, examples: [RATIONALE] },
  // Each turn answers with an updated differential.
  'nmb-multi-round': { tokens: 480, examples: [DIFFERENTIAL] },
  'structured-review': { tokens: 704, examples: [REVIEW] },
  mcq: { tokens: 160, examples: [MCQ] },
  rubric: { tokens: 288, examples: [FREE_TEXT] },
  'open-question': { tokens: 288, examples: [FREE_TEXT] },
  'short-answer': { tokens: 32, examples: [SHORT_ANSWER] },
  numeric: { tokens: 320, examples: [NUMERIC] },
  box: { tokens: 48, examples: [BOX] },
};

/** The budget of a protocol id (an unknown id gets the largest, so nothing is cut by surprise). */
export function answerBudget(protocolId: string): number {
  const b = ANSWER_BUDGETS[protocolId as ProtocolId];
  return b ? b.tokens : Math.max(...Object.values(ANSWER_BUDGETS).map((x) => x.tokens));
}
