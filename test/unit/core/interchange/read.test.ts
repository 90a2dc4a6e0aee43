import Ajv2020 from 'ajv/dist/2020.js';
import AjvDraft7 from 'ajv';
import { strToU8, zipSync } from 'fflate';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Bundle } from '../../../../src/core/bundle/types.ts';
import { InvalidInputError } from '../../../../src/core/errors.ts';
import { matchForeign } from '../../../../src/core/interchange/match.ts';
import { isForeignFileName, readForeign } from '../../../../src/core/interchange/read/index.ts';
import { readXlsx } from '../../../../src/core/interchange/read/xlsx.ts';
import { FOREIGN_LIMITS } from '../../../../src/core/interchange/types.ts';
import { eeeInstancesJsonl, inspectEvalBytes, inspectLog, lmEvalResultsJson, lmEvalSamplesJsonl, lmmsEvalSamplesJsonl, mcqAnswers, mcqBundle, SCHEMAS, VLMEVALKIT } from '../../../support/interchange.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const fixture = (name: string) => ({ name, bytes: new Uint8Array(readFileSync(`${VLMEVALKIT}${name}`)) });

/** The error a read throws, with its location. */
function refusal(f: () => unknown): InvalidInputError {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return error as InvalidInputError;
  }
  throw new Error('expected the file to be refused');
}

const openapi = JSON.parse(readFileSync(`${SCHEMAS}inspect-openapi.json`, 'utf8')) as { components: { schemas: Record<string, unknown> } };
const inspectAjv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
inspectAjv.addSchema({ $id: 'inspect', components: openapi.components });
/** Validates against inspect_ai's published EvalLog / EvalSample models. */
export const validInspect = (def: 'EvalLog' | 'EvalSample', v: unknown) => {
  const ok = inspectAjv.validate(`inspect#/components/schemas/${def}`, v);
  return ok ? 'valid' : inspectAjv.errorsText(inspectAjv.errors?.slice(0, 5));
};
const eeeAjv = new AjvDraft7({ strict: false, allErrors: true, validateFormats: false });
const eeeInstance = eeeAjv.compile(JSON.parse(readFileSync(`${SCHEMAS}eee-instance_level_eval.schema.json`, 'utf8')));

let bundle: Bundle;
beforeAll(async () => {
  bundle = await mcqBundle();
});

describe('VLMEvalKit prediction files (made by pandas and xlsxwriter, as VLMEvalKit writes them)', () => {
  it('reads the first sheet of the xlsx: numbers, shared strings, entities, _x000D_ escapes, CJK', () => {
    const t = readXlsx(fixture('DemoVLM_NeuroMCQ.xlsx').bytes, 'DemoVLM_NeuroMCQ.xlsx');
    expect(t.header).toEqual(['index', 'question', 'A', 'B', 'C', 'D', 'answer', 'category', 'prediction']);
    expect(t.rows).toHaveLength(6);
    expect(t.rows[0]).toMatchObject({ line: 2, values: { index: 1, answer: 'C', prediction: 'C' } });
    expect(t.rows[2]!.values.question).toBe('Most likely diagnosis: <ring-enhancing> lesion & oedema?');
    expect(t.rows[2]!.values.prediction).toBe('Answer: B\r\nbecause of the irregular rim');
    expect(t.rows[4]!.values.question).toBe('病灶位于哪个脑叶？');
  });

  it.each(['DemoVLM_NeuroMCQ.xlsx', 'DemoVLM_NeuroMCQ.tsv', 'DemoVLM_NeuroMCQ.json'])('%s: six items matched to the six cases by index, one failed call', (name) => {
    const log = readForeign([fixture(name)]);
    expect(log).toMatchObject({ harness: 'vlmevalkit', model: 'DemoVLM', task: 'NeuroMCQ' });
    expect(log.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(log.items).toHaveLength(6);
    expect(log.items.filter((i) => i.answer === null).map((i) => [i.id, i.error])).toEqual([['4', 'Failed to obtain answer.']]);
    const m = matchForeign(log, bundle.cases);
    expect(m.matched.map((x) => [x.item.id, x.caseId, x.how])).toEqual(['1', '2', '3', '4', '5', '6'].map((id) => [id, id, 'id']));
    expect(m.unmatched).toEqual([]);
  });

  it('the three layouts hold the same answers', () => {
    const answers = (name: string) => readForeign([fixture(name)]).items.map((i) => [i.id, i.answer, i.question, i.target]);
    expect(answers('DemoVLM_NeuroMCQ.tsv')).toEqual(answers('DemoVLM_NeuroMCQ.xlsx'));
    expect(answers('DemoVLM_NeuroMCQ.json')).toEqual(answers('DemoVLM_NeuroMCQ.xlsx'));
  });
});

describe('lmms-eval and lm-eval --log_samples', () => {
  it('lmms-eval: six samples, 0-based doc ids matched by question, reasoning kept in the raw answer', () => {
    const log = readForeign([{ name: '20260701_101010_samples_neuro_mcq.jsonl', bytes: enc(lmmsEvalSamplesJsonl(mcqAnswers(bundle), { think: true })) }], { model: 'llava-onevision-7b' });
    expect(log).toMatchObject({ harness: 'lmms-eval', model: 'llava-onevision-7b', task: 'neuro_mcq' });
    expect(log.items).toHaveLength(6);
    expect(log.items[0]!.answer).toBe('<think>Looking at the image…</think>C');
    expect(log.items[0]!.usage).toEqual({ promptTokens: 812, completionTokens: 9 });
    expect(log.items[1]!.scores).toEqual({ acc: 1 });
    const m = matchForeign(log, bundle.cases);
    expect(m.matched.map((x) => [x.item.id, x.caseId, x.how])).toEqual(bundle.cases.map((c, i) => [String(i), c.id, 'question']));
  });

  it('lm-eval with its results JSON: model, seeds and generation settings come from the results', () => {
    const log = readForeign([
      { name: 'samples_neuro_mcq_2026-07-01T10-10-10.123456.jsonl', bytes: enc(lmEvalSamplesJsonl(mcqAnswers(bundle))) },
      { name: 'results_2026-07-01T10-10-10.123456.json', bytes: enc(lmEvalResultsJson('neuro_mcq', 'Qwen/Qwen2-VL-7B-Instruct')) },
    ]);
    expect(log).toMatchObject({ harness: 'lm-eval', model: 'Qwen/Qwen2-VL-7B-Instruct', task: 'neuro_mcq', createdAt: 1768964383859 });
    expect(log.settings).toMatchObject({ 'generation_kwargs.temperature': 0, 'generation_kwargs.max_gen_toks': 64, random_seed: 0, model_args: 'pretrained=Qwen/Qwen2-VL-7B-Instruct,trust_remote_code=True' });
    expect(log.items).toHaveLength(6);
    expect(matchForeign(log, bundle.cases).matched).toHaveLength(6);
  });
});

describe('Inspect AI logs', () => {
  it('a log laid out as inspect_ai writes it is valid against its published schema', () => {
    expect(validInspect('EvalLog', inspectLog(mcqAnswers(bundle), { epochs: 2 }))).toBe('valid');
    // The schema does hold the log to the models: a sample without its output, or a spec without its model, is not valid.
    const broken = inspectLog(mcqAnswers(bundle));
    delete (broken.samples as Record<string, unknown>[])[0]!.output;
    expect(validInspect('EvalLog', broken)).toContain("must have required property 'output'");
    const noModel = inspectLog(mcqAnswers(bundle));
    delete (noModel.eval as Record<string, unknown>).model;
    expect(validInspect('EvalLog', noModel)).toContain("must have required property 'model'");
  });

  it('.json: twelve samples (six questions, two epochs), attachments resolved, the system message left out of the question', () => {
    const log = readForeign([{ name: 'neuro.json', bytes: enc(JSON.stringify(inspectLog(mcqAnswers(bundle), { epochs: 2 }))) }]);
    expect(log).toMatchObject({ harness: 'inspect-ai', model: 'openai/gpt-4o', task: 'neuro_mcq', settings: { temperature: 0.2, top_p: 0.95, max_tokens: 256, seed: 7, epochs: 2 } });
    expect(log.items).toHaveLength(12);
    expect(log.items[0]!.question!.startsWith('Clinical history: xxx')).toBe(true);
    expect(log.items[0]!.question).not.toContain('neuroradiologist');
    expect(log.items.map((i) => i.sample)).toEqual([0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1]);
    expect(log.items[0]!.latencyMs).toBe(1500);
    const m = matchForeign(log, bundle.cases);
    expect(m.matched).toHaveLength(12);
    expect(m.duplicates).toEqual([]);
  });

  it('.eval: the ZIP reads to the same items; one still running (no header.json) reads its samples so far', () => {
    const log = inspectLog(mcqAnswers(bundle), { epochs: 2 });
    const json = readForeign([{ name: 'neuro.json', bytes: enc(JSON.stringify(log)) }]);
    const zip = readForeign([{ name: '2026-07-01T10-00-00+00-00_neuro-mcq_abc.eval', bytes: inspectEvalBytes(log) }]);
    const strip = (l: typeof json) => l.items.map(({ at: _at, ...rest }) => rest);
    expect(strip(zip)).toEqual(strip(json));
    const running = readForeign([{ name: 'running.eval', bytes: inspectEvalBytes(log, { header: false }) }]);
    expect(running.items).toHaveLength(12);
    expect(running.warnings[0]).toContain('no header.json');
  });
});

describe('Every Eval Ever instance records', () => {
  it('records laid out by the schema are valid against it and import as six answers', () => {
    const text = eeeInstancesJsonl(mcqAnswers(bundle));
    for (const line of text.trim().split('\n')) expect(eeeInstance(JSON.parse(line)), JSON.stringify(eeeInstance.errors)).toBe(true);
    const log = readForeign([{ name: '0b4c9e2e-0f0c-4b8e-9a51-6f1d2f0a1e11_samples.jsonl', bytes: enc(text) }]);
    expect(log).toMatchObject({ harness: 'every-eval-ever', model: 'meta-llama/Llama-3.2-11B-Vision-Instruct', task: 'neuro_mcq' });
    expect(log.items).toHaveLength(6);
    expect(matchForeign(log, bundle.cases).matched).toHaveLength(6);
  });
});

describe('matching: unmatched and repeated items are named, nothing is guessed', () => {
  it('an unknown id with an unknown question, a repeated answer and an ambiguous question are each named', () => {
    const answers = mcqAnswers(bundle);
    const extra = [
      { docId: 'x-99', prompt: 'What colour is the sky?', target: 'A', raw: 'A' },
      { ...answers[2]!, docId: 7 },
    ];
    const log = readForeign([{ name: 'x_samples_neuro.jsonl', bytes: enc(lmmsEvalSamplesJsonl([...answers, ...extra])) }], { model: 'm' });
    const m = matchForeign(log, bundle.cases);
    expect(m.matched).toHaveLength(6);
    expect(m.unmatched.map((u) => [u.item.id, u.item.at.line])).toEqual([['x-99', 7]]);
    expect(m.unmatched[0]!.why).toContain('no case asks its question');
    expect(m.duplicates.map((d) => [d.item.id, d.item.at.line, d.caseId, d.first.at.line])).toEqual([['7', 8, bundle.cases[2]!.id, 3]]);
  });

  it('a mapping decides where ids and questions do not', () => {
    const log = readForeign([{ name: 'x_samples_neuro.jsonl', bytes: enc(lmmsEvalSamplesJsonl([{ docId: 'q-a', prompt: 'Another wording entirely', target: 'C', raw: 'C' }])) }], { model: 'm' });
    expect(matchForeign(log, bundle.cases).unmatched).toHaveLength(1);
    const mapped = matchForeign(log, bundle.cases, { 'q-a': '1' });
    expect(mapped.matched.map((x) => [x.caseId, x.questionId, x.how])).toEqual([['1', 'q1', 'mapping']]);
    expect(matchForeign(log, bundle.cases, { 'q-a': 'nope' }).unmatched[0]!.why).toContain('no case "nope"');
  });
});

describe('hostile files are refused with the file, line and field', () => {
  const samples = (lines: unknown[]) => [{ name: 'bad_samples_t.jsonl', bytes: enc(lines.map((l) => JSON.stringify(l)).join('\n')) }];
  const good = { doc_id: 0, target: 'A', filtered_resps: 'A', input: 'q' };

  it('wrong types', () => {
    const e = refusal(() => readForeign(samples([good, { ...good, doc_id: { x: 1 } }]), { model: 'm' }));
    expect(e.location).toEqual({ file: 'bad_samples_t.jsonl', line: 2, field: 'doc_id' });
    expect(e.message).toContain('bad_samples_t.jsonl:2: doc_id:');
    const e2 = refusal(() => readForeign(samples([{ ...good, filtered_resps: 42 }, good]), { model: 'm' }));
    expect(e2.message).toMatch(/bad_samples_t\.jsonl:1: filtered_resps/);
    const log = inspectLog(mcqAnswers(bundle));
    (log.samples as Record<string, unknown>[])[3]!.input = 17;
    const e3 = refusal(() => readForeign([{ name: 'bad.json', bytes: enc(JSON.stringify(log)) }]));
    expect(e3.location).toEqual({ file: 'bad.json', field: 'samples[3].input' });
    const zipped = inspectEvalBytes(log);
    const e4 = refusal(() => readForeign([{ name: 'bad.eval', bytes: zipped }]));
    expect(e4.location?.file).toBe('bad.eval/samples/3_epoch_1.json');
    expect(e4.location?.field).toBe('input');
  });

  it('not JSON, not an object, a line that is not a sample', () => {
    expect(refusal(() => readForeign([{ name: 'a_samples_t.jsonl', bytes: enc(`${JSON.stringify(good)}\n{not json`) }], { model: 'm' })).location).toMatchObject({ file: 'a_samples_t.jsonl', line: 2 });
    expect(refusal(() => readForeign(samples([good, [1, 2]]), { model: 'm' })).location).toMatchObject({ line: 2 });
    expect(refusal(() => readForeign(samples([good, { target: 'A' }]), { model: 'm' })).location).toMatchObject({ line: 2, field: 'doc_id' });
  });

  it('huge fields', () => {
    const huge = 'x'.repeat(FOREIGN_LIMITS.maxTextChars + 1);
    const e = refusal(() => readForeign(samples([good, good, { ...good, filtered_resps: huge }]), { model: 'm' }));
    expect(e.location).toMatchObject({ line: 3, field: 'filtered_resps' });
    expect(e.message).toContain('more than the 1,000,000');
    const id = refusal(() => readForeign(samples([{ ...good, doc_id: 'i'.repeat(600) }]), { model: 'm' }));
    expect(id.location).toMatchObject({ line: 1, field: 'doc_id' });
  });

  it('a log-likelihood task (several requests per document) is not taken for answers', () => {
    const e = refusal(() => readForeign(samples([{ ...good, arguments: { gen_args_0: { arg_0: 'q', arg_1: ' A' }, gen_args_1: { arg_0: 'q', arg_1: ' B' } }, resps: [[['-1.2', 'False']], [['-0.3', 'True']]], filtered_resps: [['-1.2', 'False'], ['-0.3', 'True']] }]), { model: 'm' }));
    expect(e.location).toMatchObject({ line: 1, field: 'resps' });
  });

  it('VLMEvalKit: a file without prediction, a row without an index, a broken workbook', () => {
    const tsv = (t: string) => [{ name: 'M_D.tsv', bytes: enc(t) }];
    expect(refusal(() => readForeign(tsv('index\tquestion\n1\tq\n'))).location).toMatchObject({ file: 'M_D.tsv', field: 'prediction' });
    expect(refusal(() => readForeign(tsv('index\tquestion\tprediction\n1\tq\tA\n\tq\tB\n'))).location).toMatchObject({ file: 'M_D.tsv', line: 3, field: 'index' });
    const bad = zipSync({ '[Content_Types].xml': strToU8('<Types/>'), 'xl/workbook.xml': strToU8('<workbook><sheets><sheet name="S" r:id="rId1"/></sheets></workbook>'), 'xl/_rels/workbook.xml.rels': strToU8('<Relationships><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>'), 'xl/worksheets/sheet1.xml': strToU8('<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>5</v></c></row></sheetData></worksheet>') });
    expect(refusal(() => readForeign([{ name: 'M_D.xlsx', bytes: bad }])).location).toMatchObject({ file: 'M_D.xlsx', line: 1, field: 'A1' });
    expect(refusal(() => readForeign([{ name: 'M_D.xlsx', bytes: enc('not a zip') }])).location).toMatchObject({ file: 'M_D.xlsx' });
  });

  it('files of no known kind, or a NeuroEval run export, are sent elsewhere by name', () => {
    expect(refusal(() => readForeign([{ name: 'x.json', bytes: enc('{"a":1}') }])).message).toContain('x.json: not a result file NeuroEval reads');
    expect(refusal(() => readForeign([{ name: 'r.json', bytes: enc('{"format":"neuroeval-run"}') }])).message).toContain('NeuroEval run export');
  });
});

describe('hostile Every Eval Ever records and Inspect AI logs are refused (or their repeats named) with file, line and field', () => {
  const eee = (mutate: (lines: Record<string, unknown>[]) => void) => {
    const lines = eeeInstancesJsonl(mcqAnswers(bundle)).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    mutate(lines);
    return [{ name: 'x_samples.jsonl', bytes: enc(lines.map((l) => JSON.stringify(l)).join('\n')) }];
  };

  it('Every Eval Ever: a score that is text, a second model, a repeated record, a missing required field, a huge response', () => {
    const score = refusal(() => readForeign(eee((l) => ((l[2]!.evaluation as Record<string, unknown>).score = '1'))));
    expect(score.location).toEqual({ file: 'x_samples.jsonl', line: 3, field: 'evaluation.score' });
    expect(score.message).toContain('x_samples.jsonl:3: evaluation.score: expected a number');
    expect(refusal(() => readForeign(eee((l) => (l[4]!.model_id = 'another/model')))).location).toEqual({ file: 'x_samples.jsonl', line: 5, field: 'model_id' });
    expect(refusal(() => readForeign(eee((l) => l.push({ ...l[1]! }))))).toMatchObject({ location: { file: 'x_samples.jsonl', line: 7, field: 'evaluation_result_id' } });
    // (The first line is what tells the file's kind, so the gap is on a later one.)
    expect(refusal(() => readForeign(eee((l) => delete l[2]!.interaction_type))).location).toEqual({ file: 'x_samples.jsonl', line: 3, field: 'interaction_type' });
    const huge = refusal(() => readForeign(eee((l) => (l[5]!.output = { raw: ['y'.repeat(FOREIGN_LIMITS.maxTextChars + 1)] }))));
    expect(huge.location).toEqual({ file: 'x_samples.jsonl', line: 6, field: 'output.raw' });
  });

  it('Inspect AI: a huge answer is refused by sample and field; the same sample twice is named with where each one is', () => {
    const log = inspectLog(mcqAnswers(bundle));
    const samples = log.samples as Record<string, unknown>[];
    samples[2]!.output = { model: 'openai/gpt-4o', choices: [{ message: { role: 'assistant', content: 'z'.repeat(FOREIGN_LIMITS.maxTextChars + 1) }, stop_reason: 'stop' }], completion: '' };
    const e = refusal(() => readForeign([{ name: 'big.json', bytes: enc(JSON.stringify(log)) }]));
    expect(e.location?.file).toBe('big.json');
    expect(e.location?.field).toMatch(/^samples\[2\]\.output\./);
    expect(e.message).toContain('more than the 1,000,000');

    const twice = inspectLog(mcqAnswers(bundle));
    (twice.samples as unknown[]).push(structuredClone((twice.samples as unknown[])[1]));
    const read = readForeign([{ name: 'twice.json', bytes: enc(JSON.stringify(twice)) }]);
    expect(read.items).toHaveLength(7);
    const m = matchForeign(read, bundle.cases);
    expect(m.matched).toHaveLength(6);
    expect(m.duplicates.map((d) => [d.item.at.file, d.item.at.field, d.first.at.field, d.caseId])).toEqual([['twice.json', 'samples[6]', 'samples[1]', bundle.cases[1]!.id]]);
  });
});

describe('the Results page sends a JSON Lines file to the right reader', () => {
  const neurovlm = JSON.stringify({ experiment_id: 'e1', model_requested: 'qwen', input: {}, response: '{}' });

  it('lm-eval, lmms-eval and Every Eval Ever records are another harness\'s answers', () => {
    expect(isForeignFileName('s_samples_neuro_mcq.jsonl', lmEvalSamplesJsonl(mcqAnswers(bundle)).slice(0, 65_536))).toBe(true);
    expect(isForeignFileName('x.jsonl', lmmsEvalSamplesJsonl(mcqAnswers(bundle)))).toBe(true);
    expect(isForeignFileName('x_samples.jsonl', `\n${eeeInstancesJsonl(mcqAnswers(bundle))}`)).toBe(true);
    // A first record longer than the head read is judged by its keys.
    const long = JSON.stringify({ doc_id: 0, doc: { question: 'q'.repeat(70_000) }, target: 'A', resps: [['A']], filtered_resps: ['A'] });
    expect(isForeignFileName('x.jsonl', long.slice(0, 65_536))).toBe(true);
  });

  it('NeuroVLM-Bench lines, broken or not, go to the NeuroVLM-Bench reader (which names the lines it cannot read)', () => {
    expect(isForeignFileName('r.jsonl', `${neurovlm}\n${neurovlm}\n`)).toBe(false);
    expect(isForeignFileName('broken.jsonl', '{"input": {}}\n{"input": \n')).toBe(false);
    expect(isForeignFileName('broken.jsonl', '{"input": \n[1]\n')).toBe(false);
    expect(isForeignFileName('r.jsonl', `${JSON.stringify({ experiment_id: 'e', doc_id: 1, input: 'x'.repeat(70_000) })}`.slice(0, 65_536))).toBe(false);
    expect(isForeignFileName('r.jsonl', '')).toBe(false);
  });
});
