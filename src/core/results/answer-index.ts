/**
 * The answers table over the stored digests' columns (digest.ts): filters,
 * sorts and pages every answer of a benchmark's current score sets without
 * holding their score rows. A query returns the page's row references (score
 * set and answer); the caller reads just those rows and turns them into
 * table rows (`answerTableRow`), so the result is the page `queryAnswers`
 * gives over all rows, row for row.
 */
import type { AnswerQuery, AnswerSortKey, Outcome } from './answers.ts';
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

/** One string column over all sets: a shared dictionary, each answer's code, and the dictionary's sort ranks (made when first needed). */
class Column {
  readonly values: string[] = [];
  readonly codes: Uint32Array;
  readonly #index = new Map<string, number>();
  #ranks: Uint32Array | null;

  constructor(n: number, parts: readonly { readonly values: readonly string[]; readonly codes: Uint32Array; readonly ranks?: Uint32Array }[]) {
    this.codes = new Uint32Array(n);
    let at = 0;
    for (const p of parts) {
      const map = p.values.map((v) => this.#code(v));
      for (let i = 0; i < p.codes.length; i++) this.codes[at + i] = map[p.codes[i]!]!;
      at += p.codes.length;
    }
    // One set's ranks are stored with it; a dictionary merged from several is ranked on first use.
    this.#ranks = parts.length === 1 && parts[0]!.ranks ? parts[0]!.ranks : null;
  }

  #code(v: string): number {
    let c = this.#index.get(v);
    if (c === undefined) {
      c = this.values.length;
      this.values.push(v);
      this.#index.set(v, c);
    }
    return c;
  }

  codeOf(v: string): number | undefined {
    return this.#index.get(v);
  }

  get ranks(): Uint32Array {
    return (this.#ranks ??= collationRanks(this.values));
  }
}

export class AnswerIndex {
  readonly total: number;
  readonly #setOf: Uint32Array;
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
    this.#setOf = new Uint32Array(n);
    this.#value = new Float64Array(n);
    this.#confidence = new Float64Array(n);
    const starts: number[] = [];
    let at = 0;
    sets.forEach((s, k) => {
      starts.push(at);
      this.#setOf.fill(k, at, at + tableRows(s.table));
      this.#value.set(s.table.value, at);
      this.#confidence.set(s.table.confidence, at);
      at += tableRows(s.table);
    });
    this.#starts = starts;
    const t = sets.map((s) => s.table);
    this.#cols = {
      caseId: new Column(n, t.map((x) => ({ values: unpackStrings(x.caseIds), codes: x.caseCode, ranks: x.caseRank }))),
      modelId: new Column(n, t.map((x) => ({ values: x.modelIds, codes: x.modelCode }))),
      variant: new Column(n, t.map((x) => ({ values: x.variants, codes: x.variantCode }))),
      protocolId: new Column(n, t.map((x) => ({ values: x.protocols, codes: x.protocolCode }))),
    };
  }

  /** The page `queryAnswers` would return for the same query over every row, as references to those rows. */
  query(q: AnswerQuery = {}): AnswerRefPage {
    const order = this.#ordered(q);
    const offset = Math.max(0, q.offset ?? 0);
    const limit = Math.max(0, q.limit ?? 100);
    const refs: AnswerRef[] = [];
    for (const i of order.subarray(offset, offset + limit)) {
      const k = this.#setOf[i]!;
      refs.push({ scoreSetId: this.#setIds[k]!, responseId: this.#responseIdAt[k]!(i - this.#starts[k]!) });
    }
    return { total: order.length, offset, refs };
  }

  /** Filtered and sorted row positions; the last one is kept, so paging through it costs nothing more. */
  #ordered(q: AnswerQuery): Uint32Array {
    const key = JSON.stringify([q.modelId, q.protocolId, q.variant, q.outcome, q.search?.trim().toLowerCase(), q.sort]);
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
    const top = ranks.length;
    const rankOf = (i: number) => {
      const r = ranks[col.codes[i]!]!;
      return descending ? top - 1 - r : r;
    };
    const counts = new Uint32Array(top + 1);
    for (const i of rows) counts[rankOf(i) + 1]!++;
    for (let r = 1; r <= top; r++) counts[r]! += counts[r - 1]!;
    const out = new Uint32Array(rows.length);
    for (const i of rows) out[counts[rankOf(i)]!++] = i;
    return out;
  }
}

function outcomeOf(value: number): Outcome {
  if (Number.isNaN(value)) return 'unscored';
  return value >= 0.5 ? 'right' : 'wrong';
}
