/**
 * The answer types' figures against values worked out by hand from the
 * published definitions: lmms-eval's SLAKE exact match and LLaVA-Med's recall
 * (short answers), MedCalc-Bench's extraction and checks (numbers, dates,
 * durations), box parsing and IoU, and rubric points per tag; then a whole
 * run scored with the open/closed split.
 */
import { describe, expect, it } from 'vitest';
import type { BenchCase, Question } from '../../../../../src/core/bundle/types.ts';
import type { ReviewRecord } from '../../../../../src/core/model/review.ts';
import { validateCase } from '../../../../../src/core/bundle/validate.ts';
import { protocolFor, PROTOCOLS } from '../../../../../src/core/protocols/registry.ts';
import { questionVars } from '../../../../../src/core/protocols/template.ts';
import { iou, parseBoxes, toFraction } from '../../../../../src/core/scoring/answers/boxes.ts';
import { answerText, extractValue, scoreNumeric, scoreNumericAnywhere } from '../../../../../src/core/scoring/answers/numeric.ts';
import { scoreBoxAnswer, scoreNumericAnswer } from '../../../../../src/core/scoring/answers/score.ts';
import { answerTypeOf, llavaMedRecall, slakeExactMatch, slakeNormalize } from '../../../../../src/core/scoring/answers/short-answer.ts';
import { scoreRun } from '../../../../../src/core/scoring/run/index.ts';
import { itemKeyOf } from '../../../../../src/core/runner/plan.ts';
import type { ResponseRecord } from '../../../../../src/core/model/answer.ts';

describe('short answers (lmms-eval exact match, LLaVA-Med recall)', () => {
  it('normalises as lmms-eval does: case, asides, punctuation, x-ray, yes/no words in English and Chinese', () => {
    expect(slakeNormalize('  The Brain (axial view). ')).toBe('the brain');
    expect(slakeNormalize('X-Ray')).toBe('xray');
    expect(slakeNormalize('Yeah!')).toBe('yes');
    expect(slakeNormalize('不是')).toBe('no');
    expect(slakeNormalize('左肺（上叶）')).toBe('左肺');
    expect(slakeExactMatch('Left  lung.', 'left lung')).toBe(true);
    // No article removal, no stemming: "the liver" is not "liver" for this benchmark.
    expect(slakeExactMatch('the liver', 'liver')).toBe(false);
  });

  it('recall is the share of reference words found, after VQA normalisation', () => {
    // Reference words: left, frontal, lobe (3); the answer has frontal and lobe → 2/3.
    expect(llavaMedRecall('Frontal lobe.', 'left frontal lobe')).toBeCloseTo(2 / 3, 12);
    // Number words are digits and articles go: "two lesions" ~ "2 lesions" → 1.
    expect(llavaMedRecall('the 2 lesions', 'two lesions')).toBe(1);
    expect(llavaMedRecall('', 'brain')).toBe(0);
  });

  it('takes the answer type from the data, else a yes/no reference is closed', () => {
    expect(answerTypeOf('CLOSED', 'brain')).toBe('closed');
    expect(answerTypeOf(undefined, 'Yes')).toBe('closed');
    expect(answerTypeOf('', 'left frontal lobe')).toBe('open');
  });
});

describe("numbers by MedCalc-Bench's rules", () => {
  it('reads the last JSON answer of a reply, and refuses placeholders', () => {
    expect(answerText('{"step_by_step_thinking": "x", "answer": "41.77"}')).toBe('41.77');
    expect(answerText('{"answer": "1"} then {"answer": "2"}')).toBe('2');
    expect(answerText('{"answer": "str(short_and_direct_answer_of_the_question)"}')).toBe('Not Found');
  });

  it('decimals: within the lower and upper limits; percentages as fractions; eGFR unit read', () => {
    const ref = { value: '41.77', lower: 39.68, upper: 43.86, calculatorId: 2 };
    expect(scoreNumeric('{"answer": "42.5 mL/min"}', ref).correct).toBe(true);
    expect(scoreNumeric('{"answer": "44"}', ref).correct).toBe(false);
    expect(extractValue('about 12.5%', 'decimal')).toBe('0.125');
    expect(extractValue('68.2 mL/min/1.73 m²', 'decimal')).toBe('68.2');
    // An expression the benchmark eval()s is computed as its eval would (arithmetic only); what it cannot compute is wrong.
    expect(scoreNumeric('{"answer": str(3*4)}', ref)).toEqual({ extracted: '12', correct: false, kind: 'decimal' });
    expect(scoreNumeric('{"answer": "str(round(40 + 3 / 2, 1))"}', ref)).toEqual({ extracted: '41.5', correct: true, kind: 'decimal' });
    expect(scoreNumeric('{"answer": "str(__import__(1))"}', ref)).toEqual({ extracted: null, correct: false, kind: 'decimal', error: 'NameError' });
  });

  it('integer scores: rounded half to even as Python does, "out of" and lists counted', () => {
    // Calculator 4 (CHA2DS2-VASc) is scored as an integer.
    expect(scoreNumeric('{"answer": "2.5"}', { value: '2', calculatorId: 4 }).correct).toBe(true);
    expect(scoreNumeric('{"answer": "3.5"}', { value: '4', calculatorId: 4 }).correct).toBe(true);
    expect(extractValue('3 out of 5 criteria', 'integer')).toBe('3');
    expect(extractValue('criteria 1, 4, 7', 'integer')).toBe('3');
  });

  it('dates and gestational age compare the day and the (weeks, days) pair', () => {
    expect(scoreNumeric('{"answer": "8/21/2021"}', { value: '08/21/2021', calculatorId: 13 }).correct).toBe(true);
    expect(scoreNumeric('{"answer": "08/22/2021"}', { value: '08/21/2021', calculatorId: 13 }).correct).toBe(false);
    expect(scoreNumeric('{"answer": "(4 weeks, 2 days)"}', { value: "('4 weeks', '2 days')", calculatorId: 69 }).correct).toBe(true);
    expect(scoreNumeric('{"answer": "(4 weeks, 3 days)"}', { value: "('4 weeks', '2 days')", calculatorId: 69 }).correct).toBe(false);
  });

  it('without a calculator id a declared kind decides; a decimal without limits must equal the reference', () => {
    expect(scoreNumeric('{"answer": "17.30 mL"}', { value: '17.3' }).correct).toBe(true);
    expect(scoreNumeric('{"answer": "17.4 mL"}', { value: '17.3' }).correct).toBe(false);
    expect(scoreNumeric('{"answer": "7 lesions"}', { value: '7', kind: 'integer' }).correct).toBe(true);
  });

  it("carries MedCalc-Bench's name only where its calculator's rule decides; a reference of one's own is NeuroEval's figure", () => {
    const question = (numeric: NonNullable<Question['reference']>['numeric']): Question => ({ id: 'q1', text: 'Value?', reference: { numeric } });
    const theirs = scoreNumericAnswer(question({ value: '41.77', lower: 39.68, upper: 43.86, calculatorId: 2 }), '{"answer": "42.0"}');
    expect(theirs.primary).toBe('numeric.correct');
    expect(Object.keys(theirs.metrics).sort()).toEqual(['numeric.correct', 'numeric.correct.any', 'numeric.found']);
    expect(theirs.metrics['numeric.correct']).toEqual({ value: 1, rule: 'rule:medcalc-decimal' });
    const own = scoreNumericAnswer(question({ value: '7', kind: 'integer' }), '{"answer": "7 lesions"}');
    expect(own.primary).toBe('numeric.match');
    expect(Object.keys(own.metrics).sort()).toEqual(['numeric.found', 'numeric.match', 'numeric.match.any']);
    expect(own.metrics['numeric.match']).toEqual({ value: 1, rule: 'rule:neuroeval-numeric-integer' });
    // Without a reference value nothing is scored, under the name the reference would have been scored by.
    expect(scoreNumericAnswer(question({ value: ' ', calculatorId: 4 }), '{"answer": "3"}')).toMatchObject({ primary: 'numeric.correct', metrics: {} });
    expect(scoreNumericAnswer(question({ value: ' ' }), '{"answer": "3"}')).toMatchObject({ primary: 'numeric.match', metrics: {} });
  });

  it("a reply without the JSON answer is wrong by the benchmark's reading, and read whole by NeuroEval's", () => {
    // MedCalc-Bench reads "Not Found", extracts "N/A", and its check raises on eval("N/A").
    expect(scoreNumeric('The volume is 17.30 mL', { value: '17.3' })).toEqual({ extracted: null, correct: false, kind: 'decimal', error: 'NameError' });
    expect(scoreNumericAnywhere('The volume is 17.30 mL', { value: '17.3' })).toEqual({ extracted: '17.3', correct: true, kind: 'decimal' });
    expect(scoreNumericAnywhere('7 lesions', { value: '7', kind: 'integer' }).correct).toBe(true);
    // With a JSON answer both readings agree.
    expect(scoreNumericAnywhere('{"answer": "12"} and 17.3', { value: '17.3' }).correct).toBe(false);
  });
});

describe('boxes', () => {
  it('parses the forms models write, corners put in order', () => {
    expect(parseBoxes('The lesion: [412, 188, 506, 279]')).toEqual([{ x1: 412, y1: 188, x2: 506, y2: 279 }]);
    expect(parseBoxes('<box>(506,279),(412,188)</box>')).toEqual([{ x1: 412, y1: 188, x2: 506, y2: 279 }]);
    expect(parseBoxes('{"bbox_2d": [0.1, 0.2, 0.3, 0.4]} and {"x1": 5, "y1": 6, "x2": 7, "y2": 8}')).toEqual([
      { x1: 0.1, y1: 0.2, x2: 0.3, y2: 0.4 },
      { x1: 5, y1: 6, x2: 7, y2: 8 },
    ]);
    expect(parseBoxes('no box here, only 3 numbers (1, 2, 3)')).toEqual([]);
  });

  it('IoU by hand: two 10×10 boxes shifted by 5 share 50 of 150', () => {
    expect(iou({ x1: 0, y1: 0, x2: 10, y2: 10 }, { x1: 5, y1: 0, x2: 15, y2: 10 })).toBeCloseTo(1 / 3, 12);
    expect(iou({ x1: 0, y1: 0, x2: 1, y2: 1 }, { x1: 2, y1: 2, x2: 3, y2: 3 })).toBe(0);
    expect(toFraction({ x1: 100, y1: 50, x2: 200, y2: 100 }, 'grid1000', 0, 0)).toEqual({ x1: 0.1, y1: 0.05, x2: 0.2, y2: 0.1 });
  });

  it('scores the first box against the reference in the image frame: IoU and accuracy at 0.5', () => {
    const c: BenchCase = {
      id: 'g1', taskFamily: 'lesion-recognition', images: [{ path: 'a.png', sha256: 'aa', width: 200, height: 100 }],
      questions: [{ id: 'q1', text: 'Where is the lesion?', reference: { boxes: [{ x1: 20, y1: 10, x2: 120, y2: 60 }], boxFrame: 'pixels' } }],
    };
    const q = c.questions[0]!;
    // Pixels: answer [70, 10, 170, 60] overlaps 50×50 = 2500 of 5000 + 5000 − 2500 = 7500 → 1/3.
    const half = scoreBoxAnswer(c, q, '[70, 10, 170, 60]');
    expect(half.metrics['box.iou']!.value).toBeCloseTo(1 / 3, 12);
    expect(half.metrics['box.acc50']!.value).toBe(0);
    // Fractions of the same image: [0.1, 0.1, 0.6, 0.6] is the reference exactly.
    const same = scoreBoxAnswer(c, q, '[0.1, 0.1, 0.6, 0.6]');
    expect(same.metrics['box.iou']!.value).toBeCloseTo(1, 12);
    expect(same.metrics['box.acc50']!.value).toBe(1);
    expect(scoreBoxAnswer(c, q, 'I cannot tell').metrics['box.acc50']!.value).toBe(0);
    // Without the image size a pixel box cannot be compared.
    const noSize = scoreBoxAnswer({ ...c, images: [{ path: 'a.png', sha256: 'aa' }] }, q, '[70, 10, 170, 60]');
    expect(noSize.metrics).toEqual({});
    expect(noSize.notes[0]).toMatch(/image size is not stored/);
  });
});

describe('bundle references of the answer types', () => {
  const base = { id: 'c1', taskFamily: 'open-question', images: [] };
  it('validates short, numeric and box references, naming the field at fault', () => {
    const ok = validateCase(
      { ...base, questions: [{ id: 'q1', text: 'Which lobe?', reference: { short: { text: 'frontal', type: 'open' }, numeric: { value: '3', kind: 'integer' }, boxes: [{ x1: 0, y1: 0, x2: 1, y2: 1 }], boxFrame: 'fraction' } }] },
      { file: 'cases.jsonl', line: 1 },
    );
    expect(ok.issues).toEqual([]);
    const bad = validateCase(
      { ...base, questions: [{ id: 'q1', text: 'Which lobe?', reference: { short: { text: 'frontal', type: 'half-open' }, numeric: { value: '3', kind: 'roman' }, boxes: [{ x1: 5, y1: 0, x2: 1, y2: 1 }], boxFrame: 'inches' } }] },
      { file: 'cases.jsonl', line: 1 },
    );
    expect(bad.issues.map((i) => i.location?.field)).toEqual(expect.arrayContaining([
      'questions[0].reference.short.type', 'questions[0].reference.numeric.kind', 'questions[0].reference.boxes[0]', 'questions[0].reference.boxFrame',
    ]));
  });

  it('a case whose references are short answers, numbers or boxes runs under that protocol', () => {
    const q = (reference: Question['reference']): BenchCase => ({ ...base, taskFamily: 'open-question', images: [], questions: [{ id: 'q1', text: 'x?', reference }] }) as BenchCase;
    expect(protocolFor(q({ short: { text: 'yes' } })).id).toBe('short-answer');
    expect(protocolFor(q({ numeric: { value: '4' } })).id).toBe('numeric');
    expect(protocolFor(q({ boxes: [{ x1: 0, y1: 0, x2: 1, y2: 1 }] })).id).toBe('box');
    expect(PROTOCOLS['short-answer'].buildRequest(q({ short: { text: 'yes' } }), q({ short: { text: 'yes' } }).questions[0]!).messages.at(-1)).toBeDefined();
  });
});

describe('image options (TemMed-Bench)', () => {
  it('lists an option that is an image by its place among the images sent, with its text when it has one', () => {
    const c: BenchCase = {
      id: 'pair', taskFamily: 'multiple-choice', images: [{ path: 'a.png', sha256: 'aa' }, { path: 'b.png', sha256: 'bb' }, { path: 'c.png', sha256: 'cc' }],
      questions: [{ id: 'q1', text: 'Which image shows the same finding as image 1?', options: [{ key: 'A', text: '', image: 1 }, { key: 'B', text: 'follow-up', image: 2 }], reference: { answer: 'B' } }],
    };
    expect(questionVars(c, c.questions[0]!, 3).options).toBe('A. image 2\nB. image 3 (follow-up)');
    expect(protocolFor(c).id).toBe('mcq');
  });
});

const RUN = 'run-answers';
function response(caseId: string, rawText: string, protocolParsed: unknown): ResponseRecord {
  const itemKey = itemKeyOf({ caseId, questionId: 'q1', modelId: 'm', variant: 'none', sample: 0 });
  return {
    id: `${RUN}/${itemKey}`, runId: RUN, itemKey, caseId, questionId: 'q1', cacheKey: '', modelId: 'm', variant: 'none', sample: 0,
    rawText, parsed: protocolParsed, parseError: null, usage: { promptTokens: 10, completionTokens: 5, ttftMs: 1, prefillTps: 1, decodeTps: 1 },
    latencyMs: 1, finishReason: 'stop', createdAt: 1,
  };
}

describe('a run of short answers, numbers and rubric tags scored', () => {
  it('reports exact match overall and for open and closed questions apart, recall on open ones, numbers and rubric points per tag', async () => {
    const short = (id: string, text: string, type?: 'open' | 'closed'): BenchCase => ({
      id, taskFamily: 'open-question', images: [], questions: [{ id: 'q1', text: `${id}?`, reference: { short: { text, ...(type ? { type } : {}) } } }],
    });
    const cases: BenchCase[] = [
      short('c1', 'Yes', 'closed'),
      short('c2', 'no'),
      short('c3', 'left frontal lobe', 'open'),
      short('c4', 'MRI', 'open'),
      short('c5', 'brain', 'open'),
      { id: 'n1', taskFamily: 'open-question', images: [], questions: [{ id: 'q1', text: 'CrCl?', reference: { numeric: { value: '41.77', lower: 39.68, upper: 43.86, calculatorId: 2 } } }] },
      { id: 'n2', taskFamily: 'open-question', images: [], questions: [{ id: 'q1', text: 'Score?', reference: { numeric: { value: '3', calculatorId: 4 } } }] },
      {
        id: 'r1', taskFamily: 'open-question', images: [],
        questions: [{ id: 'q1', text: 'Advice?', reference: { rubric: [
          { id: 'a', text: 'Refers to emergency care', points: 6, tags: ['axis:completeness'] },
          { id: 'b', text: 'States the dose', points: 4, tags: ['axis:accuracy'] },
          { id: 'c', text: 'Recommends an unsafe drug', points: -5, tags: ['axis:accuracy'] },
        ] } }],
      },
    ];
    const responses = [
      response('c1', 'yes.', { text: 'yes.' }), // closed, right
      response('c2', 'Yes', { text: 'Yes' }), // closed (yes/no reference), wrong
      response('c3', 'Frontal lobe', { text: 'Frontal lobe' }), // open, wrong; recall 2/3
      response('c4', 'mri', { text: 'mri' }), // open, right; recall 1
      response('c5', 'The brain', { text: 'The brain' }), // open, wrong (no article removal); recall 1
      response('n1', '{"answer": "42.1"}', { text: '{"answer": "42.1"}' }),
      response('n2', 'I am not sure', { text: 'I am not sure' }),
      response('r1', 'Go to the emergency department.', { text: 'Go to the emergency department.' }),
    ];
    // Reviewers mark the rubric items: a met, b not met, c met (a penalty).
    const review: ReviewRecord = {
      id: 'rev-1', responseId: responses[7]!.id, runId: RUN, verdict: 'unsure', errorClasses: [], rationaleRating: null, reason: '', reviewerId: 'dr-a', createdAt: 1, previous: [],
      rubricMet: { a: true, b: false, c: true },
    };
    const scored = await scoreRun({ protocolId: 'auto', cases, responses, reviews: [review] }, { resamples: 20 });
    const arm = scored.summary.arms[0]!;
    const mean = (k: string) => arm.metrics.find((x) => x.metric === k);
    expect([mean('short.exact')!.mean, mean('short.exact')!.n]).toEqual([2 / 5, 5]);
    expect([mean('short.exact.closed')!.mean, mean('short.exact.closed')!.n]).toEqual([1 / 2, 2]);
    expect([mean('short.exact.open')!.mean, mean('short.exact.open')!.n]).toEqual([1 / 3, 3]);
    expect(mean('short.recall.open')!.mean).toBeCloseTo((2 / 3 + 1 + 1) / 3, 12);
    expect(mean('short.exact.open')!.label).toBe('Short answer: exact match, open questions');
    expect([mean('numeric.correct')!.mean, mean('numeric.found')!.mean]).toEqual([1 / 2, 1 / 2]);
    // Overall (6 − 5) ÷ 10 = 0.1; accuracy items b and c: −5 ÷ 4 clipped to 0; completeness 6 ÷ 6 = 1.
    expect(mean('rubric')!.mean).toBeCloseTo(0.1, 12);
    expect(mean('rubric.tag.axis:accuracy')!.mean).toBe(0);
    expect(mean('rubric.tag.axis:completeness')!.mean).toBe(1);
  });
});
