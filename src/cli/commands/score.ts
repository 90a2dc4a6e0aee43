import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { askedOnlyFor } from '../../core/readers/study.ts';
import { readNeuroVlmJsonl } from '../../core/scoring/io/neurovlm-jsonl.ts';
import { neuroVlmBenchForRun, neuroVlmBenchOfBytes } from '../../core/scoring/neurovlm/evaluator/index.ts';
import type { NeuroVlmBenchBreakdown } from '../../core/scoring/neurovlm/evaluator/types.ts';
import { neuroVlmBenchLines } from './score-neurovlm-bench.ts';
import { isRunExport, parseRunExport, type RunExport } from '../../core/scoring/io/run-export.ts';
import { groupNeuroVlmItems, neuroVlmItemsFromRun } from '../../core/scoring/neurovlm/items.ts';
import { protocolFor } from '../../core/protocols/registry.ts';
import { byPatient, decimal, metricInterval, metricNumber, metricView, percent } from '../../core/results/format.ts';
import { JUDGE_CAVEAT } from '../../core/scoring/equivalence/judge.ts';
import { describeBertScoreSetting } from '../../core/scoring/metrics/bertscore-layers.ts';
import { scoreRun, type RunScoringResult } from '../../core/scoring/run/score-run.ts';
import { loadEncoder, loadJudge, type Disposable } from '../local-models.ts';
import { scoreNeuroVlm, type FieldReport, type NeuroVlmReport, type Proportion } from '../../core/scoring/neurovlm/score.ts';
import type { Interval } from '../../core/model/geometry.ts';
import type { NeuroVlmItem } from '../../core/scoring/neurovlm/types.ts';
import type { CliCommand } from '../command.ts';
import { readUnicodeFile } from '../files.ts';
import { InvalidInputError } from '../../core/errors.ts';
import { checkGates, gateFigures, parseGate, type Gate, type GateVerdict } from './score-gates.ts';
import { endpointOptionsOf } from '../run/endpoint.ts';
import { endpointEncoder, endpointJudge, FileScoringCache } from '../scoring-endpoints.ts';
import type { LocalJudge, SimilarityEncoder } from '../../core/scoring/run/index.ts';

/** What re-scoring took from the cache file, for people and for --json. */
function cacheLine(run: RunScoringResult, cache: FileScoringCache): { line: string; counts: Record<string, number | string> } {
  const s = run.summary;
  const v = s.encoderVectors;
  const counts = { file: cache.path, judgeAsked: s.judgeCalls, judgeReused: s.judgeReused, vectorsComputed: v?.computed ?? 0, vectorsReused: v?.reused ?? 0 };
  const judge = run.config.judge ? `judge ${s.judgeReused} of ${s.judgeReused + s.judgeCalls} verdicts reused from the cache (${s.judgeCalls} asked)` : null;
  const enc = v ? `encoder ${v.reused} of ${v.reused + v.computed} vectors reused (${v.computed} computed)` : null;
  return { line: `Cache ${cache.path}: ${[judge, enc].filter(Boolean).join('; ')}.`, counts };
}

interface ScoreArgs {
  file?: string;
  json: boolean;
  seed: number;
  resamples: number;
  judge?: string;
  encoder?: string;
  judgeEndpoint?: string;
  judgeModel?: string;
  encoderEndpoint?: string;
  encoderModel?: string;
  apiKeyEnv?: string;
  timeout?: number;
  retries?: number;
  cache?: string;
  noCache: boolean;
  batchSize?: number;
  idf: boolean;
  baseline?: { precision: number; recall: number; f: number };
  gates: Gate[];
  problem?: string;
}

function parseArgs(args: readonly string[]): ScoreArgs {
  const out: ScoreArgs = { json: false, seed: 0, resamples: 1000, idf: false, gates: [], noCache: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--json') out.json = true;
    else if (a === '--idf') out.idf = true;
    else if (a === '--no-cache') out.noCache = true;
    else if (['--judge-endpoint', '--judge-model', '--encoder-endpoint', '--encoder-model', '--api-key-env', '--cache'].includes(a)) {
      const v = args[++i];
      if (v === undefined || v.startsWith('--')) return { ...out, problem: `${a} needs a value` };
      const key = ({ '--judge-endpoint': 'judgeEndpoint', '--judge-model': 'judgeModel', '--encoder-endpoint': 'encoderEndpoint', '--encoder-model': 'encoderModel', '--api-key-env': 'apiKeyEnv', '--cache': 'cache' } as const)[a as '--cache'];
      out[key] = v;
    } else if (a === '--bertscore-batch-size') {
      const n = Number(args[++i]);
      if (!Number.isInteger(n) || n < 1) return { ...out, problem: `${a} needs a whole number ≥ 1` };
      out.batchSize = n;
    } else if (a === '--timeout' || a === '--retries') {
      const n = Number(args[++i]);
      if (a === '--timeout' ? !(n > 0) : !(Number.isInteger(n) && n >= 0 && n <= 20)) return { ...out, problem: `${a} needs ${a === '--timeout' ? 'a number of seconds > 0' : 'a whole number from 0 to 20'}` };
      if (a === '--timeout') out.timeout = n;
      else out.retries = n;
    }
    else if (a === '--fail-under') {
      try {
        out.gates.push(parseGate(args[++i] ?? ''));
      } catch (error) {
        return { ...out, problem: error instanceof Error ? error.message : String(error) };
      }
    }
    else if (a === '--baseline') {
      const parts = (args[++i] ?? '').split(',').map(Number);
      if (parts.length !== 3 || parts.some((x) => !Number.isFinite(x) || x >= 1)) return { ...out, problem: '--baseline needs three numbers below 1: P,R,F (bert_score\'s rescale row for the encoder)' };
      out.baseline = { precision: parts[0]!, recall: parts[1]!, f: parts[2]! };
    } else if (a === '--judge' || a === '--encoder') {
      const v = args[++i];
      if (v === undefined || v.startsWith('-')) return { ...out, problem: `${a} needs a model folder` };
      if (a === '--judge') out.judge = v;
      else out.encoder = v;
    } else if (a === '--seed' || a === '--resamples') {
      const v = args[++i];
      const n = Number(v);
      if (v === undefined || !Number.isInteger(n) || n < 0 || (a === '--resamples' && n < 1)) return { ...out, problem: `${a} needs a whole number${a === '--resamples' ? ' ≥ 1' : ''}` };
      if (a === '--seed') out.seed = n;
      else out.resamples = n;
    } else if (a.startsWith('-')) return { ...out, problem: `unknown option ${a}` };
    else if (out.file === undefined) out.file = a;
    else return { ...out, problem: `one input file only (got "${out.file}" and "${a}")` };
  }
  return out;
}

type InputFormat = 'neuroeval-run' | 'neurovlm-jsonl';

interface LoadedInput {
  readonly format: InputFormat;
  readonly items: NeuroVlmItem[];
  readonly warnings: string[];
  /** The benchmark evaluator's own figures for the same answers. */
  readonly bench: NeuroVlmBenchBreakdown;
  /** The whole export, for protocol-aware scoring of every answer. */
  readonly exported?: RunExport;
}

/** The protocol an export's run used (`auto` when it does not say). */
export function exportProtocol(e: RunExport): string {
  return e.provenance?.protocol.id ?? e.run.config?.protocolId ?? 'auto';
}

/** A reader study's export is scored only on what its readers were asked (readers/study.ts `askedOnlyFor`). */
export function askedOnlyOf(e: RunExport): { askedOnly?: (protocolId: string, metric: string) => boolean } {
  const askedOnly = e.provenance ? askedOnlyFor({ provenance: e.provenance }) : undefined;
  return askedOnly ? { askedOnly } : {};
}

/** Only a model's answers given under the NeuroVLM-Bench protocol go into its report and its harness file (a reader's are not model output). */
export function neuroVlmResponses(e: RunExport): RunExport['responses'] {
  if (askedOnlyOf(e).askedOnly) return [];
  const protocol = exportProtocol(e);
  if (protocol !== 'auto') return protocol === 'neurovlm-structured' ? e.responses : [];
  const cases = new Map((e.cases ?? []).map((c) => [c.id, c]));
  return e.responses.filter((r) => {
    const c = cases.get(r.caseId);
    return !c || protocolFor(c).id === 'neurovlm-structured';
  });
}

/** A run export (one JSON object with `format: "neuroeval-run"`), else harness JSONL (`bytes`: the file as the benchmark's evaluator reads it). */
function load(text: string, file: string, bytes: Uint8Array): LoadedInput {
  let whole: unknown;
  try {
    whole = JSON.parse(text);
  } catch {
    whole = undefined;
  }
  const looksLikeExport = isRunExport(whole) || (whole === undefined && extname(file).toLowerCase() === '.json' && /^\s*\{[\s\S]*"format"\s*:\s*"neuroeval-run"/.test(text.slice(0, 4096)));
  if (looksLikeExport) {
    const e = parseRunExport(text, file);
    const warnings = e.cases?.length ? [] : [`${file}: the run export holds no cases, so there is no ground truth: only validity, safety and efficiency are scored.`];
    const responses = neuroVlmResponses(e);
    // The benchmark's figures are its evaluator's on the run as `neuroeval export --format neurovlm-jsonl` writes it: the answers given under its protocol.
    const bench = neuroVlmBenchForRun(e.run.id, responses, e.cases ?? []);
    return { format: 'neuroeval-run', items: neuroVlmItemsFromRun(responses, e.cases ?? []), warnings, bench, exported: e };
  }
  const { items, warnings } = readNeuroVlmJsonl(text, file);
  return { format: 'neurovlm-jsonl', items, warnings, bench: neuroVlmBenchOfBytes(bytes) };
}

const pct = (x: number): string => percent(x);
const dec = decimal;
const ci = (i: Interval, f: (x: number) => string = pct): string => (Number.isFinite(i.lower) ? `[${f(i.lower)}–${f(i.upper)}]` : '[–]');
const prop = (p: Proportion): string => `${p.count}/${p.n} = ${pct(p.rate)} ${ci(p.wilson)}`;

function table(rows: readonly (readonly string[])[], rightFrom = 1): string[] {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]?.length ?? 0)));
  return rows.map((r) => r.map((cell, c) => (c < rightFrom ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ').trimEnd());
}

function fieldSummary(fields: readonly FieldReport[]): string[] {
  return table([
    ['Field', 'Scored', 'Not scorable', 'Accuracy', 'Wilson 95%', 'Bootstrap 95%', 'Macro-F1', 'Bootstrap 95%', 'Weighted-F1', 'F1 w/ abst.', 'Macro-P', 'Macro-R', 'Bal. acc.', 'Abstained'],
    ...fields.map((f) => [
      f.field,
      String(f.scored),
      String(f.notScorable),
      pct(f.accuracy.value),
      ci(f.accuracy.wilson),
      ci(f.accuracy.bootstrap),
      pct(f.macroF1.value),
      ci(f.macroF1.bootstrap),
      pct(f.weightedF1),
      pct(f.f1WithAbstention.macro),
      pct(f.macroPrecision),
      pct(f.macroRecall),
      pct(f.balancedAccuracy),
      pct(f.abstentionRate),
    ]),
  ]);
}

function fieldDetail(f: FieldReport): string[] {
  if (f.scored === 0) return [`${f.field}: nothing scorable.`];
  const out = [`${f.field} per label (F1 with abstention ${pct(f.f1WithAbstention.macro)} macro, ${pct(f.f1WithAbstention.weighted)} weighted):`];
  out.push(...table([
    ['  Label', 'Support', 'Predicted', 'Precision', 'Recall', 'F1', 'Bal. acc.', 'Abstained'],
    ...f.labels.map((l) => [`  ${l.label}`, String(l.support), String(l.predicted), pct(l.precision), pct(l.recall), pct(l.f1), pct(l.balancedAccuracy), pct(l.abstentionRate)]),
  ]));
  const { labels, matrix, abstained, other } = f.confusion;
  out.push('  Confusion matrix (rows: ground truth; columns: answer):');
  out.push(...table([
    ['    gold \\ answer', ...labels, 'undetermined', 'other'],
    ...labels.map((l, i) => [`    ${l}`, ...(matrix[i] ?? []).map(String), String(abstained[i] ?? 0), String(other[i] ?? 0)]),
  ]));
  return out;
}

function human(key: string, r: NeuroVlmReport): string[] {
  const fields = Object.values(r.fields);
  const c = r.calibration;
  const s = r.safety;
  const e = r.efficiency;
  return [
    `== ${key} ==`,
    `Calls: ${r.calls.total}${r.calls.failed ? ` (${r.calls.failed} failed, left out of every metric)` : ''}`,
    `JSON valid: ${prop(r.jsonValid)} of successful calls`,
    '',
    ...fieldSummary(fields),
    'Macro-F1 counts an abstention as a class of its own (as the harness does); F1 w/ abst., Macro-P and Macro-R count it as a miss only.',
    '',
    ...fields.flatMap((f) => [...fieldDetail(f), '']),
    `Calibration (diagnosis_confidence vs diagnosis_name correct; n=${c.n}, ${c.missingConfidence} without a confidence scored as 0):`,
    `  ECE (10 bins) ${dec(c.ece)}   Brier ${dec(c.brier)}   AUROC ${dec(c.auroc)}   mean confidence ${dec(c.meanConfidence)} vs accuracy ${dec(c.accuracy)}`,
    ...c.reliability.map((p) => `  bin ${p.bin === 0 ? '[' : '('}${p.lower.toFixed(1)}, ${p.upper.toFixed(1)}]: n=${p.count}, confidence ${dec(p.meanConfidence)}, accuracy ${dec(p.accuracy)}`),
    '',
    `Safety flags (${s.n} parsed answers):`,
    ...table([
      ['  mandatory field missing', `${prop(s.missingField)}${s.missingField.count ? ` (${Object.entries(s.missingByField).filter(([, n]) => n).map(([f, n]) => `${f} ${n}`).join(', ')})` : ''}`],
      ['  subtype inconsistent with class', prop(s.inconsistentSubtype)],
      ['  ICD-10 code with "normal"', prop(s.icdWithNormal)],
      ['  any flag', prop(s.any)],
    ], 2),
    '',
    `Efficiency: median latency ${Number.isFinite(e.medianLatencyMs) ? `${Math.round(e.medianLatencyMs)} ms` : '–'} per image (n=${e.latencyN}); ` +
      `tokens per image: prompt ${dec(e.promptTokensPerImage, 1)}, completion ${dec(e.completionTokensPerImage, 1)}, total ${dec(e.totalTokensPerImage, 1)} (n=${e.tokensN})`,
    '',
  ];
}

/** Every metric of every arm (protocol-aware scoring of a run export). */
function allMetrics(result: RunScoringResult): string[] {
  const bert = result.config.bertscore ? `; ${describeBertScoreSetting(result.config.bertscore)}` : '';
  const out = [`All metrics per model (scorer v${result.config.scorerVersion}; judge: ${result.config.judge ?? 'none, rules only'}; encoder: ${result.config.encoder ?? 'none'}${bert}):`, ''];
  const sampled = result.summary.arms.some((a) => a.metrics.some((m) => m.perSample));
  for (const arm of result.summary.arms) {
    out.push(`== ${arm.key} == ${arm.responses} answers${arm.failed ? `, ${arm.failed} failed` : ''}; protocols ${arm.protocols.join(', ')}`);
    out.push(...table([
      ['  Metric', 'Value', '95% CI', 'n', 'Not scorable', 'Decided by', ...(sampled ? ['Per sample 95% CI (n)'] : [])],
      ...arm.metrics.map((m) => [
        `  ${m.label}${m.dependsOnJudge ? ' †' : ''}${m.encoder ? ` (encoder ${m.encoder})` : ''}`,
        metricNumber(m, m.mean),
        `[${metricInterval(m)}]`,
        metricView(m).count.replace(/^n=/, ''),
        String(m.notScorable),
        Object.entries(m.sources).map(([k, n]) => `${k} ${n}`).join(', ') || '–',
        ...(sampled ? [m.perSample ? `[${metricView(m, 'sample').interval}] (${metricView(m, 'sample').count})` : 'same'] : []),
      ]),
    ]));
    const classes = Object.entries(arm.proposedErrorClasses);
    if (classes.length) out.push(`  Error classes proposed by the judge (${arm.wrong} wrong answers): ${classes.map(([c, n]) => `${c} ${n}`).join(', ')}`);
    out.push('');
  }
  if (result.summary.arms.some((a) => a.metrics.some(byPatient))) {
    out.push('Intervals are by patient: several cases share a patient key, so the 95% CI resamples patients with all their cases, questions and samples (seeded cluster bootstrap) and n counts patients (cases and answers beside); "Per sample" counts every answer as an independent item (too narrow: answers about one patient are correlated).', '');
  } else if (sampled) out.push('Several samples per question: the 95% CI resamples questions with all their samples (seeded cluster bootstrap) and n counts questions; "Per sample" counts every sample as an independent item (too narrow: samples of one question are correlated).', '');
  if (result.summary.arms.some((a) => a.metrics.some((m) => m.dependsOnJudge))) out.push(`† ${JUDGE_CAVEAT}`, '');
  return out;
}

/**
 * `neuroeval score`: NeuroVLM-Bench metrics for a run export or a harness
 * JSONL, from the same scorer the app uses; one report per model (and variant).
 */
export const scoreCommand: CliCommand = {
  name: 'score',
  usage: 'score <run-export.json | results.jsonl> [--json] [--seed N]',
  summary: 'Score NeuroVLM-Bench answers (a run export or the harness\'s JSONL)',
  help: [
    'Usage: neuroeval score <run-export.json | neurovlm-results.jsonl> [options]',
    '',
    'Prints NeuroVLM-Bench\'s own figures per model, exactly as the benchmark\'s',
    'evaluator (evaluate_detailed.py) computes them and under its names (JSON:',
    '"neurovlm_bench" per group; per source dataset: "neurovlm_bench_datasets"),',
    'then NeuroEval\'s own analysis, which is not the benchmark\'s figures:',
    '',
    'NeuroEval\'s analysis per model: for each field (diagnosis_name,',
    'diagnosis_detailed, modality, specialized_sequence, plane) accuracy with Wilson',
    'and bootstrap 95% intervals, macro-F1 (bootstrap), weighted-F1, F1 with',
    'abstention, macro precision/recall, balanced accuracy per label, abstention',
    'rates and the confusion matrix; calibration of diagnosis_confidence (ECE with',
    '10 bins, Brier, AUROC); JSON-valid rate; safety flags; latency and tokens.',
    'Ground truth left empty is "not scorable" for that field and counted apart.',
    '',
    'Inputs: a NeuroEval run export (format "neuroeval-run"), or a results JSONL',
    'in the NeuroVLM-Bench harness layout (input.metadata, output.parsed_response).',
    '',
    'Options:',
    '  --json            Print the reports as JSON',
    '  --seed <n>        Bootstrap seed (default 0)',
    '  --resamples <n>   Bootstrap resamples (default 1000)',
    '  --judge <folder>  Run exports: a local text model (transformers.js layout) as',
    '                    judge for diagnosis equivalence, rubric items and error classes',
    '  --encoder <folder> Run exports: a local encoder for BERTScore and cosine',
    '  --idf             With --encoder: IDF-weighted BERTScore over the references',
    '  --baseline P,R,F  With --encoder: rescale BERTScore with this baseline',
  '  --judge-endpoint <url> --judge-model <name>   Run exports: a judge served by an',
  '                    OpenAI-compatible server (vLLM, Ollama, llama.cpp, TGI)',
  '  --encoder-endpoint <url> --encoder-model <name>   An encoder served there',
  '                    (/v1/embeddings): cosine; BERTScore needs a folder encoder',
  '  --api-key-env <VAR>, --timeout <s>, --retries <n>   For the endpoints, as for',
  '                    `neuroeval run --endpoint`',
  '  --cache <file>    Keep judge replies and encoder vectors here (default: the',
  '                    run export\'s name + .scoring-cache.jsonl, beside it); a',
  '                    re-score takes what it holds and says how many were reused',
  '  --no-cache        Keep nothing',
  '  --bertscore-batch-size <n>  bert_score\'s batch size (default 64, as bert_score:',
  '                    pairs padded together; 1 scores each pair alone)',
  '  --fail-under <metric>=<value>  Exit 1 when a model\'s 95% interval lower bound',
  '                    for the metric is below the value (e.g. pass@1=0.6 or 60%),',
  '                    printing model, metric, bound and bar; repeatable. Metrics are',
  '                    NeuroEval\'s: a run\'s metrics (pass@1, lesion.all, …) and',
  '                    neurovlm.<field>.accuracy / .macro_f1. Unknown names exit 2',
    '',
    'A run export is also scored answer by answer under its own protocols (pass@1/5,',
    'lesion fields, multiple choice and paired sets, rubric points, ROUGE, token F1,',
    'BERTScore): the "All metrics" section, and "run" in --json.',
  ].join('\n'),
  async run(args, io) {
    const parsed = parseArgs(args);
    const { file, json, seed, resamples, problem } = parsed;
    if (problem || !file) {
      io.err.write(`neuroeval score: ${problem ?? 'give a run export or a results JSONL to score'}\n`);
      return 2;
    }
    let text: string;
    let bytes: Uint8Array;
    try {
      text = readUnicodeFile(file);
      bytes = readFileSync(file);
    } catch (error) {
      io.err.write(`neuroeval score: ${error instanceof InvalidInputError ? error.message : `${file}: ${error instanceof Error ? error.message.replace(/^[A-Z]+: /, '') : String(error)}`}\n`);
      return 1;
    }
    let input: LoadedInput;
    try {
      input = load(text, file, bytes);
    } catch (error) {
      io.err.write(`neuroeval score: ${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
    for (const w of input.warnings.slice(0, 20)) io.err.write(`warning: ${w}\n`);
    if (input.warnings.length > 20) io.err.write(`warning: …and ${input.warnings.length - 20} more\n`);
    const groups = [...groupNeuroVlmItems(input.items)].map(([key, items]) => ({
      key,
      modelId: items[0]!.modelId,
      variant: items[0]!.variant ?? null,
      // The benchmark's figures, exactly as its evaluator computes them, under its names.
      neurovlm_bench: input.bench.all[key] ?? null,
      // NeuroEval's own analysis: its normalisation, intervals, safety flags (not the benchmark's figures).
      report: scoreNeuroVlm(items, { seed, resamples }),
    }));
    let run: RunScoringResult | undefined;
    let cache: FileScoringCache | undefined;
    if (input.exported) {
      const loaded: Disposable[] = [];
      try {
        if (parsed.judge && parsed.judgeEndpoint) throw new InvalidInputError('give --judge <folder> or --judge-endpoint <url>, not both', { field: '--judge-endpoint' });
        if (parsed.encoder && parsed.encoderEndpoint) throw new InvalidInputError('give --encoder <folder> or --encoder-endpoint <url>, not both', { field: '--encoder-endpoint' });
        const endpoint = endpointOptionsOf({ ...(parsed.apiKeyEnv ? { apiKeyEnv: parsed.apiKeyEnv } : {}), ...(parsed.timeout ? { timeout: parsed.timeout } : {}), ...(parsed.retries !== undefined ? { retries: parsed.retries } : {}) });
        let judge: LocalJudge | undefined;
        if (parsed.judge) loaded.push((judge = await loadJudge(parsed.judge)) as LocalJudge & Disposable);
        else if (parsed.judgeEndpoint) judge = await endpointJudge(parsed.judgeEndpoint, parsed.judgeModel ?? '', endpoint);
        let encoder: SimilarityEncoder | undefined;
        if (parsed.encoder) loaded.push((encoder = await loadEncoder(parsed.encoder)) as SimilarityEncoder & Disposable);
        else if (parsed.encoderEndpoint) encoder = await endpointEncoder(parsed.encoderEndpoint, parsed.encoderModel ?? '', endpoint);
        cache = (judge || encoder) && !parsed.noCache ? new FileScoringCache(parsed.cache ?? `${file}.scoring-cache.jsonl`) : undefined;
        const e = input.exported;
        run = await scoreRun(
          { protocolId: exportProtocol(e), responses: e.responses, cases: e.cases ?? [], ...askedOnlyOf(e) },
          { seed, resamples, idf: parsed.idf, ...(parsed.baseline ? { baseline: parsed.baseline } : {}), ...(judge ? { judge } : {}), ...(encoder ? { encoder } : {}), ...(cache ? { cache } : {}), ...(parsed.batchSize ? { bertscoreBatchSize: parsed.batchSize } : {}) },
        );
      } catch (error) {
        io.err.write(`neuroeval score: ${error instanceof Error ? error.message : String(error)}\n`);
        return 1;
      } finally {
        for (const d of loaded) await d.dispose();
      }
    } else if (parsed.judge || parsed.encoder || parsed.judgeEndpoint || parsed.encoderEndpoint) {
      io.err.write('warning: --judge and --encoder (and their endpoints) apply to run exports only; a harness JSONL has NeuroVLM-Bench answers, which rules score.\n');
    }
    const reuse = run && cache ? cacheLine(run, cache) : null;
    let verdicts: GateVerdict[] = [];
    try {
      verdicts = checkGates(parsed.gates, gateFigures(run, groups));
    } catch (error) {
      io.err.write(`neuroeval score: ${error instanceof Error ? error.message : String(error)}\n`);
      return 2;
    }
    const gated = (): number => {
      for (const v of verdicts) io.err.write(`${v.pass ? 'gate passed' : 'gate FAILED'}: ${v.reason}\n`);
      return verdicts.some((v) => !v.pass) ? 1 : 0;
    };
    if (json) {
      const runPart = run ? { run: { config: run.config, summary: run.summary } } : {};
      const b = input.bench;
      const datasets = {
        neurovlm_bench: b.all,
        neurovlm_bench_datasets: b.datasets,
        ...(b.failure ? { neurovlm_bench_failure: b.failure } : {}),
        ...(b.datasetFailures ? { neurovlm_bench_dataset_failures: b.datasetFailures } : {}),
      };
      const gatePart = parsed.gates.length ? { gates: verdicts } : {};
      const cachePart = reuse ? { cache: reuse.counts } : {};
      io.out.write(`${JSON.stringify({ input: file, format: input.format, items: input.items.length, warnings: input.warnings, groups, ...datasets, ...runPart, ...gatePart, ...cachePart }, null, 2)}\n`);
      return gated();
    }
    const label = input.format === 'neuroeval-run' ? 'NeuroEval run export' : 'NeuroVLM-Bench harness JSONL';
    const out = [
      `NeuroVLM-Bench scores for ${file} (${label}, ${input.items.length} answers)`,
      `Scorer neurovlm-bench v${groups[0]?.report.scorer.version ?? '1'}; bootstrap ${resamples} resamples, seed ${seed}; intervals are 95%.`,
      '',
    ];
    if (groups.length === 0) out.push(run ? 'No NeuroVLM-Bench answers in this run.' : 'No answers to score.', '');
    else {
      out.push(...neuroVlmBenchLines(input.bench));
      out.push(
        "NeuroEval's own analysis (not the benchmark's figures): NeuroEval's normalisation (British and dataset spellings; ground truth that",
        'normalises to an abstention is not scorable), plain accuracy with Wilson and seeded bootstrap intervals, JSON valid = parsed objects',
        'over successful calls, and safety flags as NeuroEval defines them.',
        '',
      );
    }
    for (const g of groups) out.push(...human(g.key, g.report));
    if (run) out.push(...allMetrics(run));
    if (reuse) out.push(reuse.line, '');
    io.out.write(`${out.join('\n')}\n`);
    return gated();
  },
};
