/**
 * Cases of one benchmark with the filters a reviewer uses: split, task
 * family, the benchmark's own sub-task, disease group and modality.
 */
import type { CaseRecord } from '../../core/bundle/records.ts';
import { compareIds, sortById } from '../../core/text/compare-ids.ts';
import { repos } from '../../lib/storage/app-db.ts';

type FacetKey = 'split' | 'taskFamily' | 'subtask' | 'diseaseGroup' | 'modality';
/** `optional`: shown only when some case has a value (most benchmarks have no sub-tasks of their own). */
export const FACETS: { key: FacetKey; label: string; optional?: boolean }[] = [
  { key: 'split', label: 'Split' },
  { key: 'taskFamily', label: 'Task' },
  { key: 'subtask', label: 'Sub-task', optional: true },
  { key: 'diseaseGroup', label: 'Disease group' },
  { key: 'modality', label: 'Modality' },
];

/** Rows shown at once; "show more" adds this many. */
const PAGE = 200;

export class CaseBrowser {
  #cases = $state.raw<CaseRecord[] | null>(null);
  #error = $state<string | null>(null);
  #filters = $state<Record<FacetKey, string>>({ split: '', taskFamily: '', subtask: '', diseaseGroup: '', modality: '' });
  #limit = $state(PAGE);

  readonly facetValues = $derived.by(() => {
    const out = {} as Record<FacetKey, string[]>;
    for (const { key } of FACETS) {
      const values = (this.#cases ?? []).map((c) => c[key]).filter((v): v is string => !!v).sort(compareIds);
      out[key] = values.filter((v, i) => i === 0 || v !== values[i - 1]);
    }
    return out;
  });

  readonly filtered = $derived.by(() =>
    (this.#cases ?? []).filter((c) => FACETS.every(({ key }) => !this.#filters[key] || c[key] === this.#filters[key])),
  );

  readonly visible = $derived(this.filtered.slice(0, this.#limit));

  constructor(readonly benchmarkId: string) {}

  get loaded() { return this.#cases !== null; }
  get total() { return this.#cases?.length ?? 0; }
  get error() { return this.#error; }
  get filters() { return this.#filters; }

  async load(): Promise<void> {
    try {
      // Stored in key order (case_1, case_10, case_11, …): list them as people count.
      this.#cases = sortById(await (await repos()).cases.listByBenchmark(this.benchmarkId), (c) => c.id);
    } catch (e) {
      this.#error = e instanceof Error ? e.message : String(e);
    }
  }

  setFilter(key: FacetKey, value: string): void {
    this.#filters = { ...this.#filters, [key]: value };
    this.#limit = PAGE;
  }

  showMore(): void {
    this.#limit += PAGE;
  }
}
