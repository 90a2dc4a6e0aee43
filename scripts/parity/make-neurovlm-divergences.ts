/**
 * Writes one NeuroVLM-Bench harness result file per way NeuroEval's figures
 * and the benchmark's evaluator used to part: a bad line and a byte order
 * mark, line ends, records the evaluator groups differently, Python's string
 * and number rules, an internal marker in the data, and a run export mixing
 * NeuroVLM-Bench and Neural-MedBench answers. Records are written by
 * NeuroEval's own export (`toNeuroVlmJsonl`) where a run can produce them,
 * else in the harness layout, then patched where a file must be malformed.
 *
 *   npx tsx scripts/parity/make-neurovlm-divergences.ts <out-folder>
 *
 * Then run the benchmark's evaluator on them with
 * `scripts/parity/neurovlm-evaluator.py` (docs/reference-values.md says
 * how); files and figures are committed under test/fixtures/neurovlm-parity/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchCase } from '../../src/core/bundle/types.ts';
import { toNeuroVlmJsonl } from '../../src/core/scoring/io/neurovlm-jsonl.ts';
import type { ScorableResponse } from '../../src/core/scoring/neurovlm/items.ts';
import { mulberry32 } from '../../src/core/random/mulberry32.ts';

const rand = mulberry32(20261201);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

const GOLD = [
  { class: 'tumor', subclass: 'glioma', modality: 'MRI', modality_subtype: 'T1', axial_plane: 'axial', dataset: 'figshare' },
  { class: 'tumor', subclass: 'meningioma', modality: 'MRI', modality_subtype: 'T2', axial_plane: 'sagittal', dataset: 'figshare' },
  { class: 'stroke', subclass: 'ischemic', modality: 'CT', modality_subtype: '', axial_plane: 'axial', dataset: 'stroke' },
  { class: 'normal', subclass: '', modality: 'MRI', modality_subtype: 'FLAIR', axial_plane: 'axial', dataset: 'Br35H' },
  { class: 'multiple sclerosis', subclass: '', modality: 'MRI', modality_subtype: 'FLAIR', axial_plane: 'axial', dataset: 'sclerosis' },
] as const;

type Gold = Record<string, unknown>;

function answerFor(g: Gold): Record<string, unknown> {
  const right = rand() < 0.65;
  return {
    modality: right ? g.modality : pick(['CT', 'MRI', 'MR', null]),
    plane: right ? g.axial_plane : pick(['axial', 'coronal', 'sagittal', 'none']),
    diagnosis_name: right ? g.class : pick(['tumor', 'stroke', 'normal', 'none', 'Tumour']),
    diagnosis_detailed: right ? g.subclass || null : pick(['glioma', 'ischemic', null, 'n/a']),
    icd10_code: null,
    severity_score: 0.5,
    diagnosis_confidence: Math.round(rand() * 100) / 100,
    severity_confidence: 0.5,
    specialized_sequence: right ? g.modality_subtype || null : pick(['T1', 'T2', 'none', null]),
  };
}

function harness(model: string | null, g: Gold, i: number, answer: unknown = answerFor(g), api: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    experiment_id: `${model ?? 'anon'}_${i}`,
    input: { image_path: `img_${i}.png`, ...(model === null ? {} : { model_requested: model }), metadata: g },
    output: { status: 'success', parsed_response: answer, error: null },
    api_response: { model: model ?? 'served-model-name', prompt_tokens: 1200 + i, completion_tokens: 90 + (i % 7), latency_ms: 900 + 37 * i, ...api },
  };
}

const lines = (records: readonly unknown[]): string[] => records.map((r) => JSON.stringify(r));

/** A bad line (line 16, cut short) and a UTF-8 byte order mark before the first record. */
function badLine(): string {
  const ls = lines(Array.from({ length: 24 }, (_, i) => harness('medgemma_4b', GOLD[i % GOLD.length]!, i)));
  ls[15] = ls[15]!.slice(0, 120);
  return `\uFEFF${ls.join('\n')}\n`;
}

/** Lone \r and \r\n line ends; a U+2028, a U+0085 and a \v inside records, which str.splitlines() would split at. */
function lineEnds(): string {
  const recs = Array.from({ length: 20 }, (_, i) => harness('medgemma_27b', GOLD[i % GOLD.length]!, i));
  (recs[3]!.output as Record<string, Record<string, unknown>>).parsed_response!.diagnosis_detailed = 'glioma\u2028(low grade)';
  (recs[4]!.output as Record<string, Record<string, unknown>>).parsed_response!.diagnosis_name = 'tumor\u0085';
  (recs[5]!.output as Record<string, Record<string, unknown>>).parsed_response!.plane = 'axial\u000b';
  const ls = lines(recs);
  return ls.map((l, i) => l + (i % 3 === 0 ? '\r' : i % 3 === 1 ? '\r\n' : '\n')).join('');
}

/** Records carrying NeuroEval's `neuroeval.variant` key, and successful calls that name no model_requested. */
function grouping(): string {
  const recs = Array.from({ length: 20 }, (_, i) => {
    const r = harness(i % 5 === 4 ? null : 'medgemma_4b', GOLD[i % GOLD.length]!, i);
    return i % 5 === 4 ? r : { ...r, neuroeval: { runId: 'r1', itemKey: `k${i}`, variant: i % 2 ? 'few-shot' : 'none', sample: 0 } };
  });
  return `${lines(recs).join('\n')}\n`;
}

/** Python's str() of numbers, repr() escapes inside str(list), float()/int() whitespace and digits, code-point order. */
function pythonValues(): string {
  const numbers = [1.0, -0.0, 1e16, 2.5, 1e-5];
  const recs = Array.from({ length: 24 }, (_, i) => {
    const g: Gold = { ...GOLD[i % GOLD.length]! };
    const a = answerFor(g);
    if (i % 6 === 0) g.class = numbers[(i / 6) % numbers.length];
    if (i % 6 === 1) a.diagnosis_name = ['tumor\u00a0', 'glioma\u200b'];
    if (i % 6 === 2) a.diagnosis_confidence = pick(['\u00850.8', '\u001c0.7', ' 0.6\u3000', '\u0660.\u0669', '0_5']);
    if (i % 6 === 3) a.plane = pick(['\uffffplane', '\u{1F600}plane']);
    if (i % 6 === 4) g.axial_plane = pick(['\uffffplane', '\u{10000}plane']);
    return harness(i % 4 === 0 ? '\u{10000}model' : '\uffffmodel', g, i, a, i % 6 === 5 ? { prompt_tokens: '\u0661\u0662\u0660\u0660', completion_tokens: '\u00a090 ' } : {});
  });
  // Numbers Python reads as ints or floats, written as JSON.stringify cannot write them.
  return `${lines(recs)
    .map((l, i) => (i === 0 ? l.replace('"class":1', '"class":1.0') : i === 6 ? l.replace('"class":0', '"class":-0.0') : i === 12 ? l.replace('"class":10000000000000000', '"class":10000000000000001') : l))
    .join('\n')}\n`;
}

/** A gold label equal to markers NeuroEval once used inside: the abstention placeholder and a special-number tag. */
function markers(): string {
  const recs = Array.from({ length: 16 }, (_, i) => {
    const g: Gold = { ...GOLD[i % GOLD.length]!, axial_plane: i % 2 ? '\u0000dummy' : 'axial', subclass: i % 4 === 1 ? '\u0000python-float:NaN' : GOLD[i % GOLD.length]!.subclass };
    const a = answerFor(g);
    a.plane = i % 4 < 2 ? null : 'axial';
    return harness('medgemma_4b', g, i, a);
  });
  return `${lines(recs).join('\n')}\n`;
}

/** `neuroeval export --format neurovlm-jsonl` of a run with NeuroVLM-Bench and Neural-MedBench answers. */
function mixedExport(): string {
  const cases: BenchCase[] = [];
  const responses: ScorableResponse[] = [];
  GOLD.forEach((g, i) => {
    const labels = { diagnosis_name: g.class, diagnosis_detailed: g.subclass || null, modality: g.modality, specialized_sequence: g.modality_subtype || null, plane: g.axial_plane };
    cases.push({ id: `nvb-${i}`, taskFamily: 'classification', images: [], questions: [{ id: 'q1', text: 'Classify.', reference: { labels } }], meta: { dataset: g.dataset, file_path: `nvb-${i}.png` } } as unknown as BenchCase);
    cases.push({ id: `nmb-${i}`, taskFamily: 'diagnosis', images: [], questions: [{ id: 'q1', text: 'Most likely diagnosis?', reference: { answer: 'Glioblastoma' } }] } as unknown as BenchCase);
  });
  let n = 0;
  for (const c of cases) {
    const parsed = c.id.startsWith('nvb') ? answerFor({}) : null;
    responses.push({
      id: `r:${c.id}`, runId: 'r', itemKey: `${c.id}|q1|qwen25vl_32b|none|0`, caseId: c.id, questionId: 'q1', modelId: 'qwen25vl_32b', variant: 'none', sample: 0,
      rawText: parsed ? JSON.stringify(parsed) : 'Glioblastoma, given the ring enhancement.', parsed, parseError: null,
      usage: { promptTokens: 1000 + n, completionTokens: 50, ttftMs: null, prefillTps: null, decodeTps: null }, latencyMs: 1200 + n, finishReason: 'stop', createdAt: 1_700_000_000_000 + n++,
    } as unknown as ScorableResponse);
  }
  return toNeuroVlmJsonl({ id: 'mixed-run' }, responses, cases);
}

function main(): void {
  const [outDir] = process.argv.slice(2);
  if (!outDir) {
    console.error('usage: make-neurovlm-divergences.ts <out-folder>');
    process.exit(2);
  }
  mkdirSync(outDir, { recursive: true });
  const files: Record<string, string> = {
    'div-bad-line.jsonl': badLine(),
    'div-line-ends.jsonl': lineEnds(),
    'div-grouping.jsonl': grouping(),
    'div-python-values.jsonl': pythonValues(),
    'div-markers.jsonl': markers(),
    'div-mixed-export.jsonl': mixedExport(),
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(outDir, name), text);
  console.log(`wrote ${Object.keys(files).length} files to ${outDir}`);
}

main();
