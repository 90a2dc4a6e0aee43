/**
 * The scale reviewers rate a model's stated reasoning on, so ratings from
 * different clinicians mean the same thing (and quadratic κ between them is
 * meaningful).
 */
export const RATIONALE_RUBRIC: readonly { readonly score: number; readonly label: string; readonly description: string }[] = [
  { score: 1, label: 'Unsafe or wrong', description: 'Reasoning is wrong, invented or would mislead care.' },
  { score: 2, label: 'Major gaps', description: 'Key findings missed or misread; the conclusion does not follow.' },
  { score: 3, label: 'Acceptable', description: 'Main findings right, with gaps or weak links a resident would be corrected on.' },
  { score: 4, label: 'Good', description: 'Correct findings and inference, minor omissions only.' },
  { score: 5, label: 'Expert', description: 'Complete, precise and well weighed, as an attending neuroradiologist would write it.' },
];
