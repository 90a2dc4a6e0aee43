import { readFileSync } from 'node:fs';
import { InvalidInputError } from '../../core/errors.ts';
import { parseRunExport } from '../../core/scoring/io/run-export.ts';
import type { CliCommand } from '../command.ts';
import { readUnicodeFile } from '../files.ts';
import { JOURNAL_FORMAT } from '../run/journal.ts';
import { mergeRunExports, type MergeInput } from '../run/merge.ts';
import { writeRunExport } from '../run/output.ts';

interface MergeArgs {
  files: string[];
  out?: string;
  json: boolean;
}

function parseArgs(args: readonly string[]): MergeArgs {
  const out: MergeArgs = { files: [], json: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--out' || a === '-o') {
      const v = args[++i];
      if (v === undefined) throw new InvalidInputError(`${a} needs a value`, { field: a });
      out.out = v;
    } else if (a.startsWith('--out=')) out.out = a.slice('--out='.length);
    else if (a === '--json') out.json = true;
    else if (a.startsWith('-')) throw new InvalidInputError(`unknown option ${a}`, { field: a });
    else out.files.push(a);
  }
  return out;
}

function readInput(file: string): MergeInput {
  const bytes = new Uint8Array(readFileSync(file));
  const text = readUnicodeFile(file);
  if (text.trimStart().startsWith('{"kind":"header"') && text.includes(`"format":"${JOURNAL_FORMAT}"`)) {
    throw new InvalidInputError(`${file}: this is the journal of a run; merge the run exports (the --out files of \`neuroeval run\`), which \`neuroeval run\` writes from it.`, { file });
  }
  return { file, bytes, run: parseRunExport(text, file) };
}

/**
 * `neuroeval merge`: joins the outputs of `neuroeval run --shard i/n` into
 * one run export (run/merge.ts).
 */
export const mergeCommand: CliCommand = {
  name: 'merge',
  usage: 'merge <shard-output…> --out <run.json>',
  summary: 'Join the outputs of a sharded `neuroeval run` into one run export',
  help: [
    'Usage: neuroeval merge <shard-output.json…> --out <run.json> [--json]',
    '',
    'Joins the run exports written by `neuroeval run --shard 1/n` … `--shard n/n` into',
    'one run export, equal answer for answer to the run done in one piece, which the',
    'app imports as one run. Refuses, naming the file and item, outputs of another',
    'run (other benchmark content, models, protocol, sampling, selection…), a shard',
    'missing or given twice, an item answered twice or in the wrong shard, and items',
    'not answered yet (resume that shard first). The provenance records each merged',
    'file with its SHA-256, shard and answer count.',
    '',
    'Options:',
    '  --out <file>   Where to write the merged run export (required)',
    '  --json         Print a JSON summary on stdout',
  ].join('\n'),
  async run(args, io) {
    let a: MergeArgs;
    try {
      a = parseArgs(args);
      if (a.files.length === 0) throw new InvalidInputError('give the shard outputs to merge');
      if (!a.out) throw new InvalidInputError('give the output file with --out <run.json>', { field: '--out' });
    } catch (error) {
      io.err.write(`neuroeval merge: ${error instanceof Error ? error.message : String(error)}\n`);
      return 2;
    }
    const result = mergeRunExports(a.files.map(readInput));
    writeRunExport(a.out!, result.merged);
    if (a.json) {
      io.out.write(`${JSON.stringify({ out: a.out, runId: result.merged.run.id, answers: result.answers, files: result.files }, null, 2)}\n`);
    } else {
      for (const f of result.files) io.err.write(`${f.file}: ${f.shard}, ${f.answers} answer(s)\n`);
      io.err.write(`Wrote ${a.out}: run ${result.merged.run.id}, ${result.answers} answer(s), every planned item once.\n`);
    }
    return 0;
  },
};
