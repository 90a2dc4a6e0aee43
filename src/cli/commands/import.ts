import { parseMappingOption } from '../mapping-option.ts';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { readBuildInfo } from '../../../build/build-info.ts';
import { checkInputSize } from '../../core/bundle/read-inputs.ts';
import { InvalidInputError } from '../../core/errors.ts';
import { matchForeign, parseIdMapping, type MatchResult } from '../../core/interchange/match.ts';
import { readForeign } from '../../core/interchange/read/index.ts';
import { foreignRunExport } from '../../core/interchange/to-run.ts';
import { HARNESS_NAMES, type ForeignLog } from '../../core/interchange/types.ts';
import { getProtocol } from '../../core/protocols/index.ts';
import { AUTO_PROTOCOL } from '../../core/runner/protocol-adapter.ts';
import type { CliCommand } from '../command.ts';
import { readUnicodeFile } from '../files.ts';
import { loadBenchmark } from '../run/benchmark.ts';
import { writeRunExport } from '../run/output.ts';

const HELP = [
  'Usage: neuroeval import --benchmark <input> <answers-file> [<companion>] --out <run.json> [options]',
  '',
  'Reads answers another harness made and writes them as a NeuroEval run export of',
  'the benchmark, which `neuroeval score` and `neuroeval report` read and the app',
  'imports (Results → Import run) for review. Answers are parsed and scored by',
  'NeuroEval\'s own protocols, never by the harness\'s scores.',
  '',
  'Answer files:',
  '  VLMEvalKit       <model>_<dataset>.xlsx, .tsv or .json (index, question, prediction)',
  '  lm-eval          samples_<task>_<date>.jsonl [results_<date>.json]',
  '  lmms-eval        <date>_samples_<task>.jsonl [<date>_results.json]',
  '  Inspect AI       <log>.eval or <log>.json',
  '  Every Eval Ever  <uuid>_samples.jsonl [<uuid>.json]',
  '',
  'Items are matched to cases by NeuroEval\'s ids (files NeuroEval wrote), then by',
  'the harness\'s id when it is a case id whose question agrees, then by question',
  'text. Unmatched and repeated items are listed by file, line and reason.',
  '',
  'Options:',
  '  --benchmark <path>   The benchmark the answers are for (as for `neuroeval run`)',
  '  --format <kind>, --mapping <json>   How to read the benchmark (as for `neuroeval validate`)',
  '  --out <file>         The run export to write (required)',
  '  --protocol <id>      Protocol that parses and scores the answers (default auto:',
  '                       each case\'s own)',
  '  --map <file>         Harness id → case (or case#question): a JSON object or a',
  '                       two-column CSV with a header row',
  '  --model <name>       The model\'s name where the file does not hold it',
  '  --name <text>        The run\'s name',
  '  --allow-unmatched    Write the matched answers even when some items match no case',
  '                       or repeat one (default: refuse, writing nothing)',
  '  --json               Print a JSON summary on stdout',
].join('\n');

interface ImportArgs {
  benchmarks: string[];
  format?: string;
  mapping?: string;
  files: string[];
  out?: string;
  protocol: string;
  map?: string;
  model?: string;
  name?: string;
  allowUnmatched: boolean;
  json: boolean;
}

function parseArgs(args: readonly string[]): ImportArgs {
  const out: ImportArgs = { benchmarks: [], files: [], protocol: AUTO_PROTOCOL, allowUnmatched: false, json: false };
  for (let i = 0; i < args.length; i++) {
    const raw = args[i]!;
    const eq = raw.startsWith('--') ? raw.indexOf('=') : -1;
    const a = eq > 0 ? raw.slice(0, eq) : raw;
    const value = (): string => {
      const v = eq > 0 ? raw.slice(eq + 1) : args[++i];
      if (v === undefined || v === '') throw new InvalidInputError(`${a} needs a value`, { field: a });
      return v;
    };
    if (a === '--benchmark') out.benchmarks.push(value());
    else if (a === '--format') out.format = value();
    else if (a === '--mapping') out.mapping = value();
    else if (a === '--out' || a === '-o') out.out = value();
    else if (a === '--protocol') out.protocol = value();
    else if (a === '--map') out.map = value();
    else if (a === '--model') out.model = value();
    else if (a === '--name') out.name = value();
    else if (a === '--allow-unmatched') out.allowUnmatched = true;
    else if (a === '--json') out.json = true;
    else if (a.startsWith('-')) throw new InvalidInputError(`unknown option ${a}`, { field: a });
    else out.files.push(a);
  }
  return out;
}

/** The first unmatched and repeated items, one per line, with where they are and why. */
export function matchReport(log: ForeignLog, match: MatchResult, limit = 20): string[] {
  const where = (at: { file?: string; line?: number; field?: string }) => [at.file, at.line, at.field].filter((x) => x !== undefined && x !== '').join(':');
  const lines = [
    ...match.unmatched.slice(0, limit).map((u) => `unmatched: ${where(u.item.at)}: item "${u.item.id}": ${u.why}`),
    ...match.duplicates.slice(0, limit).map((d) => `duplicate: ${where(d.item.at)}: item "${d.item.id}" answers case "${d.caseId}" question "${d.questionId}" again (first at ${where(d.first.at)}); left out`),
  ];
  const more = match.unmatched.length + match.duplicates.length - lines.length;
  return more > 0 ? [...lines, `… and ${more} more`] : lines;
}

/**
 * `neuroeval import`: another harness's answers as a run export of a
 * benchmark (src/core/interchange).
 */
export const importCommand: CliCommand = {
  name: 'import',
  usage: 'import --benchmark <input> <answers-file> --out <run.json>',
  summary: 'Read VLMEvalKit, lm-eval, lmms-eval, Inspect AI or Every Eval Ever answers as a run export',
  help: HELP,
  async run(args, io) {
    let a: ImportArgs;
    try {
      a = parseArgs(args);
      if (a.benchmarks.length === 0) throw new InvalidInputError('give the benchmark with --benchmark <bundle.zip | folder | file>', { field: '--benchmark' });
      if (a.files.length === 0) throw new InvalidInputError('give the answers file to import', { field: 'file' });
      if (!a.out) throw new InvalidInputError('give the output file with --out <run.json>', { field: '--out' });
      if (a.protocol !== AUTO_PROTOCOL && !getProtocol(a.protocol)) throw new InvalidInputError(`--protocol: unknown protocol "${a.protocol}"`, { field: '--protocol' });
    } catch (error) {
      io.err.write(`neuroeval import: ${error instanceof Error ? error.message : String(error)}\n`);
      return 2;
    }
    const mapping = parseMappingOption(a.mapping);
    const bundle = await loadBenchmark({ targets: a.benchmarks, ...(a.format ? { format: a.format } : {}), ...(mapping ? { options: { mapping } } : {}) });
    const files = a.files.map((f) => {
      if (!existsSync(f)) throw new InvalidInputError(`${f}: no such file.`, { file: f });
      checkInputSize(f, statSync(f).size);
      return { name: f, bytes: new Uint8Array(readFileSync(f)) };
    });
    // A samples log without its results JSON: lm-eval and lmms-eval name the model's folder after it.
    const folderModel = a.model ?? (files.length === 1 && /\.jsonl$/i.test(files[0]!.name) && files[0]!.name.includes('/') ? basename(files[0]!.name.slice(0, files[0]!.name.lastIndexOf('/'))) : undefined);
    const log = readForeign(files, folderModel ? { model: folderModel } : {});
    const ids = a.map ? parseIdMapping(readUnicodeFile(a.map), a.map) : {};
    const match = matchForeign(log, bundle.cases, ids);
    for (const w of log.warnings) io.err.write(`warning: ${w}\n`);
    const report = matchReport(log, match);
    const problems = match.unmatched.length + match.duplicates.length;
    if (match.matched.length === 0 || (problems > 0 && !a.allowUnmatched)) {
      for (const l of report) io.err.write(`${l}\n`);
      io.err.write(
        match.matched.length === 0
          ? `neuroeval import: no item of ${log.file} matches a case of "${bundle.manifest.name}"; nothing was written. Map the ids with --map.\n`
          : `neuroeval import: ${match.unmatched.length} item(s) unmatched and ${match.duplicates.length} repeated; nothing was written. Map them with --map, or give --allow-unmatched to write the ${match.matched.length} matched.\n`,
      );
      return 1;
    }
    for (const l of report) io.err.write(`${l}\n`);
    const build = readBuildInfo(new URL('../../../', import.meta.url).pathname);
    const exported = foreignRunExport({
      log, match,
      benchmark: { id: bundle.manifest.id, name: bundle.manifest.name, version: bundle.manifest.version, contentHash: bundle.manifest.contentHash, ...(bundle.manifest.protocolDefaults ? { protocolDefaults: bundle.manifest.protocolDefaults } : {}) },
      cases: bundle.cases,
      protocolId: a.protocol,
      app: { version: build.version, commit: build.commit },
      importedAt: Date.now(),
      ...(a.name ? { name: a.name } : {}),
    });
    writeRunExport(a.out!, exported);
    const failed = exported.responses.filter((r) => r.error).length;
    const summary = {
      out: a.out, runId: exported.run.id, harness: log.harness, model: log.model, sha256: log.sha256,
      items: log.items.length, matched: match.matched.length, unmatched: match.unmatched.length, duplicates: match.duplicates.length, failed,
    };
    if (a.json) io.out.write(`${JSON.stringify(summary, null, 2)}\n`);
    else io.err.write(`${HARNESS_NAMES[log.harness]} · ${log.model}: ${match.matched.length} of ${log.items.length} item(s) matched to "${bundle.manifest.name}"${failed ? ` (${failed} failed call(s))` : ''}. Wrote ${a.out}\n`);
    return 0;
  },
};
