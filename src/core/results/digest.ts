/**
 * A score set's results digest: what the results page needs from a set's
 * answer rows, computed once when the set is stored (and lazily for sets
 * stored before digests existed), so that opening the page reads a handful of
 * records instead of every score row.
 *
 * Two parts per set, stored as two records so opening reads only the first:
 * - `open`: per-arm reliability bins, degradation curves, the breakdown
 *   dimensions the benchmark's cases offer, and the answers table's columns
 *   (response ids and the filter and sort keys, dictionary-encoded), in the
 *   order the score rows are stored: the table's unsorted order.
 * - `detail`: every metric's value per answer, question ids, samples and a
 *   slim copy of the answered cases (the fields breakdowns group by and the
 *   patient keys): paired tests and breakdowns rebuild light answer rows from
 *   it (`lightItems`) without reading the score rows.
 *
 * A digest names what it derives from (score set, scorer version, the
 * benchmark's content hash, the number of rows) and its own format, so a
 * digest that no longer matches is rebuilt rather than read. Score sets are
 * never edited; a re-score (and so a review folded in) is a new set, with a
 * new digest. What depends on reviews after scoring (confirmed error
 * classes, agreement) is computed when the page opens, from the reviews.
 */
import type { BenchCase } from '../bundle/types.ts';
import type { ScoreRecord, ScoreSetRecord } from '../scoring/run/records.ts';
import type { ReliabilityPoint } from '../scoring/metrics/calibration.ts';
import { PATIENT_KEY, STUDY_KEY } from '../scoring/run/patients.ts';
import { degradationCurves, rowReliability, type DegradationCurve } from './curves.ts';
import { dimensionsFor, type Dimension } from './breakdowns.ts';
import { type BreakdownCase } from './leaderboard.ts';
import { type ScoredItem } from '../scoring/run/records.ts';
import { itemKeyOf, responseIdOf } from '../runner/plan.ts';
import type { Variant } from '../runner/types.ts';
import { packedAt, packStrings, stringAt, unpackStrings, type PackedStrings } from './packed-strings.ts';
import { TECHNICAL_TAGS } from './technical-tags.ts';

/** Bumped whenever what a digest holds or how it is computed changes: older digests are rebuilt. */
export const DIGEST_FORMAT = 6;

/** What a digest was computed from; a digest whose source differs from the set's is stale. */
export interface DigestSource {
  readonly format: number;
  readonly scoreSetId: string;
  readonly runId: string;
  readonly scorerVersion: string;
  readonly benchmarkHash: string;
  /** When the set was marked outdated (an answer or review it counted deleted), if it was when the digest was built. */
  readonly outdatedAt: number | null;
  /** Score rows of the set when the digest was built. */
  readonly items: number;
}

/** The answers table's columns, one entry per answer; codes index the dictionaries. */
export interface AnswerColumns {
  /**
   * The answer ids that are not the run's id for the row's item
   * (`responseIdOf(runId, itemKeyOf(…))`, which every answer the runner
   * stores has), by row, ascending: the others are derived from the columns
   * when asked ({@link responseIdAt}). 100,000 ids stored as text were more
   * than half of what opening read back.
   */
  readonly otherIds: { readonly rows: Uint32Array; readonly ids: PackedStrings };
  /** The case dictionary, packed: strings read back one by one, bytes at once (packed-strings.ts). */
  readonly caseIds: PackedStrings;
  /** The sort key of each case id: its place in the table's collation (equal for ids it does not tell apart). */
  readonly caseRank: Uint32Array;
  readonly caseCode: Uint32Array;
  readonly modelIds: readonly string[];
  readonly modelCode: Uint32Array;
  readonly variants: readonly string[];
  readonly variantCode: Uint32Array;
  readonly protocols: readonly string[];
  readonly protocolCode: Uint32Array;
  /** The primary metric's value; NaN when the answer has none. */
  readonly value: Float64Array;
  /** Stated confidence; NaN when none. */
  readonly confidence: Float64Array;
  readonly questionIds: readonly string[];
  readonly questionCode: Uint32Array;
  readonly sample: Uint32Array;
}

export interface OpenDigest extends DigestSource {
  readonly part: 'open';
  /** Reliability bins of each model and variant with stated confidences. */
  readonly reliability: readonly { readonly modelId: string; readonly variant: string; readonly points: readonly ReliabilityPoint[] }[];
  readonly degradation: readonly DegradationCurve[];
  readonly dimensions: readonly Dimension[];
  readonly table: AnswerColumns;
}

export interface DetailDigest extends DigestSource {
  readonly part: 'detail';
  /** Each metric's value per answer (NaN when the answer has none), aligned with the open part's rows. */
  readonly metrics: Readonly<Record<string, Float64Array>>;
  /** The answered cases, with only what breakdowns and patient clustering read, as columns (no object per case to read back). */
  readonly cases: CaseColumns;
}

/** A string field of each case: a dictionary and each case's code in it, {@link ABSENT} where the case has none. */
interface FieldColumn {
  readonly values: readonly string[];
  readonly codes: Uint32Array;
}

const ABSENT = 0xffffffff;
const CASE_FIELDS = ['split', 'taskFamily', 'diseaseGroup', 'subtask', 'modality', 'sequence', 'imageSequence', 'plane'] as const;
type CaseField = (typeof CASE_FIELDS)[number];

export interface CaseColumns {
  readonly ids: PackedStrings;
  /** Whether the case has a first image (whose sequence and plane breakdowns read). */
  readonly hasImage: Uint8Array;
  readonly fields: Readonly<Record<CaseField, FieldColumn>>;
  /** The kept `meta` keys (technical tags, patient and study keys). */
  readonly meta: Readonly<Record<string, FieldColumn>>;
}

function fieldColumn(values: readonly (string | undefined)[]): FieldColumn {
  const dict = new Dictionary();
  const codes = new Uint32Array(values.length);
  values.forEach((v, i) => (codes[i] = v === undefined ? ABSENT : dict.code(v)));
  return { values: dict.values, codes };
}

function caseColumns(cases: readonly BenchCase[]): CaseColumns {
  const first = (c: BenchCase) => c.images[0];
  const get: Record<CaseField, (c: BenchCase) => string | undefined> = {
    split: (c) => c.split, taskFamily: (c) => c.taskFamily, diseaseGroup: (c) => c.diseaseGroup, subtask: (c) => c.subtask, modality: (c) => c.modality,
    sequence: (c) => c.sequences?.[0], imageSequence: (c) => first(c)?.sequence, plane: (c) => (first(c)?.plane === undefined ? undefined : String(first(c)!.plane)),
  };
  return {
    ids: packStrings(cases.map((c) => c.id)),
    hasImage: Uint8Array.from(cases, (c) => (first(c) ? 1 : 0)),
    fields: Object.fromEntries(CASE_FIELDS.map((f) => [f, fieldColumn(cases.map(get[f]))])) as Record<CaseField, FieldColumn>,
    meta: Object.fromEntries(META_KEPT.map((k) => [k, fieldColumn(cases.map((c) => c.meta?.[k]))])),
  };
}

/** The cases back from their columns, with what breakdowns and patient clustering read. */
export function casesFromColumns(cols: CaseColumns): Map<string, BreakdownCase> {
  const at = (col: FieldColumn, i: number): string | undefined => (col.codes[i] === ABSENT ? undefined : col.values[col.codes[i]!]);
  const out = new Map<string, BreakdownCase>();
  unpackStrings(cols.ids).forEach((id, i) => {
    const f = (name: CaseField) => at(cols.fields[name], i);
    const meta: Record<string, string> = {};
    for (const [k, col] of Object.entries(cols.meta)) {
      const v = at(col, i);
      if (v !== undefined) meta[k] = v;
    }
    const sequence = f('sequence');
    const imageSequence = f('imageSequence');
    const plane = f('plane');
    out.set(id, {
      taskFamily: f('taskFamily') as BenchCase['taskFamily'], meta,
      images: cols.hasImage[i] ? [{ ...(imageSequence !== undefined ? { sequence: imageSequence } : {}), ...(plane !== undefined ? { plane } : {}) }] : [],
      ...(f('split') !== undefined ? { split: f('split')! } : {}), ...(f('diseaseGroup') !== undefined ? { diseaseGroup: f('diseaseGroup')! } : {}),
      ...(f('subtask') !== undefined ? { subtask: f('subtask')! } : {}),
      ...(f('modality') !== undefined ? { modality: f('modality')! } : {}), ...(sequence !== undefined ? { sequences: [sequence] } : {}),
    });
  });
  return out;
}

export type ResultDigestPart = OpenDigest | DetailDigest;

/** The stored record: `${scoreSetId}|open` or `${scoreSetId}|detail`. */
export type ResultDigestRecord = ResultDigestPart & { readonly id: string };

export const digestId = (scoreSetId: string, part: ResultDigestPart['part']): string => `${scoreSetId}|${part}`;

/** The source a digest of this set must carry to be current. */
export function digestSource(set: Pick<ScoreSetRecord, 'id' | 'runId' | 'config' | 'outdated'>, benchmarkHash: string, items: number): DigestSource {
  return { format: DIGEST_FORMAT, scoreSetId: set.id, runId: set.runId, scorerVersion: set.config.scorerVersion, benchmarkHash, outdatedAt: set.outdated?.at ?? null, items };
}

/**
 * Whether a stored digest was built from this set as it is now. A set's rows
 * change only when an answer it counted is deleted, which marks the set
 * outdated (db/repos/deletions.repo.ts, which also deletes its digests), so
 * the mark stands for the rows and opening need not count them.
 */
export function currentFor(stored: DigestSource, set: Pick<ScoreSetRecord, 'id' | 'runId' | 'config' | 'outdated'>, benchmarkHash: string): boolean {
  const now = digestSource(set, benchmarkHash, stored.items);
  return stored.format === now.format && stored.scoreSetId === now.scoreSetId && stored.runId === now.runId && stored.scorerVersion === now.scorerVersion
    && stored.benchmarkHash === now.benchmarkHash && stored.outdatedAt === now.outdatedAt;
}

/** Dictionary encoding: each distinct string once, in first-seen order. */
class Dictionary {
  readonly values: string[] = [];
  readonly #codes = new Map<string, number>();
  code(v: string): number {
    let c = this.#codes.get(v);
    if (c === undefined) {
      c = this.values.length;
      this.values.push(v);
      this.#codes.set(v, c);
    }
    return c;
  }
}

const META_KEPT = [...Object.values(TECHNICAL_TAGS), PATIENT_KEY, STUDY_KEY];

/** The answers table's string order (answers.ts sorts with the same collator). */
export const tableCollator = new Intl.Collator('en', { numeric: true });

/**
 * Each string's rank in the table's collation: strings the collator holds
 * equal share a rank, so sorting by rank and then by position keeps their
 * order as a stable sort by the collator would.
 */
export function collationRanks(values: readonly string[]): Uint32Array {
  const order = values.map((_, i) => i).sort((a, b) => tableCollator.compare(values[a]!, values[b]!));
  const ranks = new Uint32Array(values.length);
  let rank = 0;
  order.forEach((v, k) => {
    if (k > 0 && tableCollator.compare(values[order[k - 1]!]!, values[v]!) !== 0) rank = k;
    ranks[v] = rank;
  });
  return ranks;
}

/** The rows whose answer id is not the one the runner gives that item in this run, with their ids. */
function otherIds(runId: string, items: readonly ScoreRecord[]): AnswerColumns['otherIds'] {
  const rows: number[] = [];
  const ids: string[] = [];
  items.forEach((it, i) => {
    if (it.responseId === responseIdOf(runId, itemKeyOf({ caseId: it.caseId, questionId: it.questionId, modelId: it.modelId, variant: it.variant as Variant, sample: it.sample }))) return;
    rows.push(i);
    ids.push(it.responseId);
  });
  return { rows: Uint32Array.from(rows), ids: packStrings(ids) };
}

/** The number of answers in a set's table. */
export const tableRows = (t: AnswerColumns): number => t.caseCode.length;

/** The answer id of row `i` of a set's table (`runId`: the set's run). */
export function responseIdAt(t: AnswerColumns, runId: string, i: number): string {
  const rows = t.otherIds.rows;
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid]! < i) lo = mid + 1;
    else hi = mid;
  }
  if (lo < rows.length && rows[lo] === i) return packedAt(t.otherIds.ids, lo);
  const code = (values: readonly string[], codes: Uint32Array) => values[codes[i]!]!;
  return responseIdOf(runId, itemKeyOf({
    caseId: stringAt(t.caseIds, t.caseCode[i]!), questionId: code(t.questionIds, t.questionCode), modelId: code(t.modelIds, t.modelCode),
    variant: code(t.variants, t.variantCode) as Variant, sample: t.sample[i]!,
  }));
}

const byId = (a: ScoreRecord, b: ScoreRecord) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Both parts of a set's digest from its score rows and the benchmark's
 * cases. Rows are put in the order IndexedDB lists them by primary key, the
 * order the answers table shows them unsorted.
 */
export function buildDigest(set: ScoreSetRecord, rows: readonly ScoreRecord[], cases: readonly BenchCase[], benchmarkHash: string): { open: OpenDigest; detail: DetailDigest } {
  const items = [...rows].sort(byId);
  const n = items.length;
  const source = digestSource(set, benchmarkHash, n);
  const dict = { case: new Dictionary(), model: new Dictionary(), variant: new Dictionary(), protocol: new Dictionary(), question: new Dictionary() };
  const col = {
    caseCode: new Uint32Array(n), modelCode: new Uint32Array(n), variantCode: new Uint32Array(n), protocolCode: new Uint32Array(n), questionCode: new Uint32Array(n),
    sample: new Uint32Array(n), value: new Float64Array(n), confidence: new Float64Array(n),
  };
  const metrics: Record<string, Float64Array> = {};
  const arms = new Map<string, { modelId: string; variant: string }>();
  items.forEach((it, i) => {
    col.caseCode[i] = dict.case.code(it.caseId);
    col.modelCode[i] = dict.model.code(it.modelId);
    col.variantCode[i] = dict.variant.code(it.variant);
    col.protocolCode[i] = dict.protocol.code(it.protocolId);
    col.questionCode[i] = dict.question.code(it.questionId);
    col.sample[i] = it.sample;
    const primary = it.primary ? it.metrics[it.primary]?.value : undefined;
    col.value[i] = primary ?? NaN;
    col.confidence[i] = it.confidence ?? NaN;
    for (const [m, v] of Object.entries(it.metrics)) {
      let values = metrics[m];
      if (!values) metrics[m] = values = new Float64Array(n).fill(NaN);
      values[i] = v.value ?? NaN;
    }
    arms.set(`${it.modelId}\u0000${it.variant}`, { modelId: it.modelId, variant: it.variant });
  });
  const answered = new Set(dict.case.values);
  const run = { id: set.runId, name: '', benchmarkId: '', status: 'done' as const, createdAt: 0 };
  const open: OpenDigest = {
    ...source, part: 'open',
    reliability: [...arms.values()].flatMap((arm) => {
      const points = rowReliability({ items }, arm);
      return points.length ? [{ ...arm, points }] : [];
    }),
    degradation: degradationCurves([{ run, set, items }]),
    dimensions: dimensionsFor(cases),
    table: {
      otherIds: otherIds(set.runId, items), caseIds: packStrings(dict.case.values), caseRank: collationRanks(dict.case.values), caseCode: col.caseCode, modelIds: dict.model.values, modelCode: col.modelCode,
      variants: dict.variant.values, variantCode: col.variantCode, protocols: dict.protocol.values, protocolCode: col.protocolCode, value: col.value, confidence: col.confidence,
      questionIds: dict.question.values, questionCode: col.questionCode, sample: col.sample,
    },
  };
  const detail: DetailDigest = {
    ...source, part: 'detail', metrics,
    cases: caseColumns(cases.filter((c) => answered.has(c.id))),
  };
  return { open, detail };
}

/**
 * A set's answers with one metric's value, rebuilt from its digest for
 * paired tests and breakdowns: only answers that have a value (the others
 * are skipped there anyway), in stored order.
 */
export function lightItems(open: OpenDigest, detail: DetailDigest, metric: string): ScoredItem[] {
  const values = detail.metrics[metric];
  if (!values) return [];
  const t = open.table;
  const caseIds = unpackStrings(t.caseIds);
  const out: ScoredItem[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (Number.isNaN(v)) continue;
    out.push({
      caseId: caseIds[t.caseCode[i]!]!, questionId: t.questionIds[t.questionCode[i]!]!, sample: t.sample[i]!,
      modelId: t.modelIds[t.modelCode[i]!]!, variant: t.variants[t.variantCode[i]!]!, protocolId: t.protocols[t.protocolCode[i]!]!, metrics: { [metric]: { value: v } },
    });
  }
  return out;
}
