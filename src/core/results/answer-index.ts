/**
 * The answers table over the stored digests' columns (digest.ts): filters,
 * sorts and pages every answer of a benchmark's current score sets without
 * holding their score rows. A query returns the page's row references (score
 * set and answer); the caller reads just those rows and turns them into
 * table rows (`answerTableRow`), so the result is the page `queryAnswers`
 * gives over all rows, row for row.
 */
import { answerOrderKey, answerPageBounds, type AnswerQuery, type AnswerSortKey, type Outcome } from './answers.ts';
import { collationRanks, responseIdAt, tableRows, type AnswerColumns } from './digest.ts';
import { unpackStrings } from './packed-strings.ts';

export interface AnswerRef {
  readonly scoreSetId: string;
  readonly responseId: string;
}

export interface AnswerRefPage {
  readonly total: number;
  readonly offset: number;
  readonly refs: readonly AnswerRef[];
}

interface ColumnPart {
  /** The set's dictionary; a function when it is unpacked only if asked for (the case ids). */
  readonly values: readonly string[] | (() => readonly string[]);
  readonly codes: Uint32Array;
  readonly ranks?: Uint32Array;
}

const valuesOf = (p: ColumnPart): readonly string[] => (typeof p.values === 'function' ? p.values() : p.values);

/**
 * One string column over all sets: a shared dictionary, each answer's code,
 * and the dictionary's sort ranks (made when first needed). A single set's
 * column is its stored one as it is: the table opens sorted by case on the
 * stored ranks, so neither the 25,000 case ids nor a lookup of them is made
 * before a filter or a search needs them (building both was most of opening
 * the table).
 */
class Column {
  readonly codes: Uint32Array;
  #values: readonly string[] | null = null;
  #index: Map<string, number> | null = null;
  #ranks: Uint32Array | null;
  readonly #single: ColumnPart | null;

  constructor(n: number, parts: readonly ColumnPart[]) {
    if (parts.length === 1) {
      this.#single = parts[0]!;
      this.codes = this.#single.codes;
      this.#ranks = this.#single.ranks ?? null;
      return;
    }
    this.#single = null;
    const values: string[] = [];
    const index = new Map<string, number>();
    this.codes = new Uint32Array(n);
    let at = 0;
    for (const p of parts) {
      const map = valuesOf(p).map((v) => {
        let c = index.get(v);
        if (c === undefined) index.set(v, (c = values.push(v) - 1));
        return c;
      });
      for (let i = 0; i < p.codes.length; i++) this.codes[at + i] = map[p.codes[i]!]!;
      at += p.codes.length;
    }
    this.#values = values;
    this.#index = index;
    // A dictionary merged from several sets is ranked on first use.
    this.#ranks = null;
  }

  get values(): readonly string[] {
    return (this.#values ??= valuesOf(this.#single!));
  }

  codeOf(v: string): number | undefined {
    this.#index ??= new Map(this.values.map((s, i) => [s, i]));
    return this.#index.get(v);
  }

  get ranks(): Uint32Array {
    return (this.#ranks ??= collationRanks(this.values));
  }
}

export class AnswerIndex {
  readonly total: number;
  /** Each row's set; null with one set (every row is the first set's). */
  readonly #setOf: Uint32Array | null;
  readonly #setIds: readonly string[];
  readonly #responseIdAt: readonly ((row: number) => string)[];
  readonly #starts: readonly number[];
  readonly #cols: Readonly<Record<'caseId' | 'modelId' | 'variant' | 'protocolId', Column>>;
  readonly #value: Float64Array;
  readonly #confidence: Float64Array;
  #last: { key: string; order: Uint32Array } | null = null;

  /** The sets' columns in the order the table lists them unsorted (runs in order, then each set's rows). */
  constructor(sets: readonly { readonly scoreSetId: string; readonly runId: string; readonly table: AnswerColumns }[]) {
    const n = sets.reduce((a, s) => a + tableRows(s.table), 0);
    this.total = n;
    this.#setIds = sets.map((s) => s.scoreSetId);
    this.#responseIdAt = sets.map((s) => (row) => responseIdAt(s.table, s.runId, row));
    const starts: number[] = [];
    if (sets.length === 1) {
      // One set (a benchmark with one scored run): its columns are read as stored, not copied.
      this.#setOf = null;
      this.#value = sets[0]!.table.value;
      this.#confidence = sets[0]!.table.confidence;
      starts.push(0);
    } else {
      this.#setOf = new Uint32Array(n);
      this.#value = new Float64Array(n);
      this.#confidence = new Float64Array(n);
      let at = 0;
      sets.forEach((s, k) => {
        starts.push(at);
        this.#setOf!.fill(k, at, at + tableRows(s.table));
        this.#value.set(s.table.value, at);
        this.#confidence.set(s.table.confidence, at);
        at += tableRows(s.table);
      });
    }
    this.#starts = starts;
    const t = sets.map((s) => s.table);
    this.#cols = {
      caseId: new Column(n, t.map((x) => ({ values: () => unpackStrings(x.caseIds), codes: x.caseCode, ranks: x.caseRank }))),
      modelId: new Column(n, t.map((x) => ({ values: x.modelIds, codes: x.modelCode }))),
      variant: new Column(n, t.map((x) => ({ values: x.variants, codes: x.variantCode }))),
      protocolId: new Column(n, t.map((x) => ({ values: x.protocols, codes: x.protocolCode }))),
    };
  }

  /** The page `queryAnswers` would return for the same query over every row, as references to those rows. */
  query(q: AnswerQuery = {}): AnswerRefPage {
    const order = this.#ordered(q);
    const { offset, limit } = answerPageBounds(q);
    const refs: AnswerRef[] = [];
    for (const i of order.subarray(offset, offset + limit)) {
      const k = this.#setOf?.[i] ?? 0;
      refs.push({ scoreSetId: this.#setIds[k]!, responseId: this.#responseIdAt[k]!(i - this.#starts[k]!) });
    }
    return { total: order.length, offset, refs };
  }

  /** Filtered and sorted row positions; the last one is kept, so paging through it costs nothing more. */
  #ordered(q: AnswerQuery): Uint32Array {
    const key = answerOrderKey(q);
    if (this.#last?.key === key) return this.#last.order;
    const filtered = this.#filter(q);
    const order = q.sort ? this.#sort(filtered, q.sort.key, q.sort.descending === true) : filtered;
    this.#last = { key, order };
    return order;
  }

  #filter(q: AnswerQuery): Uint32Array {
    const want = (col: Column, v: string | undefined): number | null | undefined => (v ? (col.codeOf(v) ?? -1) : null);
    const model = want(this.#cols.modelId, q.modelId);
    const protocol = want(this.#cols.protocolId, q.protocolId);
    const variant = want(this.#cols.variant, q.variant);
    const search = q.search?.trim().toLowerCase();
    const cases = this.#cols.caseId;
    const caseMatch = search ? cases.values.map((c) => c.toLowerCase().includes(search)) : null;
    const outcome: Outcome = q.outcome ?? 'any';
    const out = new Uint32Array(this.total);
    if (model === null && protocol === null && variant === null && !caseMatch && outcome === 'any') {
      // Every row, in table order: how the table opens.
      for (let i = 0; i < this.total; i++) out[i] = i;
      return out;
    }
    let m = 0;
    for (let i = 0; i < this.total; i++) {
      if (model !== null && this.#cols.modelId.codes[i] !== model) continue;
      if (protocol !== null && this.#cols.protocolId.codes[i] !== protocol) continue;
      if (variant !== null && this.#cols.variant.codes[i] !== variant) continue;
      if (caseMatch && !caseMatch[cases.codes[i]!]) continue;
      if (outcome !== 'any' && outcomeOf(this.#value[i]!) !== outcome) continue;
      out[m++] = i;
    }
    return out.subarray(0, m);
  }

  /** A stable sort of the positions (ties keep table order); missing numbers last either way, as `queryAnswers` sorts. */
  #sort(rows: Uint32Array, key: AnswerSortKey, descending: boolean): Uint32Array {
    if (key === 'value' || key === 'confidence') {
      const v = key === 'value' ? this.#value : this.#confidence;
      const sign = descending ? -1 : 1;
      return Uint32Array.from(rows).sort((a, b) => {
        const x = v[a]!;
        const y = v[b]!;
        const xm = Number.isNaN(x);
        const ym = Number.isNaN(y);
        if (xm || ym) return xm === ym ? a - b : xm ? 1 : -1;
        return sign * (x - y) || a - b;
      });
    }
    // Strings: a counting sort by collation rank, stable, so linear in the rows.
    const col = this.#cols[key];
    const ranks = col.ranks;
    const codes = col.codes;
    const top = ranks.length;
    // Each code's sort key, once per dictionary entry rather than per row.
    const keyOf = descending ? ranks.map((r) => top - 1 - r) : ranks;
    const counts = new Uint32Array(top + 1);
    for (let j = 0; j < rows.length; j++) counts[keyOf[codes[rows[j]!]!]! + 1]!++;
    for (let r = 1; r <= top; r++) counts[r]! += counts[r - 1]!;
    const out = new Uint32Array(rows.length);
    for (let j = 0; j < rows.length; j++) {
      const i = rows[j]!;
      out[counts[keyOf[codes[i]!]!]!++] = i;
    }
    return out;
  }
}

function outcomeOf(value: number): Outcome {
  if (Number.isNaN(value)) return 'unscored';
  return value >= 0.5 ? 'right' : 'wrong';
}
