/** How the safety view's figures read, the same on the results page and in the HTML report. */
import { ERROR_CLASSES } from '../scoring/equivalence/taxonomy.ts';
import { decimal, percent } from './format.ts';
import type { FailureCase } from './gallery.ts';
import type { RiskCoverage, SafetyRate } from './safety.ts';
import { count, plural } from '../text/plural.ts';

/** "33.3% (3/9)", or "no cases" when nothing was counted. */
export function rateText(r: SafetyRate | null): string {
  return r && r.n > 0 ? `${percent(r.value)} (${r.count}/${r.n})` : 'no cases';
}

/** "95% CI 12.1–64.6%, Wilson" or "…, by patient/question (bootstrap)". */
export function rateInterval(r: SafetyRate | null): string {
  if (!r || r.n === 0 || !Number.isFinite(r.ci.lower)) return '';
  return `${percent(r.ci.lower)}–${percent(r.ci.upper)}${r.ciMethod === 'wilson' ? '' : ', clustered bootstrap'}`;
}

/** Selective accuracy at 80 % coverage with its interval, or why there is none. */
export function at80Text(rc: RiskCoverage | null, confident: number, min: number): string {
  if (!rc) return confident === 0 ? 'no stated confidence' : `too few (${confident} < ${min})`;
  return `${percent(rc.at80.value)} [${percent(rc.at80.ci.lower)}–${percent(rc.at80.ci.upper)}]`;
}

export function aurcText(rc: RiskCoverage | null): string {
  return rc ? decimal(rc.aurc) : '–';
}

/** The sentence on answers outside both rates, or '' when there are none: "36 answers of protocols that name no class are outside both rates." */
export function noClassText(n: number): string {
  return n > 0 ? `${count(n, 'answer')} of ${plural(n, 'a protocol that names', 'protocols that name')} no class ${plural(n, 'is', 'are')} outside both rates.` : '';
}

const CLASS_LABELS = new Map(ERROR_CLASSES.map((c) => [c.id, c.label]));

export function errorClassLabel(id: string): string {
  return CLASS_LABELS.get(id) ?? id;
}

/** Who named a mistake's error classes, in words. */
export function errorSourceText(c: Pick<FailureCase, 'errorSource' | 'errorClasses'>): string {
  if (c.errorSource === 'review') return c.errorClasses.length ? 'confirmed in clinician review' : 'reviewed: no class given';
  if (c.errorSource === 'judge') return 'proposed by the local judge, not reviewed';
  return 'not classified yet';
}

export const confidenceText = (c: number | null): string => (c === null ? 'no confidence stated' : `confidence ${percent(c, 0)}`);
