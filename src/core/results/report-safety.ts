/**
 * The HTML report's "Safety" and "Failures" sections (NeuroEval's own
 * figures, safety.ts and gallery.ts). Every text from data is escaped;
 * thumbnails are PNG data URLs made in the results worker, or left out.
 */
import type { GalleryGroup } from './gallery.ts';
import { riskCoverageFigure } from './figures.ts';
import { at80Text, aurcText, confidenceText, errorClassLabel, errorSourceText, rateInterval, rateText } from './safety-format.ts';
import type { NoValueNote } from './no-value.ts';
import type { SafetyRate, SafetyReport } from './safety.ts';
import { escapeXml as esc, toSvgString } from './svg.ts';

const rateCell = (r: SafetyRate | null) => `<td class="num">${esc(rateText(r))}${rateInterval(r) ? `<br><span class="muted">${esc(rateInterval(r))}</span>` : ''}</td>`;

/** Per-arm and per-disease-group safety figures, and the risk–coverage curves. */
export function safetySection(report: SafetyReport, labelOf: (key: string) => string): string {
  if (!report.arms.length) return '';
  const arms = report.arms.map((a) => `<tr><th scope="row">${esc(labelOf(a.key))}</th>${rateCell(a.falseFinding)}${rateCell(a.missedAbnormality)}<td class="num">${a.unreadable.normal} / ${a.unreadable.abnormal}</td>${rateCell(a.flagsChecked ? a.flags.any : null)}<td class="num">${esc(at80Text(a.riskCoverage, a.confident, report.minCurveAnswers))}</td><td class="num">${esc(aurcText(a.riskCoverage))}</td></tr>`).join('\n');
  const flags = report.arms.filter((a) => a.flagsChecked).map((a) => `<tr><th scope="row">${esc(labelOf(a.key))}</th><td class="num">${a.flagsChecked}</td>${rateCell(a.flags.missingField)}${rateCell(a.flags.inconsistentSubtype)}${rateCell(a.flags.icdWithNormal)}</tr>`).join('\n');
  const groupHead = report.arms.map((a) => `<th>${esc(labelOf(a.key))}</th>`).join('');
  const groups = report.groups.map((g) => `<tr><th scope="row">${esc(g.group)}</th>${g.arms.map((c) => `<td>${c.answers === 0 ? '–' : [c.falseFinding ? `false findings ${esc(rateText(c.falseFinding))}` : '', c.missedAbnormality ? `missed ${esc(rateText(c.missedAbnormality))}` : '', `sel. acc. @80 %: ${esc(at80Text(c.riskCoverage, c.confident, report.minCurveAnswers))}`].filter(Boolean).join('<br>')}</td>`).join('')}</tr>`).join('\n');
  const curves = report.arms.some((a) => a.riskCoverage) ? `<figure>${toSvgString(riskCoverageFigure(report, labelOf))}<figcaption class="muted">Risk (1 − accuracy of the answers kept) as answers are kept most confident first; dashed: 80 % coverage.</figcaption></figure>` : `<p class="muted">No model states a confidence on ${report.minCurveAnswers} or more answers: no risk–coverage curve.</p>`;
  return `<h2>Safety</h2>
<p class="muted">NeuroEval's own figures, not a benchmark's. False-finding rate: normal controls whose answer names an abnormality; missed-abnormality rate: abnormal cases answered normal; both over answers with a readable class (unparsable or abstained answers are counted apart, as "unreadable normal / abnormal"). 95 % intervals: Wilson, or a seeded bootstrap resampling patients (or questions with their samples) where answers are grouped. Selective accuracy: accuracy of the 80 % most confident answers, seeded bootstrap interval; AURC: area under the risk–coverage curve (lower is better).${report.noClass ? ` ${report.noClass} answers of protocols that name no class are outside both rates.` : ''}</p>
<table data-safety="arms"><thead><tr><th>Model</th><th class="num">False-finding rate</th><th class="num">Missed-abnormality rate</th><th class="num">Unreadable (normal / abnormal)</th><th class="num">Safety flag raised</th><th class="num">Selective accuracy at 80 %</th><th class="num">AURC</th></tr></thead><tbody>
${arms}
</tbody></table>
${flags ? `<table data-safety="flags"><caption>Safety flags on parsed structured answers (NeuroVLM-Bench's checks as NeuroEval reads them)</caption><thead><tr><th>Model</th><th class="num">Checked</th><th class="num">Mandatory field missing</th><th class="num">Subtype inconsistent</th><th class="num">ICD-10 code with normal</th></tr></thead><tbody>\n${flags}\n</tbody></table>` : ''}
<table data-safety="groups"><caption>By disease group (risk–coverage only with ${report.minCurveAnswers} or more answers stating a confidence)</caption><thead><tr><th>Disease group</th>${groupHead}</tr></thead><tbody>
${groups}
</tbody></table>
${curves}`;
}

/**
 * Per disease group and arm, the most confident mistakes. `thumbnails` maps
 * an image's hash to its data URL; null leaves every image out.
 */
export function failuresSection(gallery: readonly GalleryGroup[], labelOf: (key: string) => string, thumbnails: ReadonlyMap<string, string> | null, noValue: readonly NoValueNote[] = []): string {
  const intro = `<p class="muted">Per disease group, each model's most confident wrong answers (at most four), highest stated confidence first.${thumbnails ? ' Images are the case\'s first image, downscaled.' : ' Images were left out of this report.'}</p>`;
  // "No wrong answers" read as praise when no answer could be marked at all.
  if (!gallery.length && noValue.length) return `<h2>Failures</h2>\n${intro}\n${noValueList(noValue, 'No answer is shown as a failure, but that does not mean none was wrong: where a figure has no value, its answers could not be marked right or wrong.')}`;
  if (!gallery.length) return `<h2>Failures</h2>\n${intro}\n<p>No wrong answers.</p>`;
  const card = (c: GalleryGroup['arms'][number]['cases'][number]) => {
    const url = thumbnails && c.image ? thumbnails.get(c.image) : undefined;
    const img = url ? `<img src="${esc(url)}" alt="${esc(`Case ${c.caseId}, first image`)}">` : '';
    const fields = c.fields.length ? `<p class="fields">${c.fields.map(([k, v]) => `<span class="muted">${esc(k)}:</span> ${esc(v)}`).join(' · ')}</p>` : '<p class="muted">The answer did not parse.</p>';
    const classes = c.errorClasses.length ? esc(c.errorClasses.map(errorClassLabel).join(', ')) : '–';
    return `<div class="failure" data-case="${esc(c.caseId)}">${img}<div><p><strong>${esc(c.caseId)}</strong> · ${esc(confidenceText(c.confidence))}</p>${fields}<pre>${esc(c.rawText)}</pre><p>Reference: ${esc(c.reference)}</p><p>Error classes: ${classes} <span class="muted">(${esc(errorSourceText(c))})</span></p></div></div>`;
  };
  const groups = gallery.map((g) => `<h3>${esc(g.group)}</h3>\n${g.arms.map((a) => `<p>${esc(labelOf(a.key))}: ${a.wrong} wrong${a.wrong > a.cases.length ? `, the ${a.cases.length} most confident shown` : ''}.</p>\n${a.cases.map(card).join('\n')}`).join('\n')}`).join('\n');
  return `<h2>Failures</h2>\n${intro}\n${groups}`;
}

/** Figures no answer could give a value, each with its reason and models (no-value.ts); empty when there are none. */
export function noValueList(notes: readonly NoValueNote[], intro: string): string {
  if (!notes.length) return '';
  return `<div class="no-value" data-note="no-value"><p>${esc(intro)}</p><ul>${notes.map((n) => `<li><strong>${esc(n.label)}</strong> — ${esc(n.models.join('; '))}: ${esc(n.reason)}</li>`).join('')}</ul></div>`;
}

/** Styles of the two sections, added to the report's stylesheet. */
export const SAFETY_CSS = '.failure{display:flex;gap:.75rem;border-bottom:1px solid #dde;padding:.5rem 0;break-inside:avoid}.failure img{width:160px;height:auto;max-height:160px;object-fit:contain;flex:none;background:#000}.failure pre{white-space:pre-wrap;word-break:break-word;font-size:.8rem;background:#f3f5f8;padding:.3rem;margin:.3rem 0}.failure p{margin:.2rem 0}';
