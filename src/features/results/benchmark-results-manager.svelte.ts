/**
 * One benchmark's results page: the overview the results worker sends, the
 * user's choices (metric, interval unit, breakdown, chart rows, report
 * options), what is asked later (tests against the leader, breakdowns,
 * agreement), and the order the page draws in. The component renders it;
 * the choices and their guards are tested without a page
 * (test/unit/features/results/benchmark-results-manager.test.ts).
 *
 * The first results are drawn in three tasks: the benchmark's header, then
 * the leaderboard, then what lies below it (the panels, the chart cards, the
 * answers table). Drawn together, they were one task of 60–130 ms on a
 * 2-core machine; header and leaderboard alone still made one of 60 ms on the
 * first open after the browser starts, while the page's code is still being
 * compiled. The charts follow one per task once the first page of answers is
 * on screen (`drawCharts`): all at once they held the main thread for
 * 130–220 ms (docs/BENCHMARKS.md).
 */
import type { ResultsApi } from '../../../workers/results.worker.ts';
import type { AgreementReport } from '../../core/results/agreement.ts';
import type { Breakdown, Dimension } from '../../core/results/breakdowns.ts';
import type { Comparison } from '../../core/results/comparisons.ts';
import { speedFigure, twoAxisFigure } from '../../core/results/figures.ts';
import type { IntervalUnit } from '../../core/results/format.ts';
import { hasRandomWeights, rowModelName } from '../../core/results/model-names.ts';
import { noValueNotes } from '../../core/results/no-value.ts';
import type { ResultsOverview } from '../../core/results/overview.ts';

/** The results worker's calls this page makes: the overview and agreement from the front instance, the rest from the background one. */
export interface ResultsWorkers {
  readonly front: Pick<ResultsApi, 'overview' | 'agreement'>;
  readonly background: Pick<ResultsApi, 'compare' | 'breakdown' | 'exportHtml' | 'exportCsv'>;
}

/** The chart cards' drawing order, one step per task. */
export const CHART_STAGE = { twoAxis: 1, speed: 2, breakdown: 3, reliability: 4, confusion: 5, taxonomy: 6, degradation: 7 } as const;

/** Calls `step(1)`, …, `step(last)`, each in a task of its own after the current one: how the page spreads its drawing. */
function stepByTask(last: number, step: (n: number) => void): void {
  let n = 0;
  const next = () => {
    step(++n);
    if (n < last) setTimeout(next, 0);
  };
  setTimeout(next, 0);
}

export class BenchmarkResultsManager {
  overview = $state.raw<ResultsOverview | null>(null);
  error = $state<string | null>(null);
  metric = $state('');
  /** Several samples per question: intervals and tests per question (default) or per sample. */
  unit = $state<IntervalUnit>('question');
  comparisons = $state.raw<readonly Comparison[] | null>(null);
  dimension = $state<Dimension>('taskFamily');
  breakdownMetric = $state('');
  breakdown = $state.raw<Breakdown | null>(null);
  agreement = $state.raw<AgreementReport | null>(null);
  reliabilityRow = $state('');
  confusionRow = $state('');
  /** The export being written ('report' or 'csv'), if one. */
  exporting = $state<'report' | 'csv' | null>(null);
  /** The report's failure gallery goes without thumbnails. */
  leaveImagesOut = $state(false);
  /** Runs re-scored from this page, said where the button was. */
  rescored = $state<string[]>([]);
  /** How far the first drawing has got: 1 = the leaderboard, 2 = what lies below it. */
  drawn = $state(0);
  /**
   * The first page of answers is on screen (or a short wait passed): what is
   * asked after it (tests, breakdowns, agreement, the reader study) may be
   * asked now; they are computed in the background worker, so a filter or a
   * sort never waits behind them.
   */
  settled = $state(false);
  chartsStage = $state(0);

  readonly board = $derived(this.drawn >= 1);
  readonly below = $derived(this.drawn >= 2);
  readonly twoAxis = $derived(this.overview ? twoAxisFigure(this.overview.leaderboard.rows) : null);
  readonly speed = $derived(this.overview && this.metric ? speedFigure(this.overview.leaderboard.rows, this.metric) : null);
  readonly reliability = $derived(this.overview?.reliability.find((r) => r.rowId === this.reliabilityRow) ?? this.overview?.reliability[0]);
  readonly confusion = $derived(this.overview?.confusion.find((r) => r.rowId === this.confusionRow) ?? this.overview?.confusion[0]);
  readonly unscored = $derived(this.overview?.runs.filter((r) => r.scoreVersion === null && r.answers > 0) ?? []);
  /** Runs with clinician reviews newer than their score. */
  readonly stale = $derived(this.overview?.runs.filter((r) => r.scoreVersion !== null && r.newReviews > 0) ?? []);
  /** Figures no answer gave a value, with the reason (shown under the leaderboard and beside an empty failure gallery). */
  readonly noValue = $derived(this.overview ? noValueNotes(this.overview.leaderboard.rows, rowModelName) : []);
  readonly randomWeights = $derived((this.overview?.leaderboard.rows.map((r) => r.modelId) ?? []).filter((id, i, all) => all.indexOf(id) === i && hasRandomWeights(id)));

  constructor(
    readonly benchmarkId: string,
    private readonly workers: ResultsWorkers,
  ) {}

  /** Reads the overview for this results revision; the first one starts the drawing. */
  async loadOverview(revision: string): Promise<void> {
    try {
      this.received(await this.workers.front.overview({ benchmarkId: this.benchmarkId, revision }));
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
  }

  /** An overview arrived: choices it no longer offers fall back to its defaults, so no picker sits blank. */
  received(o: ResultsOverview): void {
    if (!this.overview) stepByTask(2, (n) => (this.drawn = n));
    this.overview = o;
    this.error = null;
    const offered = (key: string) => o.leaderboard.metrics.some((m) => m.key === key);
    if (!this.metric || !offered(this.metric)) this.metric = o.leaderboard.defaultMetric ?? '';
    if (!this.breakdownMetric || !offered(this.breakdownMetric)) this.breakdownMetric = o.leaderboard.defaultMetric ?? '';
    if (!o.dimensions.includes(this.dimension)) this.dimension = 'taskFamily';
    if (!o.reliability.some((r) => r.rowId === this.reliabilityRow)) this.reliabilityRow = o.reliability[0]?.rowId ?? '';
    if (!o.confusion.some((r) => r.rowId === this.confusionRow)) this.confusionRow = o.confusion[0]?.rowId ?? '';
  }

  /** Agreement, once the page has settled. */
  async loadAgreement(revision: string): Promise<void> {
    if (!this.settled) return;
    this.agreement = await this.workers.front.agreement({ benchmarkId: this.benchmarkId, revision }).catch(() => this.agreement);
  }

  /** The tests against the leader for the chosen metric and unit; an answer for an earlier choice is dropped. */
  async loadComparisons(revision: string | undefined): Promise<void> {
    if (!this.overview || !this.metric || !this.settled) return;
    this.comparisons = null;
    const { metric, unit } = this;
    const c = await this.workers.background.compare({ benchmarkId: this.benchmarkId, metric, unit, ...(revision ? { revision } : {}) });
    if (metric === this.metric && unit === this.unit) this.comparisons = c;
  }

  /** The breakdown for the chosen dimension, metric and unit; an answer for an earlier choice is dropped. */
  async loadBreakdown(revision: string | undefined): Promise<void> {
    if (!this.overview || !this.breakdownMetric || !this.settled) return;
    const { dimension, breakdownMetric: metric, unit } = this;
    const b = await this.workers.background.breakdown({ benchmarkId: this.benchmarkId, dimension, metric, unit, ...(revision ? { revision } : {}) });
    if (dimension === this.dimension && metric === this.breakdownMetric && unit === this.unit) this.breakdown = b;
  }

  /** The page has settled: the charts are drawn one per task, from the next frame. */
  drawCharts(): void {
    if (this.settled) return;
    this.settled = true;
    requestAnimationFrame(() => stepByTask(CHART_STAGE.degradation, (n) => (this.chartsStage = n)));
  }

  /** The HTML report of the chosen metric, with or without the gallery's images. */
  async exportHtml(appVersion: string): Promise<{ fileName: string; text: string }> {
    this.exporting = 'report';
    try {
      return await this.workers.background.exportHtml({ benchmarkId: this.benchmarkId, metric: this.metric, appVersion, images: !this.leaveImagesOut });
    } finally {
      this.exporting = null;
    }
  }

  /** Every scored answer as CSV. */
  async exportCsv(): Promise<{ fileName: string; text: string }> {
    this.exporting = 'csv';
    try {
      return { fileName: `neuroeval-answers-${this.benchmarkId}.csv`, text: await this.workers.background.exportCsv({ benchmarkId: this.benchmarkId }) };
    } finally {
      this.exporting = null;
    }
  }
}
