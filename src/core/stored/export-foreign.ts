/**
 * A stored run in another tool's format, as the app downloads it: the run,
 * its answers, its benchmark's cases and its current score set, written by
 * write/ as one file or, for several, one ZIP holding the layout each tool
 * expects (folders included).
 */
import { zipSync, type Zippable } from 'fflate';
import type { Repositories } from '../db/index.ts';
import { NeuroEvalError } from '../errors.ts';
import type { ResponseRecord } from '../model/answer.ts';
import { toRunExport } from '../scoring/io/run-export.ts';
import { exportForeign, FOREIGN_EXPORT_FORMATS, isForeignExportFormat, type ForeignExportFormat } from '../interchange/write/index.ts';

export type { ForeignExportFormat } from '../interchange/write/index.ts';

const FIXED_MTIME = new Date(1980, 0, 1, 0, 0, 0);

/** The run's files in `format`; several files come as one ZIP. */
export async function exportRunForeign(repos: Repositories, runId: string, format: ForeignExportFormat, appVersion: string): Promise<{ fileName: string; bytes: Uint8Array; mime: string }> {
  if (!isForeignExportFormat(format)) throw new NeuroEvalError('INVALID_INPUT', `Unknown export format "${String(format)}"; known: ${Object.keys(FOREIGN_EXPORT_FORMATS).join(', ')}.`);
  const run = await repos.runs.get(runId);
  if (!run) throw new NeuroEvalError('NOT_FOUND', `Run "${runId}" no longer exists.`);
  const responses = (await repos.responses.listByRun(run.id)) as ResponseRecord[];
  const cases = (await repos.cases.listByBenchmark(run.benchmarkId)).map(({ benchmarkId: _b, ...c }) => c);
  const set = await repos.scores.latestSet(run.id);
  const scores = set ? { items: await repos.scores.listBySet(set.id), summary: set.summary } : null;
  const files = exportForeign(format, { exported: toRunExport(run, responses, cases), scores, appVersion });
  const enc = new TextEncoder();
  const bytesOf = (d: string | Uint8Array) => (typeof d === 'string' ? enc.encode(d) : d);
  if (files.length === 1) {
    const f = files[0]!;
    const name = f.path.split('/').pop()!;
    return { fileName: name, bytes: bytesOf(f.data), mime: name.endsWith('.json') ? 'application/json' : 'application/zip' };
  }
  const zip: Zippable = {};
  for (const f of files) zip[f.path] = [bytesOf(f.data), { level: 6, mtime: FIXED_MTIME }];
  const safe = run.name.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'run';
  return { fileName: `neuroeval-run-${safe}-${format}.zip`, bytes: zipSync(zip), mime: 'application/zip' };
}
