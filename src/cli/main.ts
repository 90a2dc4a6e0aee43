/**
 * `neuroeval` command line. Each command lives in `commands/` and uses the
 * same `src/core` modules as the browser app, so a file that validates here
 * imports there, and scores computed here match the app's.
 */
import { readFileSync } from 'node:fs';
import { messageWithLocation } from '../core/errors.ts';
import { exportCommand } from './commands/export.ts';
import { importCommand } from './commands/import.ts';
import { hashCommand } from './commands/hash.ts';
import { scoreCommand } from './commands/score.ts';
import { validateCommand } from './commands/validate.ts';
import { modelManifestCommand } from './commands/model-manifest.ts';
import { modelFetchCommand } from './commands/model-fetch.ts';
import { mergeCommand } from './commands/merge.ts';
import { runCommand } from './commands/run.ts';
import { reportCommand } from './commands/report.ts';
import type { CliCommand, CliIo } from './command.ts';

const COMMANDS: readonly CliCommand[] = [validateCommand, runCommand, mergeCommand, importCommand, scoreCommand, reportCommand, exportCommand, modelManifestCommand, modelFetchCommand, hashCommand];

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.usage.length));
  return [
    'NeuroEval — evaluate vision-language models on neuroimaging benchmarks, locally.',
    '',
    'Usage: neuroeval <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`),
    '',
    'Options:',
    '  -h, --help     Show this help, or a command\'s help with `neuroeval <command> --help`',
    '  -v, --version  Print the version',
    '',
    'Nothing is uploaded: every command reads and writes local files only.',
  ].join('\n');
}

/** Runs the CLI; returns the process exit code (0 ok, 1 failure, 2 usage error). */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === '-h' || first === '--help' || first === 'help') {
    io.out.write(`${usage()}\n`);
    return first === undefined ? 2 : 0;
  }
  if (first === '-v' || first === '--version') {
    io.out.write(`neuroeval ${version()}\n`);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === first);
  if (!command) {
    io.err.write(`neuroeval: unknown command "${first}"\n\n${usage()}\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out.write(`${command.help}\n`);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    io.err.write(`neuroeval ${command.name}: ${messageWithLocation(error)}\n`);
    return 1;
  }
}
