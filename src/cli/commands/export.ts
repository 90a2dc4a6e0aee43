import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readBuildInfo } from '../../../build/build-info.ts';
import { exportForeign, FOREIGN_EXPORT_FORMATS, isForeignExportFormat, type ForeignExportFormat } from '../../core/interchange/write/index.ts';
import { scoreRun } from '../../core/scoring/run/score-run.ts';
import { neuroVlmJsonlRecords } from '../../core/scoring/io/neurovlm-jsonl.ts';
import type { RunExport } from '../../core/scoring/io/run-export.ts';
import { askedOnlyOf, exportProtocol, neuroVlmResponses } from './score.ts';
import { parseRunExport } from '../../core/scoring/io/run-export.ts';
import type { CliCommand } from '../command.ts';
import { readUnicodeFile } from '../files.ts';
import { InvalidInputError } from '../../core/errors.ts';

const FORMATS = ['neurovlm-jsonl', ...Object.keys(FOREIGN_EXPORT_FORMATS)] as const;

interface ExportArgs {
  file?: string;
  format?: string;
  out?: string;
  problem?: string;
}

function parseArgs(args: readonly string[]): ExportArgs {
  const out: ExportArgs = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--format' || a === '--out' || a === '-o') {
      const v = args[++i];
      if (v === undefined) return { problem: `${a} needs a value` };
      if (a === '--format') out.format = v;
      else out.out = v;
    } else if (a.startsWith('-')) return { problem: `unknown option ${a}` };
    else if (out.file === undefined) out.file = a;
    else return { problem: `one input file only (got "${out.file}" and "${a}")` };
  }
  return out;
}

/**
 * `neuroeval export`: converts a run export into another tool's result layout,
 * so results produced here and elsewhere can be compared with the same scorer.
 */
export const exportCommand: CliCommand = {
  name: 'export',
  usage: 'export --format <kind> <run-export.json> [--out file | folder]',
  summary: 'Convert a run export for NeuroVLM-Bench, Inspect AI, lm-eval or Every Eval Ever',
  help: [
    'Usage: neuroeval export --format <kind> <run-export.json> [--out file | folder]',
    '',
    'neurovlm-jsonl: one line per answer given under the NeuroVLM-Bench protocol, in',
    '  its harness layout (input.metadata ground truth, output.parsed_response,',
    '  api_response tokens and latency), which `neuroeval score` and the benchmark\'s own evaluate_detailed.py',
    '  both read. Ground truth comes from the cases inside the run export.',
    'inspect-json, inspect-eval: an Inspect AI eval log per model and variant, which',
    '  `inspect view` opens (samples with input, output, scores and metadata).',
    'lm-eval: per model, results_<date>.json and samples_<task>_<date>.jsonl as',
    '  lm-evaluation-harness writes them with --log_samples.',
    'every-eval-ever: per model, the aggregate record and its instance-level records',
    '  (schema 0.3.0), under data/<benchmark>/<developer>/<model>/.',
    'The last four carry NeuroEval\'s scores: the run is scored here by rules (as',
    '`neuroeval score` without a judge or encoder) and --out names a folder.',
    '',
    'Options:',
    `  --format <kind>   ${FORMATS.join(', ')}`,
    '  --out <path>      Write here (a file, or a folder for the multi-file formats)',
    '                    instead of standard output',
  ].join('\n'),
  async run(args, io) {
    const { file, format, out, problem } = parseArgs(args);
    if (problem || !file || !format) {
      io.err.write(`neuroeval export: ${problem ?? (file ? `give --format (${FORMATS.join(', ')})` : 'give a run export file')}\n`);
      return 2;
    }
    if (!(FORMATS as readonly string[]).includes(format)) {
      io.err.write(`neuroeval export: unknown format "${format}" (known: ${FORMATS.join(', ')})\n`);
      return 2;
    }
    let text: string;
    try {
      text = readUnicodeFile(file);
    } catch (error) {
      io.err.write(`neuroeval export: ${error instanceof InvalidInputError ? error.message : `${file}: ${error instanceof Error ? error.message.replace(/^[A-Z]+: /, '') : String(error)}`}\n`);
      return 1;
    }
    let exported;
    try {
      exported = parseRunExport(text, file);
    } catch (error) {
      io.err.write(`neuroeval export: ${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
    if (isForeignExportFormat(format)) return writeForeign(format, exported, out, io);
    // The harness file holds the answers given under the NeuroVLM-Bench protocol only: another benchmark's answers carry no
    // class ground truth, and the benchmark's evaluator stops on such a file (np.column_stack).
    const kept = neuroVlmResponses(exported);
    const left = exported.responses.length - kept.length;
    if (left) io.err.write(`neuroeval export: ${left} answer(s) given under another protocol than NeuroVLM-Bench structured JSON are left out.\n`);
    const { records, missingCases } = neuroVlmJsonlRecords({ id: exported.run.id, provenance: exported.provenance }, kept, exported.cases ?? []);
    const jsonl = records.map((r) => `${JSON.stringify(r)}\n`).join('');
    if (missingCases.length) {
      const why = exported.cases ? `${missingCases.length} answer(s) have no case in the export (first: ${missingCases[0]})` : 'the export holds no cases';
      io.err.write(`neuroeval export: warning: ${why}; their ground truth is written empty (not scorable).\n`);
    }
    if (out) {
      try {
        writeFileSync(out, jsonl);
      } catch (error) {
        io.err.write(`neuroeval export: ${out}: ${error instanceof Error ? error.message.replace(/^[A-Z]+: /, '') : String(error)}\n`);
        return 1;
      }
      io.err.write(`Wrote ${records.length} line(s) to ${out}\n`);
    } else io.out.write(jsonl);
    return 0;
  },
};

/** A run in another tool's format, scored here by rules; written under `out` (or, for one file, to standard output). */
async function writeForeign(format: ForeignExportFormat, exported: RunExport, out: string | undefined, io: Parameters<CliCommand['run']>[1]): Promise<number> {
  const scored = await scoreRun({ protocolId: exportProtocol(exported), responses: exported.responses, cases: exported.cases ?? [], ...askedOnlyOf(exported) });
  const build = readBuildInfo(new URL('../../../', import.meta.url).pathname);
  let files;
  try {
    files = exportForeign(format, { exported, scores: { items: scored.items, summary: scored.summary }, appVersion: build.version });
  } catch (error) {
    io.err.write(`neuroeval export: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  if (!exported.cases?.length) io.err.write('neuroeval export: warning: the export holds no cases, so questions and references are written empty.\n');
  if (!out) {
    if (files.length !== 1 || typeof files[0]!.data !== 'string') {
      io.err.write(`neuroeval export: ${FOREIGN_EXPORT_FORMATS[format].label} is ${files.length} file(s); give --out <folder>.\n`);
      return 2;
    }
    io.out.write(files[0]!.data);
    return 0;
  }
  try {
    for (const f of files) {
      const path = join(out, f.path);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, f.data);
    }
  } catch (error) {
    io.err.write(`neuroeval export: ${out}: ${error instanceof Error ? error.message.replace(/^[A-Z]+: /, '') : String(error)}\n`);
    return 1;
  }
  for (const f of files) io.err.write(`Wrote ${join(out, f.path)}\n`);
  return 0;
}
