/**
 * Whose definition each reported figure follows: a benchmark's own (the
 * metric as the benchmark defines it, so the name means what the benchmark
 * means by it) or NeuroEval's (an addition, or a benchmark's metric computed
 * where the benchmark leaves something open). The results page and the HTML
 * report show it beside every figure; docs/protocols.md#whose-definition-each-figure-follows
 * lists the same table.
 */

export interface MetricDefinition {
  /** `benchmark`: the benchmark's definition exactly; `neuroeval`: NeuroEval's own. */
  readonly origin: 'benchmark' | 'neuroeval';
  /** The benchmark whose definition a `benchmark` figure follows. */
  readonly benchmark?: string;
  /** One sentence: what the figure is, and what differs from the benchmark's where it is NeuroEval's. */
  readonly note: string;
}

const NMB = 'Neural-MedBench';

/** What pass@k does not take from the benchmark: its grader, and (unpublished) how it scores a dialogue. */
const NMB_DIFFERS =
  "Decided by rules and the local judge, not the paper's GPT-4o grader. In a dialogue, the last turn with a reference diagnosis: NeuroEval's choice, as the benchmark does not publish how it scores dialogues.";

const own = (note: string): MetricDefinition => ({ origin: 'neuroeval', note });
const theirs = (benchmark: string, note: string): MetricDefinition => ({ origin: 'benchmark', benchmark, note });

const BERTSCORE = own(
  "Neural-MedBench reports BERTScore on free text but does not publish its encoder or rescaling: NeuroEval's encoder (named with the value) gives figures not comparable with the leaderboard's. A dialogue's value is the mean over its turns with a reference rationale; a differential's free text is its reply, else its hypotheses with their evidence.",
);
const LESION = own('Neural-MedBench names lesion recognition but publishes no metric for it: each field is matched on its own by NeuroEval\'s rules.');

const DEFINITIONS: Readonly<Record<string, MetricDefinition>> = {
  'pass@1': theirs(NMB, `The top-ranked hypothesis is the reference diagnosis. ${NMB_DIFFERS}`),
  'pass@5': theirs(NMB, `One of the top five ranked hypotheses is the reference diagnosis: NeuroEval's reading, as the public sources do not say whether the five are ranked hypotheses or samples. ${NMB_DIFFERS}`),
  'pass@1 (samples)': own('Chen et al.\'s unbiased estimator over several samples per question; NeuroEval reads Neural-MedBench\'s pass@k as over the ranked list.'),
  'pass@5 (samples)': own('Chen et al.\'s unbiased estimator over several samples per question; NeuroEval reads Neural-MedBench\'s pass@k as over the ranked list.'),
  'bertscore.f': BERTSCORE,
  'bertscore.p': BERTSCORE,
  'bertscore.r': BERTSCORE,
  cosine: own('Cosine of mean-pooled sentence vectors from NeuroEval\'s encoder.'),
  rougeL: own('ROUGE-L F as Google\'s rouge_score computes it, with stemming: an addition to the benchmark\'s figures.'),
  rouge1: own('ROUGE-1 F as Google\'s rouge_score computes it, with stemming: an addition to the benchmark\'s figures.'),
  rouge2: own('ROUGE-2 F as Google\'s rouge_score computes it, with stemming: an addition to the benchmark\'s figures.'),
  rougeLsum: own('ROUGE-Lsum F as Google\'s rouge_score computes it, with stemming: an addition to the benchmark\'s figures.'),
  token_f1: own('Token F1 with SQuAD\'s normalisation: an addition to the benchmark\'s figures.'),
  correct: own('An open answer judged to name the reference diagnosis by the local judge.'),
  'lesion.all': LESION,
  'lesion.type': LESION,
  'lesion.location': LESION,
  'lesion.laterality': LESION,
  'lesion.sequence': LESION,
  'review.sequence': own('The structured review names the sequence the case was imaged with.'),
  'mcq.correct': theirs('multiple-choice VQA (GMAI-MMBench and others)', 'The extracted option letter is the key; an answer with no letter found is wrong.'),
  'mcq.invalid': theirs('multiple-choice VQA (GMAI-MMBench and others)', 'Share of answers in which no option letter was found.'),
  'mcq.set': theirs('MediConfusion', 'A pair counts only if both of its questions are answered right.'),
  rubric: theirs('LiveMedBench', 'clip(Σ points of met items ÷ Σ positive points, 0, 1); items marked by the local judge or reviewers.'),
  'short.exact': theirs('lmms-eval', 'Normalised exact match as lmms-eval scores SLAKE: lower-cased, parenthesised asides and punctuation removed, yes/no words folded; VQA-RAD is read the same way.'),
  'short.exact.open': theirs('lmms-eval', 'The exact match over open questions only (the answer type the data gives; without one, a yes/no reference is closed).'),
  'short.exact.closed': theirs('lmms-eval', 'The exact match over closed questions only (the answer type the data gives; without one, a yes/no reference is closed).'),
  'short.recall.open': theirs('LLaVA-Med', 'Recall of the reference words in the answer after VQA normalisation, over open questions.'),
  'numeric.correct': theirs(
    'MedCalc-Bench',
    "Its extraction and check per calculator, as its run counts them: dates and week/day pairs exact, scores rounded to the reference, decimals within the lower and upper limits; an answer written as an expression str(…) is evaluated as its eval would (arithmetic and the functions it allows only, never other code); a reply without its JSON answer, or on which its code raises, is wrong.",
  ),
  'numeric.correct.any': own("MedCalc-Bench's extraction and check, but a reply without the JSON answer the prompt asks for is read whole (small models often answer in prose)."),
  'numeric.match': own(
    "For numeric references without a MedCalc-Bench calculator (a user's own benchmark): the JSON answer read as MedCalc-Bench's extraction reads it, then checked by the reference's own kind: dates and week/day pairs exact, integers rounded to the reference, decimals within their limits (a declared tolerance gives them) or else equal within 1e-9 relative.",
  ),
  'numeric.match.any': own('The same, but a reply without the JSON answer the prompt asks for is read whole.'),
  'numeric.found': own("Share of answers from which MedCalc-Bench's reading got a number, date or duration."),
  'box.acc50': own('The first box in the answer overlaps a reference box with IoU ≥ 0.5, both brought to fractions of the image; a box whose values are all ≤ 1 is read as fractions.'),
  'box.iou': own('Best IoU of the first box in the answer with a reference box (0 when no box was found).'),
  json_valid: own('Share of answered calls whose answer parsed as one JSON object.'),
  'safety.false_finding': own('Share of normal controls whose answer names an abnormality (any class but normal); unparsable and abstained answers are counted apart, not as findings.'),
  'safety.missed_abnormality': own('Share of abnormal cases whose answer names the class normal; unparsable and abstained answers are counted apart.'),
  'safety.flagged': own("Share of parsed structured answers with a NeuroVLM-Bench safety flag (a mandatory field absent, a subtype inconsistent with the class, an ICD-10 code with normal), by NeuroEval's reading of the benchmark's checks."),
  'safety.selective_accuracy@80': own('Accuracy of the 80 % of answers with the highest stated confidence (answers tied at the cut count by their mean), with a seeded bootstrap interval.'),
  'safety.aurc': own('Area under the risk–coverage curve: the mean of 1 − selective accuracy over every coverage, answers added most confident first; lower is better.'),
};

const RUBRIC_TAG = own(
  "The rubric score over the items that carry the tag (HealthBench's axes and themes), clipped per case and averaged; HealthBench clips the mean instead, so a tag whose items are mostly penalties can differ.",
);

const NEUROVLM_FIELD = own(
  "Plain accuracy of the field after NeuroEval's normalisation (the benchmark's rules plus British and dataset spellings; ground truth that normalises to an abstention is not scorable). The benchmark's own figures (balanced accuracy, F1 with abstention, its JSON-valid rate) are in the NeuroVLM-Bench table.",
);

/**
 * The definition a metric key follows, or undefined for a key this version
 * does not know. A dialogue's per-turn copy (`turn2.pass@5`) is NeuroEval's:
 * the benchmark reports one figure per dialogue.
 */
export function metricDefinition(key: string): MetricDefinition | undefined {
  const turn = /^turn(\d+)\.(.+)$/.exec(key);
  if (turn) {
    const base = metricDefinition(turn[2]!);
    return base && own(`Turn ${turn[1]} of a dialogue on its own, against that turn's reference: NeuroEval's breakdown (the benchmark reports one figure per dialogue).`);
  }
  if (key.startsWith('neurovlm.')) return NEUROVLM_FIELD;
  if (key.startsWith('rubric.tag.')) return RUBRIC_TAG;
  return DEFINITIONS[key];
}

/** Short tag for a table cell: the benchmark's name, or "NeuroEval's own". */
export function definitionTag(d: MetricDefinition | undefined): string {
  if (!d) return '';
  return d.origin === 'benchmark' ? `${d.benchmark}'s definition` : "NeuroEval's own";
}
