/**
 * The self-contained HTML report: one file with inline CSS and inline SVG
 * charts, no script and no external reference (its own CSP forbids any
 * request), so it opens offline, can be mailed or archived, and prints to
 * PDF. Every text from data is escaped.
 */
import { JUDGE_CAVEAT } from '../scoring/equivalence/judge.ts';
import { definitionTag, metricDefinition } from '../scoring/run/definitions.ts';
import { metricLabel } from '../scoring/run/summary.ts';
import type { MetricSummary } from '../scoring/run/types.ts';
import type { AgreementReport } from './agreement.ts';
import { benchFigure as benchCell, byPatient, cellCount, metricInterval, metricNumber, metricView, percent, statistic, UNDEFINED_STATISTIC_NOTE } from './format.ts';
import { breakdownFigure, confusionFigure, degradationFigures, reliabilityFigure, speedFigure, taxonomyFigure, twoAxisFigure } from './figures.ts';
import { isContinuousMetric } from '../scoring/run/summary.ts';
import { DIMENSION_LABELS, type Breakdown } from './breakdowns.ts';
import { LOWER_IS_BETTER, sortRows } from './leaderboard.ts';
import { PER_PATIENT_SUMMARY_LABELS, PER_QUESTION_SUMMARY_LABELS, comparisonOf, type Comparison } from './comparisons.ts';
import type { ResultsOverview } from './overview.ts';
import { escapeXml as esc, toSvgString } from './svg.ts';
import { describeCriterion, outcomeReason } from './criteria-outcomes.ts';
import type { RunCriteriaView } from './run-criteria.ts';
import type { ReaderStudyResult } from '../readers/compare.ts';
import { hasRandomWeights, modelDisplayName, randomWeightsCaveat, rowLabel, rowModelName } from './model-names.ts';
import { variantLabel } from '../runner/variants.ts';
import { count, plural } from '../text/plural.ts';
import { describeNeuroVlmBenchFailure, NEUROVLM_BENCH_FIELDS, NEUROVLM_BENCH_HEADLINE } from '../scoring/neurovlm/evaluator/index.ts';
import type { NeuroVlmBenchBreakdown } from '../scoring/neurovlm/evaluator/types.ts';
import type { GalleryGroup } from './gallery.ts';
import { failuresSection, noValueList, SAFETY_CSS, safetySection } from './report-safety.ts';
import { benchNoValueNotes } from './bench-no-value.ts';
import { noValueNotes } from './no-value.ts';
import type { SafetyReport } from './safety.ts';

interface ReportInput {
  readonly overview: ResultsOverview;
  /** Metric the leaderboard is sorted by and tested on. */
  readonly metric: string;
  readonly comparisons: readonly Comparison[];
  readonly breakdowns: readonly Breakdown[];
  readonly agreement: AgreementReport;
  readonly generatedAt: Date;
  readonly appVersion: string;
  /** Runs with acceptance criteria: go / no-go per criterion and model (results/run-criteria.ts). */
  readonly criteria?: readonly RunCriteriaView[];
  /** The safety view and failure gallery; `thumbnails` null leaves images out (report-safety.ts). */
  readonly safety?: { readonly report: SafetyReport; readonly gallery: readonly GalleryGroup[]; readonly thumbnails: ReadonlyMap<string, string> | null };
  /** A reader study on this benchmark: readers and their consensus against each model (readers/compare.ts). */
  readonly readers?: ReaderStudyResult | null;
}

/** Readers and their consensus against each model on the questions both answered, with the paired tests, and agreement between readers. */
function readersSection(r: ReaderStudyResult | null | undefined): string {
  if (!r) return '';
  const num = (x: number) => (isContinuousMetric(r.metric) ? x.toFixed(3) : pct(x));
  const method = { 'mcnemar-exact': "McNemar's exact test", 'mcnemar-chi2': "McNemar's χ² test", 'paired-bootstrap': 'paired bootstrap' } as const;
  const rows = r.tests.map((t) => `<tr><td>${esc(t.readerLabel)}</td><td>${esc(t.modelLabel)}</td><td class="num">${t.n}</td><td class="num">${esc(num(t.readerMean))}</td><td class="num">${esc(num(t.modelMean))}</td><td class="num">${esc(num(t.difference))} (${esc(num(t.ci.lower))} to ${esc(num(t.ci.upper))})</td><td class="num">${t.readerOnly ?? '–'} / ${t.modelOnly ?? '–'}</td><td class="num">${esc(t.pValue.toPrecision(2))} <span class="muted">${esc(method[t.method])}</span></td></tr>`);
  const agreement = r.agreement.map((a) => `<tr><td>${esc(r.readers.find((x) => x.id === a.a)?.label ?? a.a)} – ${esc(r.readers.find((x) => x.id === a.b)?.label ?? a.b)}</td><td class="num">${a.n}</td><td class="num">${esc(stat(a.kappa))}</td><td class="num">${esc(pct(a.observed))}</td></tr>`);
  return [
    '<h2>Readers vs models</h2>',
    `<p class="muted">Clinicians answered the same cases blind; their answers were scored by the same scorer as the models' (${esc(metricLabel(r.metric))}). Each row pairs a reader (or the readers' consensus) with a model on the questions both answered. ${esc(r.consensus.rule)} Consensus ties: ${r.consensus.ties}.</p>`,
    '<table><thead><tr><th>Reader</th><th>Model</th><th class="num">n</th><th class="num">Reader</th><th class="num">Model</th><th class="num">Difference (95 % CI)</th><th class="num">Only reader / only model right</th><th class="num">p</th></tr></thead><tbody>',
    ...rows,
    '</tbody></table>',
    ...(agreement.length ? ['<table><thead><tr><th>Between readers</th><th class="num">Questions</th><th class="num">Cohen κ</th><th class="num">Same answer</th></tr></thead><tbody>', ...agreement, '</tbody></table>'] : []),
  ].join('\n');
}

const STATUS_WORDS = { go: 'GO', 'no-go': 'NO-GO', 'no-data': 'no data' } as const;

/** Go / no-go per criterion and model for each run that has criteria, with how they were locked and every later change. */
function criteriaSection(views: readonly RunCriteriaView[], runNames: ReadonlyMap<string, string>): string {
  if (!views.length) return '';
  const parts = ['<h2>Acceptance criteria</h2>', '<p class="muted">Each criterion is decided per model on the figures above: the whole-run value and 95 % interval, or every group of its subgroup; GO when every figure it covers passes.</p>'];
  for (const v of views) {
    const name = runNames.get(v.runId) ?? v.runId;
    const locked = v.preRegistered
      ? v.sha256 === v.preRegistered && v.deviations.length === 0
        ? `Pre-registered with the run and unchanged (SHA-256 <code>${esc(v.preRegistered.slice(0, 16))}…</code>).`
        : `Pre-registered with the run (SHA-256 <code>${esc(v.preRegistered.slice(0, 16))}…</code>); changed afterwards: these are <strong>not</strong> the pre-registered criteria.`
      : '<strong>Not pre-registered</strong>: set after the run was created.';
    parts.push(`<h3>${esc(name)}</h3>`, `<p>${locked}${v.scoreSet ? ` Decided on score version ${v.scoreSet.version}.` : ' The run is not scored yet.'}</p>`);
    if (v.outcomes.length) {
      parts.push('<table><thead><tr><th>Criterion</th><th>Model</th><th>Decision</th><th>Evidence</th></tr></thead><tbody>');
      for (const o of v.outcomes) {
        parts.push(`<tr><td>${esc(describeCriterion(o.criterion))}</td><td>${esc(modelDisplayName(o.modelId))}${o.variant !== 'none' ? ` (${esc(variantLabel(o.variant))})` : ''}</td><td><strong>${STATUS_WORDS[o.status]}</strong></td><td>${esc(outcomeReason(o))}</td></tr>`);
      }
      parts.push('</tbody></table>');
    }
    if (v.deviations.length) {
      parts.push('<p>Deviations from the pre-registered criteria:</p><ul>');
      for (const d of v.deviations) parts.push(`<li>${esc(new Date(d.at).toISOString())}: ${esc(d.reason)} (replaced: ${d.previous.criteria.length ? esc(d.previous.criteria.map(describeCriterion).join('; ')) : 'no criteria'})</li>`);
      parts.push('</ul>');
    }
  }
  return parts.join('\n');
}

/** The printed page's margin: the layout test checks the report at A4's width less twice this. */
export const PRINT_MARGIN_MM = 12;

const REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/**
 * Screen and print: the page never scrolls sideways. Tables wrap inside
 * their cells (ids and model names break anywhere when a column is narrow)
 * and charts scale to the width, so the report prints on A4 portrait whole;
 * test/browser/layout.spec.ts checks it at the printed width.
 */
const CSS = `
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;color:#1b1f24;margin:2rem auto;max-width:1000px;padding:0 1rem;line-height:1.45;overflow-wrap:break-word}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ccd;padding-bottom:.2rem}
table{border-collapse:collapse;width:100%;font-size:.88rem;margin:.5rem 0 1rem}th,td{border-bottom:1px solid #dde;padding:.3rem .4rem;text-align:left;vertical-align:top;overflow-wrap:anywhere}thead th{hyphens:auto}td.num{overflow-wrap:normal}.sig{white-space:nowrap}.leaderboard tbody th{width:12rem}
th{background:#f3f5f8}.no-value{border-left:4px solid #9a6700;padding:.3rem .75rem .3rem 1.75rem;font-size:.88rem}.num{text-align:right;font-variant-numeric:tabular-nums}.muted{color:#5a6270}.caveat{border-left:4px solid #9a6700;background:#fff8e6;padding:.5rem .75rem}
caption{text-align:left;font-weight:600;padding:.2rem 0}figure{margin:1rem 0;break-inside:avoid}svg{max-width:100%;height:auto}img{max-width:100%}code{overflow-wrap:anywhere}.badge{display:inline-block;border:1px solid #9a6700;color:#7a5200;border-radius:4px;padding:0 .3rem;font-size:.8rem}
@page{size:A4 portrait;margin:${PRINT_MARGIN_MM}mm}
@media print{body{margin:0;max-width:none;padding:0;font-size:10pt}table{font-size:8pt}th,td{padding:.2rem .25rem}.leaderboard tbody th{width:8.5rem}h2{break-after:avoid}tr,figure{break-inside:avoid}a{color:inherit}}
`;

const pct = (x: number) => percent(x);
/** κ, α, r: "undefined" where the formula has no value (see format.ts). */
const stat = (x: number) => statistic(x);

/** A cell: value, question-level interval and count, and the per-sample view beneath it where questions have several samples. */
function value(m: MetricSummary | undefined): string {
  if (!m) return '<td class="num muted">–</td>';
  const q = metricView(m, 'question');
  const s = m.perSample ? metricView(m, 'sample') : null;
  const view = byPatient(m) ? 'per answer' : 'per sample';
  return `<td class="num">${esc(metricNumber(m, m.mean))}${m.dependsOnJudge ? ' †' : ''}<br><span class="muted">${esc(q.interval)} · ${esc(q.count)}</span>${s ? `<br><span class="muted">${view}: ${esc(s.interval)} · ${esc(s.count)}</span>` : ''}</td>`;
}

/** The leaderboard note when cases share a patient: intervals and tests by patient, and how a patient's answers were summarised. */
function patientNote(rows: readonly { readonly metrics: Readonly<Record<string, MetricSummary>> }[], comparisons: readonly Comparison[]): string {
  if (!rows.some((r) => Object.values(r.metrics).some(byPatient))) return '';
  const summaries = [...new Set(comparisons.flatMap((c) => (c.perPatient ? [c.perPatient] : [])))];
  const tests = summaries.map((k) => `${k === 'majority-correct' ? 'for McNemar' : 'for the paired bootstrap'}, ${PER_PATIENT_SUMMARY_LABELS[k]}`).join('; ');
  return `<p class="caveat" data-note="by-patient"><strong>Intervals are by patient.</strong> Several cases (slices, series or studies) share a patient key, so they are not independent: the interval resamples patients with all their cases, questions and samples (seeded cluster bootstrap) and n counts patients, with cases and answers beside; the value is the mean over every answer. The line "per answer" counts every answer as an independent item (too narrow). Tests pair patients${tests ? `: ${esc(tests)}` : ''}.</p>`;
}

/** A breakdown as a table: value, interval and count of each group and series (patients where the group's cases share one). */
function breakdownTable(bd: Breakdown): string {
  const kind = { ciMethod: isContinuousMetric(bd.metric) ? ('bootstrap' as const) : ('wilson' as const) };
  const head = bd.series.map((s) => `<th class="num">${esc(s.label)}</th>`).join('');
  const body = bd.groups.map((g, gi) => `<tr><th scope="row">${esc(g)}</th>${(bd.cells[gi] ?? []).map((c) => (c ? `<td class="num">${esc(metricNumber(kind, c.value))}<br><span class="muted">${esc(metricInterval({ ...kind, ci: c }))} · ${esc(cellCount(c))}</span></td>` : '<td class="num muted">–</td>')).join('')}</tr>`).join('\n');
  const patients = bd.cells.some((row) => row.some((c) => c?.by === 'patient'));
  const caption = `${metricLabel(bd.metric)} by ${DIMENSION_LABELS[bd.dimension].toLowerCase()}${patients ? ' (intervals by patient)' : ''}`;
  return `<table data-breakdown="${esc(bd.dimension)}"><caption>${esc(caption)}</caption><thead><tr><th>${esc(DIMENSION_LABELS[bd.dimension])}</th>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/** The leaderboard note on several samples per question: how intervals and tests treat them. */
function samplesNote(rows: readonly { readonly metrics: Readonly<Record<string, MetricSummary>> }[], comparisons: readonly Comparison[]): string {
  if (!rows.some((r) => Object.values(r.metrics).some((m) => m.ciMethod === 'question-bootstrap'))) return '';
  const summaries = [...new Set(comparisons.flatMap((c) => (c.perQuestion ? [c.perQuestion] : [])))];
  const tests = summaries.map((k) => `${k === 'majority-correct' ? 'for McNemar' : 'for the paired bootstrap'}, ${PER_QUESTION_SUMMARY_LABELS[k]}`).join('; ');
  return `<p class="muted">Several samples per question: the interval resamples questions with all their samples (seeded cluster bootstrap) and n counts questions; the value is the mean over every sample. The line "per sample" counts every sample as an independent item (too narrow, as samples of one question are correlated). Tests pair questions${tests ? `: ${esc(tests)}` : ''}.</p>`;
}

/** Whose definition each reported figure follows (definitions.ts): the benchmark's exactly, or NeuroEval's own. */
function definitionsTable(keys: readonly string[]): string {
  const rows = keys.flatMap((k) => {
    const d = metricDefinition(k);
    return d ? [`<tr><th scope="row">${esc(metricLabel(k))}</th><td>${esc(definitionTag(d))}</td><td class="muted">${esc(d.note)}</td></tr>`] : [];
  });
  return rows.length ? `<table class="definitions"><caption>Whose definition each figure follows</caption><thead><tr><th>Figure</th><th>Definition</th><th>What it is</th></tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table>` : '';
}

function figure(svg: string, caption: string): string {
  return `<figure>${svg}<figcaption class="muted">${esc(caption)}</figcaption></figure>`;
}

/** Report metrics: the sort metric first, then those most rows have (at most eight columns). */
function reportMetrics(overview: ResultsOverview, first: string): string[] {
  const counts = overview.leaderboard.metrics.map((m) => ({ key: m.key, n: overview.leaderboard.rows.filter((r) => r.metrics[m.key]).length }));
  const rest = counts.filter((c) => c.key !== first).sort((a, b) => b.n - a.n).map((c) => c.key);
  return [first, ...rest].slice(0, 8);
}

/** The benchmark's own figures: headline per model, balanced accuracy per field, and per source dataset. */
function neuroVlmBenchSection(bench: NeuroVlmBenchBreakdown | null): string {
  if (!bench) return '';
  const head = NEUROVLM_BENCH_HEADLINE.map((h) => `<th class="num">${esc(h.key)}</th>`).join('');
  const rows = (models: NeuroVlmBenchBreakdown['all']) =>
    Object.entries(models).map(([m, f]) => `<tr><th scope="row">${esc(m)}</th>${NEUROVLM_BENCH_HEADLINE.map((h) => `<td class="num">${esc(benchCell(f[h.key], h.kind))}</td>`).join('')}</tr>`).join('\n');
  const fields = `<table><caption>Balanced accuracy per field (overall_&lt;field&gt;_accuracy) and F1 with abstention (overall_&lt;field&gt;_f1_abstention)</caption><thead><tr><th>Model</th>${NEUROVLM_BENCH_FIELDS.map((f) => `<th class="num">${esc(f.field)}</th>`).join('')}</tr></thead><tbody>${Object.entries(bench.all)
    .map(([m, f]) => `<tr><th scope="row">${esc(m)}</th>${NEUROVLM_BENCH_FIELDS.map((fd) => `<td class="num">${esc(benchCell(f[`overall_${fd.key}_accuracy`], 'share'))}<br><span class="muted">${esc(benchCell(f[`overall_${fd.key}_f1_abstention`], 'share'))}</span></td>`).join('')}</tr>`)
    .join('\n')}</tbody></table>`;
  // The evaluator's NaN reads "no value" in the cells; why, under each table.
  const why = (models: NeuroVlmBenchBreakdown['all'], keys: readonly string[]) => {
    const notes = benchNoValueNotes(models, keys);
    return notes.length ? `<ul class="no-value">${notes.map((n) => `<li><strong>${esc(n.model)}</strong>: ${esc(n.figures.join(', '))} ${n.figures.length === 1 ? 'has' : 'have'} no value (the evaluator gives NaN): ${esc(n.reason)}.</li>`).join('')}</ul>` : '';
  };
  const headKeys = NEUROVLM_BENCH_HEADLINE.map((h) => h.key);
  const fieldKeys = NEUROVLM_BENCH_FIELDS.flatMap((f) => [`overall_${f.key}_accuracy`, `overall_${f.key}_f1_abstention`]);
  const datasets = Object.entries(bench.datasets)
    .map(([d, models]) => `<table><caption>Source dataset ${esc(d)}</caption><thead><tr><th>Model</th>${head}</tr></thead><tbody>${rows(models)}</tbody></table>${why(models, headKeys)}`)
    .join('\n');
  return `<h2>NeuroVLM-Bench: the benchmark's own figures</h2>
<p class="muted">Equal to the benchmark's evaluator (<code>evaluate_detailed.py</code>) on these answers, under its names: its normalisation (US spellings only), its label sets, "accuracy" = balanced accuracy, JSON valid = successful calls over all calls. The leaderboard's NeuroVLM-Bench field accuracies are NeuroEval's own (plain accuracy after NeuroEval's normalisation).</p>
${bench.failure ? `<p>${esc(describeNeuroVlmBenchFailure(bench.failure))}</p>` : ''}
<table><thead><tr><th>Model</th>${head}</tr></thead><tbody>
${rows(bench.all)}
</tbody></table>
${why(bench.all, headKeys)}
${fields}
${why(bench.all, fieldKeys)}
${datasets}`;
}

/**
 * The caveats a reader must see before any figure: models with random weights
 * (the self-test models, whose figures mean nothing medically) and a local judge
 * wherever one scored answers, even when no leaderboard figure ended up depending on it.
 */
function caveats(overview: ResultsOverview): string {
  const random = [...new Set(overview.leaderboard.rows.map((r) => r.modelId))].filter(hasRandomWeights);
  const judges = [...new Set(overview.runs.flatMap((r) => (r.judge ? [r.judge] : [])))];
  const randomJudges = judges.filter(hasRandomWeights);
  const out: string[] = [];
  if (random.length) out.push(`<p class="caveat" data-note="random-weights"><strong>Random weights.</strong> ${esc(randomWeightsCaveat(random))}</p>`);
  if (overview.judgeUsed || judges.length) {
    const which = judges.length ? ` Judge used: ${esc(judges.map(modelDisplayName).join(', '))}.` : '';
    const random = randomJudges.length ? ` ${esc(randomJudges.map(modelDisplayName).join(', '))} has random weights: its verdicts are meaningless.` : '';
    out.push(`<p class="caveat" data-note="local-judge"><strong>† Local judge.</strong> ${esc(JUDGE_CAVEAT)}${which}${random}</p>`);
  }
  return out.join('\n');
}

export function buildHtmlReport(input: ReportInput): string {
  const { overview, metric } = input;
  const b = overview.benchmark;
  const rows = sortRows(overview.leaderboard.rows, metric);
  const leader = rows[0];
  const metrics = reportMetrics(overview, metric);
  const head = metrics.map((k) => `<th class="num">${esc(metricLabel(k))}<br><span class="muted">${esc(definitionTag(metricDefinition(k)))}</span></th>`).join('');
  const body = rows.map((r) => {
    const c = leader && r.id !== leader.id ? comparisonOf(input.comparisons, r.id, leader.id) : undefined;
    const worse = c ? (LOWER_IS_BETTER.has(metric) ? c.difference > 0 : c.difference < 0) : false;
    const sig = c && Number.isFinite(c.pValue) ? (c.pValue < 0.05 ? `<span title="p=${c.pValue.toPrecision(2)}">${worse ? '▼' : '▲'} p=${esc(c.pValue.toPrecision(2))}</span>` : `≈ p=${esc(c.pValue.toPrecision(2))}`) : r.id === leader?.id ? 'leader' : '–';
    const name = rowModelName(r);
    return `<tr><th scope="row">${esc(name)}<br><span class="muted">${esc(r.modelId)} · ${esc(r.runName)} · v${r.scoreVersion}</span></th>${metrics.map((k) => value(r.metrics[k])).join('')}<td class="sig">${sig}</td></tr>`;
  }).join('\n');
  const armLabel = (key: string) => rowLabel(overview.leaderboard.rows, key);
  const noValue = noValueNotes(rows, rowModelName);
  const twoAxis = twoAxisFigure(overview.leaderboard.rows);
  const figures: string[] = [];
  if (twoAxis.plotted.length) figures.push(figure(toSvgString(twoAxis.figure), `Each model's classification accuracy against its pass@1, with 95 % intervals.${twoAxis.missing.length ? ` Not plotted: ${twoAxis.missing.join('; ')}.` : ''}`));
  figures.push(figure(toSvgString(speedFigure(overview.leaderboard.rows, metric)), `${metricLabel(metric)} against decode speed on the machines the runs used: tokens after each answer's first, over the time from its first token to its last, summed over the answers.`));
  for (const bd of input.breakdowns) {
    if (!bd.groups.length) continue;
    const patients = bd.cells.some((row) => row.some((c) => c?.by === 'patient'));
    figures.push(figure(toSvgString(breakdownFigure(bd, !bd.metric.startsWith('bertscore') && !['rougeL', 'cosine', 'token_f1', 'rubric'].includes(bd.metric))), `Bars: mean; whiskers: 95 % interval${patients ? ', resampling patients (n counts patients)' : ''}.`));
    figures.push(breakdownTable(bd));
  }
  if (overview.taxonomy.length) figures.push(figure(toSvgString(taxonomyFigure(overview.taxonomy)), 'Classes proposed by the local judge and confirmed by reviewers.'));
  for (const rel of overview.reliability.slice(0, 4)) figures.push(figure(toSvgString(reliabilityFigure(rel.label, rel.points)), 'Accuracy per stated-confidence bin (10 equal-width bins); the dashed line is perfect calibration.'));
  for (const c of overview.confusion.slice(0, 4)) figures.push(figure(toSvgString(confusionFigure(c.label, c.labels, c.matrix, c.abstained, c.other)), 'NeuroVLM-Bench class (diagnosis_name) after NeuroEval\'s normalisation (NeuroEval\'s own analysis).'));
  for (const f of degradationFigures(overview.degradation)) figures.push(figure(toSvgString(f), 'Severity 0 is the original images.'));

  const a = input.agreement;
  const agreement = a.reviews === 0 ? '<p class="muted">No clinician reviews yet.</p>' : [
    `<p>${count(a.reviews, 'review')} of ${count(a.reviewedAnswers, 'answer')} by ${count(a.reviewers.length, 'reviewer')}; ${count(a.overrides, 'verdict')} ${plural(a.overrides, 'differs', 'differ')} from the machine's.</p>`,
    '<table><thead><tr><th>Between</th><th class="num">Answers</th><th class="num">Cohen κ</th><th class="num">Raw agreement</th></tr></thead><tbody>',
    ...a.verdicts.pairs.map((p) => `<tr><td>${esc(p.a)} – ${esc(p.b)} (verdicts)</td><td class="num">${p.n}</td><td class="num">${esc(stat(p.kappa))}</td><td class="num">${esc(pct(p.agreement))}</td></tr>`),
    ...a.ratings.pairs.map((p) => `<tr><td>${esc(p.a)} – ${esc(p.b)} (rationale ratings, quadratic)</td><td class="num">${p.n}</td><td class="num">${esc(stat(p.kappa))}</td><td class="num">${esc(pct(p.agreement))}</td></tr>`),
    ...a.machine.map((p) => `<tr><td>machine – ${esc(p.b)}${p.judgeOnly ? ` (judge-decided only: κ ${esc(stat(p.judgeOnly.kappa))}, n=${p.judgeOnly.n})` : ''}</td><td class="num">${p.n}</td><td class="num">${esc(stat(p.kappa))}</td><td class="num">${esc(pct(p.agreement))}</td></tr>`),
    '</tbody></table>',
    `<p>Krippendorff's α: verdicts ${esc(stat(a.verdicts.alpha))} (${a.verdicts.alphaUnits} answers with ≥ 2 reviews), rationale ratings ${esc(stat(a.ratings.alpha))} (${a.ratings.alphaUnits}). Pearson r, rationale rating vs ${esc(a.ratingVsSimilarity.metric ?? 'similarity')}: ${esc(stat(a.ratingVsSimilarity.r))} (n=${a.ratingVsSimilarity.n}). ${esc(UNDEFINED_STATISTIC_NOTE)}</p>`,
  ].join('\n');

  const provenance = overview.runs.map((r) => `<tr><td>${esc(r.name)}</td><td>${esc(r.status)}</td><td class="num">${r.answers}</td><td>${r.scoreVersion ? `v${r.scoreVersion}, ${esc(new Date(r.scoredAt!).toISOString())}` : 'not scored'}</td><td>${esc(r.judge ?? 'none')}</td><td>${esc(r.encoder ?? 'none')}</td></tr>`).join('\n');

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(`NeuroEval report: ${b.name}`)}</title>
<style>${CSS}${input.safety ? SAFETY_CSS : ''}</style>
</head>
<body>
<h1>NeuroEval report: ${esc(b.name)}</h1>
<p class="muted">Benchmark version ${esc(b.version)} · ${b.caseCount} cases · content hash <code>${esc(b.contentHash.slice(0, 16))}…</code>${b.synthetic ? ' · <span class="badge">synthetic data</span>' : ''}<br>
Generated ${esc(input.generatedAt.toISOString())} by NeuroEval ${esc(input.appVersion)}. Scores were computed on this machine; no answer or image left it.</p>
${caveats(overview)}
<h2>Leaderboard</h2>
<p class="muted">Sorted by ${esc(metricLabel(metric))}. Each cell: value, 95 % interval (Wilson for proportions, seeded bootstrap otherwise), answers scored. Last column: test against the leader on the same items (McNemar for proportions, paired bootstrap otherwise); ▼ significantly lower at p &lt; 0.05, ≈ no significant difference.</p>
${patientNote(rows, input.comparisons)}
${samplesNote(rows, input.comparisons)}
<table class="leaderboard"><thead><tr><th>Model</th>${head}<th class="sig">vs leader</th></tr></thead><tbody>
${body}
</tbody></table>
${noValueList(noValue, 'These figures have no value: no answer could give them one.')}
${definitionsTable(metrics)}
${criteriaSection(input.criteria ?? [], new Map(overview.runs.map((r) => [r.id, r.name])))}
${input.safety ? safetySection(input.safety.report, armLabel) : ''}
${input.safety ? failuresSection(input.safety.gallery, armLabel, input.safety.thumbnails, noValue) : ''}
${readersSection(input.readers)}
${neuroVlmBenchSection(overview.neurovlmBench)}
<h2>Figures</h2>
${figures.join('\n')}
<h2>Clinician review and agreement</h2>
${agreement}
<h2>Runs and provenance</h2>
<table><thead><tr><th>Run</th><th>Status</th><th class="num">Answers</th><th>Scores</th><th>Judge</th><th>Encoder</th></tr></thead><tbody>
${provenance}
</tbody></table>
</body>
</html>
`;
}
