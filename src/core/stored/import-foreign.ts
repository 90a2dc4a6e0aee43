/**
 * Another harness's answers stored as a run of a benchmark in this browser:
 * the preview reads the file, matches it to each stored benchmark (the one
 * with most matches is proposed) and names what did not match; the import
 * builds the run export (to-run.ts) and stores it through the run import, so
 * the same checks guard it (benchmark content, one answer per item) and
 * importing the same file again adds nothing. Stores nothing on refusal.
 */
import type { Repositories } from '../db/index.ts';
import type { BenchmarkRecord } from '../bundle/records.ts';
import { InvalidInputError } from '../errors.ts';
import { importRunExport, type ImportRunResult } from './import-run.ts';
import { getProtocol } from '../protocols/registry.ts';
import { matchForeign, type IdMapping, type MatchResult } from '../interchange/match.ts';
import { readForeign, type ForeignFile } from '../interchange/read/index.ts';
import { foreignRunExport } from '../interchange/to-run.ts';
import { HARNESS_NAMES, type ForeignLog } from '../interchange/types.ts';
import type { BenchCase } from '../bundle/types.ts';

export interface ForeignImportRequest {
  readonly files: readonly ForeignFile[];
  /** The benchmark to import into; the best-matching stored one when absent. */
  readonly benchmarkId?: string;
  /** A protocol id, or `auto` (default). */
  readonly protocolId?: string;
  readonly mapping?: IdMapping;
  /** The model's name where the file does not hold it. */
  readonly model?: string;
  readonly name?: string;
  readonly app: { readonly version: string; readonly commit: string };
}

/** An item that did not make it into the run, for the page. */
export interface ForeignIssue {
  readonly id: string;
  /** file:line or entry. */
  readonly where: string;
  readonly why: string;
  /** The start of the item's question, to help map it. */
  readonly question: string;
}

export interface ForeignImportPreview {
  readonly harness: string;
  readonly file: string;
  readonly sha256: string;
  readonly model: string;
  /** The file names no model (a samples log without its results JSON): ask for one. */
  readonly modelUnknown: boolean;
  readonly task: string | null;
  readonly settings: number;
  readonly items: number;
  readonly failed: number;
  readonly benchmark: { readonly id: string; readonly name: string };
  /** Every stored benchmark with how many items it matches, best first. */
  readonly benchmarks: readonly { readonly id: string; readonly name: string; readonly matched: number }[];
  readonly matched: number;
  readonly mapped: number;
  readonly unmatched: readonly ForeignIssue[];
  readonly unmatchedCount: number;
  readonly duplicates: readonly ForeignIssue[];
  readonly duplicateCount: number;
  readonly warnings: readonly string[];
  /** Case ids of the benchmark, for the mapping step (at most {@link MAX_CASE_IDS}). */
  readonly caseIds: readonly string[];
}

/** Issues and case ids sent to the page: enough to act on, bounded for a file of thousands. */
const MAX_ISSUES = 200;
const MAX_CASE_IDS = 5000;

const where = (at: { file?: string; line?: number; field?: string }) => [at.file, at.line, at.field].filter((x) => x !== undefined && x !== '').join(':');
const excerpt = (s: string | null) => (s ? (s.length > 120 ? `${s.slice(0, 117)}…` : s) : '');

interface Prepared {
  readonly log: ForeignLog;
  readonly benchmark: BenchmarkRecord;
  readonly cases: BenchCase[];
  readonly match: MatchResult;
  readonly ranking: { id: string; name: string; matched: number }[];
}

async function prepare(repos: Repositories, req: ForeignImportRequest): Promise<Prepared> {
  if (req.protocolId && req.protocolId !== 'auto' && !getProtocol(req.protocolId)) throw new InvalidInputError(`Unknown protocol "${req.protocolId}".`, { field: 'protocol' });
  const log = readForeign(req.files, req.model?.trim() ? { model: req.model.trim() } : {});
  const benchmarks = await repos.benchmarks.list();
  if (benchmarks.length === 0) throw new InvalidInputError('No benchmark is stored in this browser: import the benchmark the answers are for first (Benchmarks page).');
  const casesOf = async (b: BenchmarkRecord) => (await repos.cases.listByBenchmark(b.id)).map(({ benchmarkId: _b, ...c }) => c as BenchCase);
  const ranking: { id: string; name: string; matched: number }[] = [];
  let chosen: { benchmark: BenchmarkRecord; cases: BenchCase[]; match: MatchResult } | null = null;
  for (const b of benchmarks) {
    if (req.benchmarkId && b.id !== req.benchmarkId) {
      ranking.push({ id: b.id, name: b.name, matched: -1 });
      continue;
    }
    const cases = await casesOf(b);
    const match = matchForeign(log, cases, req.mapping ?? {});
    ranking.push({ id: b.id, name: b.name, matched: match.matched.length });
    if (!chosen || match.matched.length > chosen.match.matched.length) chosen = { benchmark: b, cases, match };
  }
  if (!chosen) throw new InvalidInputError(`Benchmark "${req.benchmarkId}" is not in this browser.`, { field: 'benchmark' });
  ranking.sort((a, b) => b.matched - a.matched);
  return { log, ...chosen, ranking };
}

/** What an import would store, checked as the import checks it; stores nothing. */
export async function previewForeignImport(repos: Repositories, req: ForeignImportRequest): Promise<ForeignImportPreview> {
  const { log, benchmark, cases, match, ranking } = await prepare(repos, req);
  return {
    harness: HARNESS_NAMES[log.harness],
    file: log.file,
    sha256: log.sha256,
    model: log.model,
    modelUnknown: log.model === 'unknown model',
    task: log.task,
    settings: Object.keys(log.settings).length,
    items: log.items.length,
    failed: log.items.filter((i) => i.answer === null).length,
    benchmark: { id: benchmark.id, name: benchmark.name },
    benchmarks: ranking.map((r) => ({ ...r, matched: Math.max(0, r.matched) })),
    matched: match.matched.length,
    mapped: match.matched.filter((m) => m.how === 'mapping').length,
    unmatched: match.unmatched.slice(0, MAX_ISSUES).map((u) => ({ id: u.item.id, where: where(u.item.at), why: u.why, question: excerpt(u.item.question) })),
    unmatchedCount: match.unmatched.length,
    duplicates: match.duplicates.slice(0, MAX_ISSUES).map((d) => ({ id: d.item.id, where: where(d.item.at), why: `answers case "${d.caseId}" again (first at ${where(d.first.at)}); left out`, question: excerpt(d.item.question) })),
    duplicateCount: match.duplicates.length,
    warnings: log.warnings,
    caseIds: cases.slice(0, MAX_CASE_IDS).map((c) => c.id),
  };
}

export interface ForeignImportResult extends ImportRunResult {
  readonly unmatched: number;
  readonly duplicates: number;
}

/**
 * Stores the matched answers as a run (unmatched and repeated items are left
 * out and counted; the preview named them).
 * @throws InvalidInputError when no item matches, or when the run import refuses.
 */
export async function importForeign(repos: Repositories, req: ForeignImportRequest): Promise<ForeignImportResult> {
  const { log, benchmark, cases, match } = await prepare(repos, req);
  if (match.matched.length === 0) throw new InvalidInputError(`${log.file}: no item matches a case of "${benchmark.name}"; nothing was stored. Map the ids to cases first.`, { file: log.file });
  if (log.model === 'unknown model') throw new InvalidInputError(`${log.file}: the file does not name the model; give its name before importing.`, { file: log.file, field: 'model' });
  const exported = foreignRunExport({
    log, match, cases,
    benchmark: { id: benchmark.id, name: benchmark.name, version: benchmark.version, contentHash: benchmark.contentHash, ...(benchmark.manifest.protocolDefaults ? { protocolDefaults: benchmark.manifest.protocolDefaults } : {}) },
    protocolId: req.protocolId ?? 'auto',
    app: req.app,
    importedAt: Date.now(),
    ...(req.name?.trim() ? { name: req.name.trim() } : {}),
  });
  const stored = await importRunExport(repos, exported, log.file);
  return { ...stored, unmatched: match.unmatched.length, duplicates: match.duplicates.length };
}
