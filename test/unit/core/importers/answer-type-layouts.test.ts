/**
 * Short and numeric answers from the published layouts (test/support/hf-datasets.ts):
 * SLAKE's JSON array with an answer type, VQA-RAD's Parquet without one, and
 * MedCalc-Bench's Parquet with its limits and calculator ids. Each is mapped
 * from the suggested columns, imported, asked with its protocol's prompt, and
 * scored; the figures are worked out by hand in the comments.
 */
import { describe, expect, it } from 'vitest';
import { genericImporter, listColumns, suggestMapping } from '../../../../src/core/importers/generic.ts';
import type { BenchCase } from '../../../../src/core/bundle/types.ts';
import { turnText } from '../../../../src/core/chat/turn.ts';
import { protocolFor } from '../../../../src/core/protocols/registry.ts';
import { itemKeyOf } from '../../../../src/core/runner/plan.ts';
import type { ResponseRecord } from '../../../../src/core/model/answer.ts';
import { scoreRun } from '../../../../src/core/scoring/run/index.ts';
import { medCalcFiles, medSgFiles, slakeFiles, vqaRadFiles } from '../../../support/hf-datasets.ts';
import { finalizeBundle } from '../../../../src/core/bundle/finalize.ts';
import { memoryFile } from '../../../../src/core/bundle/importer.ts';
import { DATASET_PRESETS } from '../../../../src/core/importers/presets/index.ts';
import { errors, warnings } from './fixtures.ts';

/** Each case asked under its own protocol, answered with `replies[i]`, the reply parsed as the protocol parses it. */
function answered(cases: readonly BenchCase[], replies: readonly string[]): ResponseRecord[] {
  return cases.map((c, i) => {
    const p = protocolFor(c);
    const parsed = p.parse(replies[i]!, c.questions[0]!);
    const itemKey = itemKeyOf({ caseId: c.id, questionId: 'q1', modelId: 'm', variant: 'none', sample: 0 });
    return {
      id: `run/${itemKey}`, runId: 'run', itemKey, caseId: c.id, questionId: 'q1', cacheKey: '', modelId: 'm', variant: 'none', sample: 0,
      rawText: replies[i]!, parsed: parsed.ok ? parsed.value : null, parseError: parsed.ok ? null : parsed.error,
      usage: { promptTokens: 1, completionTokens: 1, ttftMs: 1, prefillTps: 1, decodeTps: 1 }, latencyMs: 1, finishReason: 'stop', createdAt: 1,
    };
  });
}

async function figures(cases: readonly BenchCase[], replies: readonly string[]): Promise<Record<string, { mean: number; n: number }>> {
  const scored = await scoreRun({ protocolId: 'auto', cases, responses: answered(cases, replies) }, { resamples: 20 });
  return Object.fromEntries(scored.summary.arms[0]!.metrics.map((m) => [m.metric, { mean: m.mean, n: m.n }]));
}

describe('SLAKE (JSON array, answer_type OPEN/CLOSED)', () => {
  const files = () =>
    slakeFiles([
      { qid: 1, question: 'Which organ is shown?', answer: 'Brain', answerType: 'OPEN' },
      { qid: 2, question: 'Is this an MRI?', answer: 'Yes', answerType: 'CLOSED' },
      { qid: 3, question: 'Where is the lesion?', answer: 'Left Frontal Lobe', answerType: 'OPEN' },
      { qid: 4, question: 'Is the brain healthy?', answer: 'No', answerType: 'CLOSED' },
    ]);

  it('suggests the answer as a short answer with its answer type, and imports each with its type', async () => {
    const suggested = suggestMapping(await listColumns(files()));
    expect(suggested).toMatchObject({ id: 'qid', question: 'question', shortAnswer: 'answer', answerType: 'answer_type' });
    expect(suggested.answer).toBeUndefined();
    const draft = await genericImporter.read(files(), { options: { mapping: { ...suggested, image: 'img_name' } } });
    expect(errors(draft)).toEqual([]);
    // The stand-in images are PNG under .jpg names (a warning of their own); nothing is said about scoring.
    expect(warnings(draft).map((w) => w.message).filter((m) => /scor/.test(m))).toEqual([]);
    expect(draft.cases.map((c) => c.questions[0]!.reference?.short)).toEqual([
      { text: 'Brain', type: 'open' },
      { text: 'Yes', type: 'closed' },
      { text: 'Left Frontal Lobe', type: 'open' },
      { text: 'No', type: 'closed' },
    ]);
  });

  it("is asked with lmms-eval's prompt and scored by exact match, open and closed apart", async () => {
    const draft = await genericImporter.read(files(), { options: { mapping: { ...suggestMapping(await listColumns(files())), image: 'img_name' } } });
    const c = draft.cases[0]!;
    const p = protocolFor(c);
    expect(p.id).toBe('short-answer');
    const request = p.buildRequest(c, c.questions[0]!);
    expect(turnText(request.messages.at(-1)!)).toContain('Which organ is shown?\nAnswer the question using a single word or phrase.');
    const f = await figures(draft.cases, ['brain.', 'yes', 'frontal lobe', 'Yes']);
    // Right: 1 (open) and 2 (closed); wrong: 3 (open) and 4 (closed).
    expect(f['short.exact']).toEqual({ mean: 0.5, n: 4 });
    expect(f['short.exact.open']).toEqual({ mean: 0.5, n: 2 });
    expect(f['short.exact.closed']).toEqual({ mean: 0.5, n: 2 });
    // Recall on open questions: brain 1/1, left frontal lobe 2/3 → (1 + 2/3) ÷ 2.
    expect(f['short.recall.open']!.mean).toBeCloseTo(5 / 6, 12);
  });
});

describe('VQA-RAD (Parquet with image structs, no answer type column)', () => {
  it('reads yes/no references as closed and the rest as open', async () => {
    const files = vqaRadFiles([
      { question: 'is there a mass?', answer: 'yes' },
      { question: 'what plane is this?', answer: 'axial' },
      { question: 'is the ventricle enlarged?', answer: 'no' },
    ]);
    const draft = await genericImporter.read(files, { options: { split: 'test', mapping: { id: 'question', question: 'question', image: 'image', shortAnswer: 'answer' } } });
    expect(errors(draft)).toEqual([]);
    const f = await figures(draft.cases, ['Yes', 'coronal', 'no']);
    expect(f['short.exact.closed']).toEqual({ mean: 1, n: 2 });
    expect(f['short.exact.open']).toEqual({ mean: 0, n: 1 });
  });

  it('warns at import when a short answer goes with options (multiple choice does not read it)', async () => {
    const files = vqaRadFiles([{ question: 'which plane?', answer: 'axial' }]);
    const draft = await genericImporter.read(files, { options: { split: 'test', mapping: { id: 'question', question: 'question', shortAnswer: 'answer', options: ['question'] } } });
    expect(warnings(draft).map((w) => w.message)).toContain(
      'The column "answer" (Short answer (a word or phrase)) is not scored for 1 case: they will be asked under "Multiple choice (VLMEvalKit style)" (they have options), which does not read it.',
    );
  });
});

describe('MedCalc-Bench (Parquet, limits and calculator ids)', () => {
  const items = [
    { calculatorId: 2, question: 'What is the creatinine clearance?', note: 'A 67-year-old woman…', answer: '41.77', lower: '39.68', upper: '43.86' },
    { calculatorId: 4, question: "What is the patient's CHA2DS2-VASc score?", note: 'A 72-year-old man…', answer: '3' },
    { calculatorId: 13, question: "What is the patient's estimated due date?", note: 'Last menstrual period 11/14/2020…', answer: '08/21/2021' },
  ];

  it('maps the card columns by themselves and scores by the benchmark rules', async () => {
    const files = medCalcFiles(items);
    const suggested = suggestMapping(await listColumns(files));
    expect(suggested).toMatchObject({
      id: 'Row Number', question: 'Question', notes: 'Patient Note', numericAnswer: 'Ground Truth Answer', numericLower: 'Lower Limit', numericUpper: 'Upper Limit', calculatorId: 'Calculator ID',
    });
    const draft = await genericImporter.read(files, { options: { mapping: suggested } });
    expect(errors(draft)).toEqual([]);
    expect(warnings(draft)).toEqual([]);
    expect(draft.cases.map((x) => x.questions[0]!.reference?.numeric)).toEqual([
      { value: '41.77', lower: 39.68, upper: 43.86, calculatorId: 2 },
      { value: '3', lower: 3, upper: 3, calculatorId: 4 },
      { value: '08/21/2021', calculatorId: 13 },
    ]);
    const c = draft.cases[0]!;
    expect(protocolFor(c).id).toBe('numeric');
    expect(turnText(protocolFor(c).buildRequest(c, c.questions[0]!).messages.at(-1)!)).toContain('Here is the patient note:\nA 67-year-old woman…');
    // 42.0 within [39.68, 43.86]: right; 3.6 rounds to 4, not 3: wrong; the due date matches: right.
    const f = await figures(draft.cases, ['{"step_by_step_thinking": "…", "answer": "42.0"}', '{"answer": "3.6"}', '{"answer": "8/21/2021"}']);
    expect(f['numeric.correct']).toEqual({ mean: 2 / 3, n: 3 });
  });

  it('names the cell of a limit that is not a number', async () => {
    const files = medCalcFiles([{ ...items[0]!, lower: 'about 40' }]);
    const draft = await genericImporter.read(files, { options: { mapping: suggestMapping(await listColumns(files)) } });
    expect(errors(draft)).toEqual([{ severity: 'error', message: '"about 40" in column "Lower Limit" is not a number.', location: { file: 'data/test-00000-of-00001.parquet', line: 1, field: 'Lower Limit' } }]);
  });
});

describe('MedSG-Bench (Parquet, image sequences, reference boxes in pixels)', () => {
  // 6×6 images (seededPng). Reference boxes on the last image of each sequence.
  const files = () =>
    medSgFiles([
      { task: 'Registered_Diff', question: 'Compare these two images carefully and give me the coordinates of their difference.', box: [0, 0, 2, 2], images: [21, 22] },
      { task: 'Multi_View', question: 'Find the lesion of image 1 in the last image.', box: [3, 3, 6, 6], images: [23, 24, 25] },
      { task: 'Object_Tracking', question: 'Where is the object now?', box: [1, 1, 5, 5], images: [26, 27] },
    ]);
  const preset = () => DATASET_PRESETS.find((p) => p.id === 'medsg-bench')!;

  it('imports each question with its image sequence in order and its box on the last image, sized for scoring', async () => {
    const draft = await genericImporter.read(files(), { options: { mapping: preset().mapping } });
    expect(errors(draft)).toEqual([]);
    const { bundle, issues } = finalizeBundle(draft);
    expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(bundle!.cases.map((c) => c.images.length)).toEqual([2, 3, 2]);
    // The benchmark's own task per question, for the per-task breakdown its paper reports.
    expect(bundle!.cases.map((c) => c.subtask)).toEqual(['Registered_Diff', 'Multi_View', 'Object_Tracking']);
    expect(bundle!.cases[1]!.images.every((img) => img.width === 6 && img.height === 6)).toBe(true);
    expect(bundle!.cases.map((c) => c.questions[0]!.reference?.boxes?.[0]?.image ?? 0)).toEqual([1, 2, 1]);
    const c = bundle!.cases[0]!;
    const request = protocolFor(c).buildRequest(c, c.questions[0]!);
    expect(turnText(request.messages.at(-1)!)).toContain('Give the bounding box as [x1, y1, x2, y2], the top-left corner first, in pixels');
    expect(request.messages.flatMap((m) => m.parts).filter((p) => p.type === 'image')).toHaveLength(2);
  });

  it('scores the first box of each answer by IoU against the reference, right at IoU ≥ 0.5', async () => {
    const draft = await genericImporter.read(files(), { options: { mapping: preset().mapping } });
    const { bundle } = finalizeBundle(draft);
    const f = await figures(bundle!.cases, [
      // Exactly the reference: IoU 1.
      'The difference is at [0, 0, 2, 2].',
      // Qwen-VL's corner form, 3×3 inside the 3×3 reference offset by one: overlap 2×2 = 4, union 9 + 9 − 4 = 14.
      '<box>(4,4),(7,7)</box>',
      // Fractions of the image (every value ≤ 1): [0.5, 0.5, 1, 1] is pixels [3, 3, 6, 6]; the reference [1, 1, 5, 5]: overlap 2×2 = 4, union 9 + 16 − 4 = 21.
      '{"x1": 0.5, "y1": 0.5, "x2": 1, "y2": 1}',
    ]);
    expect(f['box.iou']!.n).toBe(3);
    expect(f['box.iou']!.mean).toBeCloseTo((1 + 4 / 14 + 4 / 21) / 3, 12);
    expect(f['box.acc50']).toEqual({ mean: 1 / 3, n: 3 });
  });

  it('names the cell of a box it cannot read, and reads boxes written as text or objects', async () => {
    const csv = [
      'id,question,image,box',
      'a,Where?,,"[[1, 2, 3, 4], [5, 6, 7, 8]]"',
      'b,Where?,,"{""xmin"": 10, ""ymin"": 20, ""xmax"": 5, ""ymax"": 8, ""label"": ""lesion""}"',
      'c,Where?,,"(1,1),(4,4)"',
      'd,Where?,,somewhere on the left',
    ].join('\n');
    const draft = await genericImporter.read([memoryFile('boxes.csv', `${csv}\n`)], { options: { mapping: { id: 'id', question: 'question', boxes: 'box', boxFrame: 'grid1000' } } });
    expect(draft.cases.map((c) => c.questions[0]!.reference?.boxes)).toEqual([
      [{ x1: 1, y1: 2, x2: 3, y2: 4 }, { x1: 5, y1: 6, x2: 7, y2: 8 }],
      [{ x1: 5, y1: 8, x2: 10, y2: 20, label: 'lesion' }],
      [{ x1: 1, y1: 1, x2: 4, y2: 4 }],
      undefined,
    ]);
    expect(draft.cases[0]!.questions[0]!.reference?.boxFrame).toBe('grid1000');
    expect(errors(draft)).toEqual([{ severity: 'error', message: 'The box cell "somewhere on the left" holds no box x1, y1, x2, y2.', location: { file: 'boxes.csv', line: 5, field: 'box' } }]);
  });
});
