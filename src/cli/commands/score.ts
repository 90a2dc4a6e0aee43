import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { readNeuroVlmJsonl } from '../../core/scoring/io/neurovlm-jsonl.ts';
import { isRunExport, parseRunExport } from '../../core/scoring/io/run-export.ts';
import { groupNeuroVlmItems, neuroVlmItemsFromRun } from '../../core/scoring/neurovlm/items.ts';
import { scoreNeuroVlm, type FieldReport, type Interval, type NeuroVlmReport, type Proportion } from '../../core/scoring/neurovlm/score.ts';
import type { NeuroVlmItem } from '../../core/scoring/neurovlm/types.ts';
import type { CliCommand } from '../command.ts';

interface ScoreArgs {
  file?: string;
  json: boolean;
  seed: number;
  resamples: number;
  problem?: string;
}

function parseArgs(args: readonly string[]): ScoreArgs {
  const out: ScoreArgs = { json: false, seed: 0, resamples: 1000 };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--json') out.json = true;
    else if (a === '--seed' || a === '--resamples') {
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
}

/** A run export (one JSON object with `format: "neuroeval-run"`), else harness JSONL. */
function load(text: string, file: string): LoadedInput {
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
    return { format: 'neuroeval-run', items: neuroVlmItemsFromRun(e.responses, e.cases ?? []), warnings };
  }
  const { items, warnings } = readNeuroVlmJsonl(text, file);
  return { format: 'neurovlm-jsonl', items, warnings };
}

const pct = (x: number): string => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : '–');
const dec = (x: number, digits = 3): string => (Number.isFinite(x) ? x.toFixed(digits) : '–');
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
    'Scores NeuroVLM-Bench answers per model: for each field (diagnosis_name,',
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
  ].join('\n'),
  async run(args, io) {
    const { file, json, seed, resamples, problem } = parseArgs(args);
    if (problem || !file) {
      io.err.write(`neuroeval score: ${problem ?? 'give a run export or a results JSONL to score'}\n`);
      return 2;
    }
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      io.err.write(`neuroeval score: ${file}: ${error instanceof Error ? error.message.replace(/^[A-Z]+: /, '') : String(error)}\n`);
      return 1;
    }
    let input: LoadedInput;
    try {
      input = load(text, file);
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
      report: scoreNeuroVlm(items, { seed, resamples }),
    }));
    if (json) {
      io.out.write(`${JSON.stringify({ input: file, format: input.format, items: input.items.length, warnings: input.warnings, groups }, null, 2)}\n`);
      return 0;
    }
    const label = input.format === 'neuroeval-run' ? 'NeuroEval run export' : 'NeuroVLM-Bench harness JSONL';
    const out = [
      `NeuroVLM-Bench scores for ${file} (${label}, ${input.items.length} answers)`,
      `Scorer neurovlm-bench v${groups[0]?.report.scorer.version ?? '1'}; bootstrap ${resamples} resamples, seed ${seed}; intervals are 95%.`,
      '',
    ];
    if (groups.length === 0) out.push('No answers to score.');
    for (const g of groups) out.push(...human(g.key, g.report));
    io.out.write(`${out.join('\n')}\n`);
    return 0;
  },
};
