import { writeFileSync } from 'node:fs';
import { neuroVlmJsonlRecords } from '../../core/scoring/io/neurovlm-jsonl.ts';
import { parseRunExport } from '../../core/scoring/io/run-export.ts';
import type { CliCommand } from '../command.ts';
import { readUnicodeFile } from '../files.ts';
import { InvalidInputError } from '../../core/errors.ts';
import { neuroVlmResponses } from './score.ts';

const FORMATS = ['neurovlm-jsonl'] as const;

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
  usage: 'export --format neurovlm-jsonl <run-export.json> [--out file]',
  summary: 'Convert a run export to the NeuroVLM-Bench harness\'s JSONL layout',
  help: [
    'Usage: neuroeval export --format neurovlm-jsonl <run-export.json> [--out file]',
    '',
    'Writes one line per answer given under the NeuroVLM-Bench protocol, in its harness layout (input.metadata',
    'ground truth, output.parsed_response, api_response tokens and latency), which',
    '`neuroeval score` and the benchmark\'s own evaluate_detailed.py both read.',
    'Ground truth comes from the cases inside the run export.',
    '',
    'Options:',
    '  --format <kind>   Output layout: neurovlm-jsonl',
    '  --out <file>      Write here instead of standard output',
  ].join('\n'),
  async run(args, io) {
    const { file, format, out, problem } = parseArgs(args);
    if (problem || !file || !format) {
      io.err.write(`neuroeval export: ${problem ?? (file ? 'give --format neurovlm-jsonl' : 'give a run export file')}\n`);
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
