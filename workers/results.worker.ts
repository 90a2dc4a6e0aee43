/**
 * Results, off the main thread. The results page reads each current score
 * set's stored digest (results/digest.ts, written when the set was scored),
 * never every score row: overview and leaderboard, the filtered and sorted
 * answer table (an index of the digests' columns; only the rows of the page
 * in view are read, and only a page crosses to the page), agreement (the
 * reviewed rows), and, when first asked, model-vs-model tests and breakdowns
 * (the digests' per-answer values). Exports and the HTML report read every
 * row once. Both are kept until a score set, run or review changes. Also
 * run imports.
 *
 * The app runs two instances (lib/workers/clients.ts): one serves the
 * overview and the answers table, the other the tests, breakdowns, reader
 * study, safety view and exports, whose resampling would otherwise hold the
 * table's requests up. Each keeps its own cache, checked against the
 * results signature.
 */
import { loadRunCriteria } from '../src/core/stored/run-criteria.ts';
import { needsSafety, runCriteriaView, runSafety, type RunCriteriaView } from '../src/core/results/run-criteria.ts';
import { createRepositories, openDatabase, type Repositories } from '../src/core/db/index.ts';
import { NeuroEvalError } from '../src/core/errors.ts';
import { agreementReport, type AgreementReport } from '../src/core/results/agreement.ts';
import { TABLE_FIRST_PAGE, sameAnswerQuery, type AnswerPage, type AnswerQuery } from '../src/core/results/answers.ts';
import { importRunExport, previewRunImport, type ImportRunResult, type RunImportPreview } from '../src/core/stored/import-run.ts';
import { openHarnessFile, type HarnessFileView } from '../src/core/results/harness-file.ts';
import type { IntervalUnit } from '../src/core/results/format.ts';
import { breakdown, dimensionsFor, type Breakdown, type Dimension } from '../src/core/results/breakdowns.ts';
import { compareRows, type Comparison } from '../src/core/results/comparisons.ts';
import { TECHNICAL_TAGS } from '../src/core/results/technical-tags.ts';
import { loadResults, resultsSignature } from '../src/core/stored/overview.ts';
import { overviewOf, type LoadedResults, type ResultsOverview } from '../src/core/results/overview.ts';
import { buildHtmlReport } from '../src/core/results/report-html.ts';
import { loadStoredDetail, loadStoredResults, storedAnswers, storedOverview, type StoredDetail, type StoredResults } from '../src/core/stored/results.ts';
import { scoresCsv } from '../src/core/results/scores-csv.ts';
import { parseRunExport, serializeRunExport, toRunExport } from '../src/core/scoring/io/run-export.ts';
import type { CallContext } from '../src/core/rpc/protocol.ts';
import type { ResponseRecord } from '../src/core/model/answer.ts';
import { readScoredAnswers, safetyView, type SafetyView } from '../src/core/stored/safety.ts';
import { thumbnailDataUrl } from '../src/core/imaging/thumbnail.ts';
import { decodeToRaw } from './runtime/decode-image.ts';
import { loadReaderStudy } from '../src/core/stored/reader-runs.ts';
import type { ReaderStudyResult } from '../src/core/readers/compare.ts';
import { exposeApi } from './runtime/expose.ts';
import { importForeign, previewForeignImport, type ForeignImportPreview, type ForeignImportRequest, type ForeignImportResult } from '../src/core/stored/import-foreign.ts';
import { exportRunForeign, type ForeignExportFormat } from '../src/core/stored/export-foreign.ts';

let reposPromise: Promise<Repositories> | null = null;
const database = (): Promise<Repositories> => (reposPromise ??= openDatabase().then((db) => createRepositories(db)));

/** One benchmark's results as read for one signature; a newer signature replaces it. */
interface Cached<T> {
  readonly benchmarkId: string;
  readonly signature: string;
  readonly data: Promise<T>;
}

/**
 * The cached entry when it is of this benchmark and still current, else a
 * fresh load. A caller that passes the signature it watches (`revision`)
 * skips the storage check when it matches, which keeps scrolling the answer
 * table free of extra IndexedDB reads. Concurrent callers share one load.
 */
async function current<T extends { signature: string }>(cached: Cached<T> | null, benchmarkId: string, revision: string | undefined, load: () => Promise<T>, store: (c: Cached<T> | null) => void): Promise<T> {
  if (cached?.benchmarkId === benchmarkId) {
    const signature = revision ?? (await resultsSignature(await database(), benchmarkId));
    if (signature === cached.signature) return cached.data;
    // A load still under way (started by `prepare`, before the page knew the revision) is the one to wait for when it reads this revision.
    if (cached.signature === '') {
      const loaded = await cached.data.catch(() => null);
      if (loaded?.signature === signature) return loaded;
    }
  }
  const data = load();
  const entry = { benchmarkId, signature: revision ?? '', data };
  store(entry);
  try {
    const loaded = await data;
    store({ ...entry, signature: loaded.signature });
    return loaded;
  } catch (e) {
    store(null);
    throw e;
  }
}

let storedCache: Cached<StoredResults> | null = null;
let fullCache: Cached<LoadedResults> | null = null;
let detailCache: { data: StoredResults; detail: Promise<StoredDetail> } | null = null;
/** The answers table's first page, read ahead by `prepare` for these stored results. */
let firstPage: { data: StoredResults; page: Promise<AnswerPage> } | null = null;
const comparisons = new Map<string, Promise<Comparison[]>>();
/** Breakdowns asked for, by signature, dimension, metric and unit: their bootstrap is the dearest thing the page asks. */
const breakdowns = new Map<string, Promise<Breakdown>>();

/** What the page reads: the stored digests and the reviewed rows. */
async function stored(benchmarkId: string, revision?: string): Promise<StoredResults> {
  return current(storedCache, benchmarkId, revision, async () => loadStoredResults(await database(), benchmarkId), (c) => {
    if (c?.data !== storedCache?.data) {
      comparisons.clear();
      breakdowns.clear();
    }
    storedCache = c;
  });
}

/** Every score row and case: what exports and the report read. */
async function results(benchmarkId: string, revision?: string): Promise<LoadedResults> {
  return current(fullCache, benchmarkId, revision, async () => loadResults(await database(), benchmarkId), (c) => (fullCache = c));
}

async function detailOf(data: StoredResults): Promise<StoredDetail> {
  if (detailCache?.data !== data) detailCache = { data, detail: loadStoredDetail(await database(), data) };
  return detailCache.detail;
}

async function comparisonsFor(benchmarkId: string, metric: string, revision?: string, unit: IntervalUnit = 'question'): Promise<Comparison[]> {
  const data = await stored(benchmarkId, revision);
  const key = `${data.signature}|${metric}|${unit}`;
  let c = comparisons.get(key);
  if (!c) {
    comparisons.set(key, (c = (async () => {
      const detail = await detailOf(data);
      return compareRows(detail.itemsFor(metric), metric, { unit, cases: detail.cases });
    })()));
    c.catch(() => comparisons.delete(key));
  }
  return c;
}

/** A benchmark, and optionally the results signature the caller watches (`resultsSignature`). */
interface Revisioned {
  readonly benchmarkId: string;
  readonly revision?: string;
}

let safetyCache: { data: LoadedResults; responses: Promise<Map<string, ResponseRecord>>; view: Promise<SafetyView> } | null = null;

/** After a run is stored or merged, every cached reading of the results is stale. */
function forgetCaches(): void {
  storedCache = null;
  fullCache = null;
  safetyCache = null;
  detailCache = null;
  firstPage = null;
}

/**
 * The current scores' stored answers and their safety view: every score row
 * with its answer, so they are read only when asked, and once (the report's
 * safety criteria use the same answers).
 */
async function safetyInputs(benchmarkId: string, revision?: string): Promise<NonNullable<typeof safetyCache>> {
  const data = await results(benchmarkId, revision);
  if (safetyCache?.data !== data) {
    const responses = readScoredAnswers(await database(), data);
    safetyCache = { data, responses, view: responses.then((r) => safetyView(data, r)) };
  }
  return safetyCache;
}

async function safetyOf(benchmarkId: string, revision?: string): Promise<SafetyView> {
  return (await safetyInputs(benchmarkId, revision)).view;
}

/** Downscaled PNG data URLs of the gallery's images; an image that cannot be read is left out. */
async function galleryThumbnails(view: SafetyView): Promise<Map<string, string>> {
  const repos = await database();
  const out = new Map<string, string>();
  for (const sha of new Set(view.gallery.flatMap((g) => g.arms.flatMap((a) => a.cases.flatMap((c) => (c.image ? [c.image] : [])))))) {
    const asset = await repos.assets.get(sha);
    if (!asset) continue;
    try {
      out.set(sha, thumbnailDataUrl(await decodeToRaw(new Uint8Array(await asset.blob.arrayBuffer()), asset.mime)));
    } catch {
      // The report says nothing it cannot show: the card goes without its image.
    }
  }
  return out;
}

const HEADLINE_BREAKDOWNS: readonly Dimension[] = ['taskFamily', 'diseaseGroup'];

/** The report's breakdowns: the headline ones, and every technical tag the cases carry (scanner, field strength…). */
function reportDimensions(data: LoadedResults): Dimension[] {
  return [...HEADLINE_BREAKDOWNS, ...dimensionsFor(data.cases.values()).filter((d) => d in TECHNICAL_TAGS)];
}

const resultsApi = {
  /** Starts the worker and opens the database, reading nothing (the shell calls it when the app is idle). */
  async warm(): Promise<void> {
    await database();
  },

  /**
   * Starts the worker reading a benchmark's stored results while the page is
   * still working out their revision, so the overview that follows finds
   * them read or being read (results open with the worker's start-up and the
   * digests' read overlapping the page's own start).
   */
  async prepare(input: { benchmarkId: string }): Promise<void> {
    const data = await stored(input.benchmarkId);
    // Then, after the overview that waited for the same read has been answered (a turn later), the table's first
    // page: its index, its order and its rows are read here while the page draws the leaderboard, and the page's
    // first ask finds them. A read that fails is made again by that ask.
    setTimeout(() => {
      if (firstPage?.data !== data) firstPage = { data, page: (async () => storedAnswers(await database(), data, TABLE_FIRST_PAGE))() };
      firstPage.page.catch(() => undefined);
    }, 0);
  },

  async overview(input: Revisioned): Promise<ResultsOverview> {
    return storedOverview(await database(), await stored(input.benchmarkId, input.revision));
  },

  /** Every pair of leaderboard rows tested on one metric, per question (default) or per sample. */
  async compare(input: Revisioned & { metric: string; unit?: IntervalUnit }): Promise<Comparison[]> {
    return comparisonsFor(input.benchmarkId, input.metric, input.revision, input.unit);
  },

  async breakdown(input: Revisioned & { dimension: Dimension; metric: string; unit?: IntervalUnit }): Promise<Breakdown> {
    const data = await stored(input.benchmarkId, input.revision);
    const key = `${data.signature}|${input.dimension}|${input.metric}|${input.unit ?? ''}`;
    let b = breakdowns.get(key);
    // The promise is kept at once, so a second open while the first is still computing waits for it instead of computing again.
    if (!b) {
      breakdowns.set(key, (b = (async () => {
        const detail = await detailOf(data);
        return breakdown(detail.itemsFor(input.metric), detail.cases, input.dimension, input.metric, input.unit ? { unit: input.unit } : {});
      })()));
      b.catch(() => breakdowns.delete(key));
    }
    return b;
  },

  async answers(input: Revisioned & { query: AnswerQuery }): Promise<AnswerPage> {
    const data = await stored(input.benchmarkId, input.revision);
    const read = async () => storedAnswers(await database(), data, input.query);
    // A read ahead that failed is made again here, where its error reaches the table.
    if (firstPage?.data === data && sameAnswerQuery(input.query, TABLE_FIRST_PAGE)) return firstPage.page.catch(read);
    return read();
  },

  /** Each reader and the readers' consensus against each model arm on one metric; null without a scored reader run. */
  async readers(input: Revisioned & { metric: string }): Promise<ReaderStudyResult | null> {
    const data = await stored(input.benchmarkId, input.revision);
    const detail = await detailOf(data);
    return loadReaderStudy(await database(), data.scored, detail.itemsFor(input.metric), input.metric);
  },

  /** Agreement needs only the reviewed answers' rows, which the stored results hold. */
  async agreement(input: Revisioned): Promise<AgreementReport> {
    const data = await stored(input.benchmarkId, input.revision);
    return agreementReport(data.reviews, data.reviewed.flatMap((s) => s.items));
  },

  /** Every scored answer as CSV (formula-safe): one row per answer with its primary metric and source. */
  async exportCsv(input: { benchmarkId: string }): Promise<string> {
    return scoresCsv(await results(input.benchmarkId));
  },

  /** A run with its provenance, answers, reviews, cases and current scores, as the run-export JSON. */
  async exportRun(input: { runId: string }): Promise<{ fileName: string; text: string }> {
    const repos = await database();
    const run = await repos.runs.get(input.runId);
    if (!run) throw new NeuroEvalError('NOT_FOUND', `Run "${input.runId}" no longer exists.`);
    const responses = (await repos.responses.listByRun(run.id)) as ResponseRecord[];
    const cases = (await repos.cases.listByBenchmark(run.benchmarkId)).map(({ benchmarkId: _b, ...c }) => c);
    const set = await repos.scores.latestSet(run.id);
    const scores = set ? { set, items: await repos.scores.listBySet(set.id) } : null;
    const reviews = await repos.reviews.listByRun(run.id);
    const exported = { ...toRunExport(run, responses, cases, { exportedAt: Date.now(), reviews }), ...(scores ? { scores } : {}) };
    const safe = run.name.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'run';
    return { fileName: `neuroeval-run-${safe}.json`, text: serializeRunExport(exported) };
  },

  /** The safety view and failure gallery (NeuroEval's own figures), per arm and disease group. */
  async safety(input: Revisioned): Promise<SafetyView> {
    return safetyOf(input.benchmarkId, input.revision);
  },

  /** The report; `images: false` leaves the failure gallery's thumbnails out. */
  async exportHtml(input: { benchmarkId: string; metric?: string; appVersion: string; images?: boolean }): Promise<{ fileName: string; text: string }> {
    const data = await results(input.benchmarkId);
    const overview = overviewOf(data);
    const metric = input.metric ?? overview.leaderboard.defaultMetric ?? 'pass@1';
    const breakdowns = reportDimensions(data).map((d) => breakdown(data.scored, data.cases, d, metric));
    const repos = await database();
    // Decided on the score rows, cases and stored answers already read for the report: only each run's record (its criteria) is read.
    const inputs = await safetyInputs(input.benchmarkId);
    const answers = await inputs.responses;
    const criteria = (
      await Promise.all(
        data.runs.map(async (r) => {
          const scored = data.scored.find((s) => s.run.id === r.id);
          const run = await repos.runs.require(r.id);
          const safety = scored && needsSafety(run) ? runSafety(scored.set, scored.items, answers, data.cases) : undefined;
          return runCriteriaView(run, scored?.set, scored?.items ?? [], data.cases, safety);
        }),
      )
    ).filter((v) => v.set !== null || v.deviations.length > 0);
    const safety = await inputs.view;
    const thumbnails = input.images === false ? null : await galleryThumbnails(safety);
    const text = buildHtmlReport({
      overview, metric, comparisons: await comparisonsFor(input.benchmarkId, metric), breakdowns, criteria,
      safety: { report: safety.report, gallery: safety.gallery, thumbnails },
      readers: await loadReaderStudy(repos, data.scored, data.scored, metric),
      agreement: agreementReport(data.reviews, data.scored.flatMap((s) => s.items)), generatedAt: new Date(), appVersion: input.appVersion,
    });
    const safe = data.benchmark.name.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'benchmark';
    return { fileName: `neuroeval-report-${safe}.html`, text };
  },

  /** A run's acceptance criteria, decided per model on its latest score set. */
  async criteria(input: { runId: string }): Promise<RunCriteriaView> {
    return loadRunCriteria(await database(), input.runId);
  },

  /**
   * Reads an exported run and runs every check the import runs (benchmark and
   * its content, repeated or mismatched items, answers outside the plan), so
   * the preview and the import agree; lists the local runs it could be merged
   * into. Stores nothing.
   */
  async inspectImport(input: { text: string; fileName: string }): Promise<RunImportPreview> {
    return previewRunImport(await database(), parseRunExport(input.text, input.fileName), input.fileName);
  },

  /** Opens a NeuroVLM-Bench harness results file (JSONL): the benchmark's figures and NeuroEval's own; stores nothing. */
  async openHarnessFile(input: { text: string; fileName: string; bytes?: Uint8Array }): Promise<HarnessFileView> {
    return openHarnessFile(input.text, input.fileName, input.bytes);
  },

  /** Another harness's answers (VLMEvalKit, lm-eval, lmms-eval, Inspect AI, Every Eval Ever) matched to a stored benchmark; stores nothing. */
  async previewForeign(input: ForeignImportRequest): Promise<ForeignImportPreview> {
    return previewForeignImport(await database(), input);
  },

  /** Stores another harness's matched answers as a run of the benchmark. */
  async importForeign(input: ForeignImportRequest): Promise<ForeignImportResult> {
    const result = await importForeign(await database(), input);
    forgetCaches();
    return result;
  },

  /** A run with its current scores in another tool's format: one file, or a ZIP of several. */
  async exportRunAs(input: { runId: string; format: ForeignExportFormat; appVersion: string }): Promise<{ fileName: string; bytes: Uint8Array; mime: string }> {
    return exportRunForeign(await database(), input.runId, input.format, input.appVersion);
  },

  /** Stores or merges an exported run; `dropUnknown` leaves out (and counts) answers for items outside its plan instead of refusing them. */
  async importRun(input: { text: string; fileName: string; into?: string; dropUnknown?: boolean }, ctx: CallContext): Promise<ImportRunResult> {
    ctx.progress({ phase: 'read', done: 0, total: 1 });
    const e = parseRunExport(input.text, input.fileName);
    const result = await importRunExport(await database(), e, input.fileName, { ...(input.into ? { into: input.into } : {}), dropUnknown: input.dropUnknown === true });
    forgetCaches();
    return result;
  },
};

export type ResultsApi = typeof resultsApi;

exposeApi(resultsApi);
