/**
 * Prompt pieces shared by the Neural-MedBench protocols. The paper's English
 * prompts are not public (only the Chinese question texts are), so these are
 * NeuroEval's own wording: the question text itself is always sent verbatim.
 */

/** System prompt of the depth (case-based) protocols. */
export const NMB_SYSTEM =
  'You are an experienced neurologist with expertise in neuroradiology. You are given a patient case: clinical ' +
  'information and brain imaging (MRI or CT; when there are several images they are given in order as image 1, ' +
  'image 2, …). Base your answer on what the images and the record actually show; do not invent findings.';

/** Clinical block, image count and the question, as the first lines of a user turn. */
export const NMB_CASE_BLOCK =
  '{{#clinical}}Clinical information:\n{{clinical}}\n\n{{/clinical}}' +
  '{{#imageCount}}Images: {{imageCount}}, in order.\n\n{{/imageCount}}' +
  'Question: {{question}}\n\n';

/** The JSON shape of one ranked hypothesis, as shown to the model. */
export const HYPOTHESIS_EXAMPLE = '{"diagnosis": "...", "confidence": 0.0, "evidence": "..."}';
