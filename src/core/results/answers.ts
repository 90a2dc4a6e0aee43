/**
 * The answers table: one row per scored answer, filtered, sorted and paged
 * in the results worker, so a page with 100,000 answers only ever renders
 * the rows on screen.
 */
import type { ScoreRecord } from '../scoring/run/records.ts';

export interface AnswerRow {
  readonly responseId: string;
  readonly runId: string;
  readonly caseId: string;
  readonly questionId: string;
  readonly modelId: string;
  readonly variant: string;
  readonly sample: number;
  readonly protocolId: string;
  readonly metric: string | null;
  readonly value: number | null;
  readonly source: string | null;
  readonly confidence: number | null;
  readonly errorClasses: readonly string[];
}

export type Outcome = 'any' | 'right' | 'wrong' | 'unscored';
export type AnswerSortKey = 'caseId' | 'modelId' | 'variant' | 'protocolId' | 'value' | 'confidence';

export interface AnswerQuery {
  readonly modelId?: string;
  readonly protocolId?: string;
  readonly variant?: string;
  readonly outcome?: Outcome;
  /** Case id contains this (case-insensitive). */
  readonly search?: string;
  readonly sort?: { readonly key: AnswerSortKey; readonly descending?: boolean };
  readonly offset?: number;
  readonly limit?: number;
}

/** What the answers table shows when it opens: every answer, by case. The results worker sorts this order ahead, while the page draws the leaderboard. */
export const TABLE_OPENS_WITH = { outcome: 'any', sort: { key: 'caseId', descending: false } } as const satisfies AnswerQuery;

/** Rows the answers table asks for at a time. */
export const TABLE_PAGE = 100;

/** The answers table's first ask when it opens; the results worker reads it ahead with the table's order. */
export const TABLE_FIRST_PAGE: AnswerQuery = { ...TABLE_OPENS_WITH, offset: 0, limit: TABLE_PAGE };

/** The rows a query selects, in their order, as a key: absent and empty filters alike, the search trimmed, the defaults filled in (paging left out). */
export function answerOrderKey(q: AnswerQuery): string {
  return JSON.stringify([q.modelId || '', q.protocolId || '', q.variant || '', q.outcome ?? 'any', q.search?.trim().toLowerCase() ?? '', q.sort ? [q.sort.key, q.sort.descending === true] : null]);
}

/** The page a query asks for, its defaults filled in (a page of `TABLE_PAGE` rows from the top). */
export function answerPageBounds(q: AnswerQuery): { offset: number; limit: number } {
  return { offset: Math.max(0, q.offset ?? 0), limit: Math.max(0, q.limit ?? TABLE_PAGE) };
}

/** Whether two queries ask for the same rows: the same order and the same page of it. */
export function sameAnswerQuery(a: AnswerQuery, b: AnswerQuery): boolean {
  const pa = answerPageBounds(a);
  const pb = answerPageBounds(b);
  return answerOrderKey(a) === answerOrderKey(b) && pa.offset === pb.offset && pa.limit === pb.limit;
}

export interface AnswerPage {
  readonly total: number;
  readonly offset: number;
  readonly rows: readonly AnswerRow[];
}

export function answerTableRow(it: ScoreRecord): AnswerRow {
  const m = it.primary ? it.metrics[it.primary] : undefined;
  return {
    responseId: it.responseId, runId: it.runId, caseId: it.caseId, questionId: it.questionId, modelId: it.modelId, variant: it.variant, sample: it.sample,
    protocolId: it.protocolId, metric: it.primary, value: m?.value ?? null, source: m?.source ?? null, confidence: it.confidence, errorClasses: it.taxonomy?.classes ?? [],
  };
}

function outcomeOf(r: AnswerRow): Outcome {
  if (r.value === null) return 'unscored';
  return r.value >= 0.5 ? 'right' : 'wrong';
}

const collator = new Intl.Collator('en', { numeric: true });

export function queryAnswers(rows: readonly AnswerRow[], q: AnswerQuery = {}): AnswerPage {
  const search = q.search?.trim().toLowerCase();
  let out = rows.filter((r) =>
    (!q.modelId || r.modelId === q.modelId) &&
    (!q.protocolId || r.protocolId === q.protocolId) &&
    (!q.variant || r.variant === q.variant) &&
    (!q.outcome || q.outcome === 'any' || outcomeOf(r) === q.outcome) &&
    (!search || r.caseId.toLowerCase().includes(search)),
  );
  if (q.sort) {
    const { key, descending } = q.sort;
    const sign = descending ? -1 : 1;
    out = [...out].sort((a, b) => {
      const x = a[key];
      const y = b[key];
      if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1; // missing values last either way
      const c = typeof x === 'number' && typeof y === 'number' ? x - y : collator.compare(String(x), String(y));
      return sign * c;
    });
  }
  const { offset, limit } = answerPageBounds(q);
  return { total: out.length, offset, rows: out.slice(offset, offset + limit) };
}
