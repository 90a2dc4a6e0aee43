import { readBuildInfo } from '../../../build/build-info.ts';
import { InvalidInputError } from '../../core/errors.ts';
import { buildHtmlReport } from '../../core/results/report-html.ts';
import { reportInputOf, resultsOfRunExport } from '../../core/results/run-report.ts';
import { parseRunExport } from '../../core/scoring/io/run-export.ts';
import { scoreRun } from '../../core/scoring/run/score-run.ts';
import type { CliCommand } from '../command.ts';
import { readUnicodeFile } from '../files.ts';
import { writeFileAtomic } from '../run/output.ts';
import { askedOnlyOf, exportProtocol } from './score.ts';

interface ReportArgs {
  file?: string;
  out?: string;
  metric?: string;
  seed: number;
  resamples: number;
}

/** @throws InvalidInputError (a usage error) naming the option. */
function parseArgs(args: readonly string[]): ReportArgs {
  const out: ReportArgs = { seed: 0, resamples: 1000 };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const value = (): string => {
      const v = args[++i];
      if (v === undefined || v.startsWith('--')) throw new InvalidInputError(`${a} needs a value`, { field: a });
      return v;
    };
    if (a === '--out' || a === '-o') out.out = value();
    else if (a === '--metric') out.metric = value();
    else if (a === '--seed' || a === '--resamples') {
      const n = Number(value());
      if (!Number.isInteger(n) || n < (a === '--seed' ? 0 : 1)) throw new InvalidInputError(`${a} needs a whole number${a === '--resamples' ? ' ≥ 1' : ''}`, { field: a });
      if (a === '--seed') out.seed = n;
      else out.resamples = n;
    } else if (a.startsWith('-')) throw new InvalidInputError(`unknown option ${a}`, { field: a });
    else if (out.file === undefined) out.file = a;
    else throw new InvalidInputError(`one run export only (got "${out.file}" and "${a}")`);
  }
  return out;
}

/** The report's time stamp: SOURCE_DATE_EPOCH (seconds) when set, so a pipeline can make the file reproducible; else now. */
function generatedAt(env: Readonly<Record<string, string | undefined>>): Date {
  const epoch = env.SOURCE_DATE_EPOCH;
  if (epoch === undefined || epoch === '') return new Date();
  const s = Number(epoch);
  if (!Number.isInteger(s) || s < 0) throw new InvalidInputError(`SOURCE_DATE_EPOCH must be whole seconds since 1970, not "${epoch}"`, { field: 'SOURCE_DATE_EPOCH' });
  return new Date(s * 1000);
}

/**
 * `neuroeval report`: the app's self-contained HTML report of a run export,
 * scored with the same core as `neuroeval score` and summarised as the app's
 * report export does (src/core/results/run-report.ts).
 */
export const reportCommand: CliCommand = {
  name: 'report',
  usage: 'report <run-export.json> --out <report.html>',
  summary: 'Write the app\'s HTML report of a run export (scored here)',
  help: [
    'Usage: neuroeval report <run-export.json> --out <report.html> [options]',
    '',
    'Scores the run export with the same scorer as `neuroeval score` (rules only, with',
    'the reviews the export carries) and writes the HTML report the app exports from',
    'its Results page: one file, no script and no outside reference, that opens',
    'offline and prints to PDF.',
    '',
    'Options:',
    '  --out <file>       The HTML file to write (required)',
    '  --metric <key>     Leaderboard metric and the one tested and broken down',
    '                     (default: the leaderboard\'s headline metric, as in the app)',
    '  --seed <n>         Bootstrap seed (default 0)',
    '  --resamples <n>    Bootstrap resamples (default 1000)',
    '',
    'SOURCE_DATE_EPOCH (seconds), when set, is the report\'s "generated" time.',
  ].join('\n'),
  async run(args, io) {
    let a: ReportArgs;
    try {
      a = parseArgs(args);
      if (!a.file) throw new InvalidInputError('give the run export to report on');
      if (!a.out) throw new InvalidInputError('give the HTML file to write with --out <report.html>', { field: '--out' });
    } catch (error) {
      io.err.write(`neuroeval report: ${error instanceof Error ? error.message : String(error)}\n`);
      return 2;
    }
    const file = a.file;
    const e = parseRunExport(readUnicodeFile(file), file);
    const when = generatedAt(process.env);
    const scores = await scoreRun(
      { protocolId: exportProtocol(e), responses: e.responses, cases: e.cases ?? [], reviews: e.reviews ?? [] , ...askedOnlyOf(e) },
      { seed: a.seed, resamples: a.resamples },
    );
    const data = resultsOfRunExport(e, scores, when.getTime());
    const metrics = new Set(data.scored[0]!.set.summary.arms.flatMap((arm) => arm.metrics.map((m) => m.metric)));
    if (a.metric !== undefined && !metrics.has(a.metric)) {
      io.err.write(`neuroeval report: --metric: the run has no metric "${a.metric}". Available: ${[...metrics].sort().join(', ') || 'none'}\n`);
      return 2;
    }
    const { version } = readBuildInfo(new URL('../../../', import.meta.url).pathname);
    const html = buildHtmlReport(reportInputOf(data, { ...(a.metric ? { metric: a.metric } : {}), generatedAt: when, appVersion: version, responses: e.responses }));
    writeFileAtomic(a.out!, html);
    const arms = data.scored[0]!.set.summary.arms;
    io.err.write(`Wrote ${a.out}: ${arms.length} model(s) × variant(s), ${e.responses.length} answer(s)${e.cases?.length ? '' : '; the export holds no cases, so there is no ground truth'}\n`);
    return 0;
  },
};
