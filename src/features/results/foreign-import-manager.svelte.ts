/**
 * Importing another harness's answers as a run, as the page sees it: the
 * picked files are read once, previewed against the stored benchmarks in the
 * results worker (which benchmark, how many items match, what did not and
 * why), adjusted (benchmark, protocol, the model's name, a mapping of the
 * harness's ids to cases) and previewed again, then stored.
 */
import { messageWithLocation } from '../../core/errors.ts';
import type { ForeignImportPreview, ForeignImportRequest, ForeignImportResult } from '../../core/stored/import-foreign.ts';
import type { ForeignFile } from '../../core/interchange/read/index.ts';
import { resultsWorker } from '../../lib/workers/clients.ts';

type Api = Pick<typeof resultsWorker.api, 'previewForeign' | 'importForeign'>;

export class ForeignImportManager {
  #files = $state.raw<ForeignFile[]>([]);
  #preview = $state.raw<ForeignImportPreview | null>(null);
  #benchmarkId = $state('');
  #protocolId = $state('auto');
  #model = $state('');
  #mapping = $state<Record<string, string>>({});
  #busy = $state(false);
  #error = $state<string | null>(null);
  #done = $state.raw<ForeignImportResult | null>(null);
  readonly #api: () => Api;
  readonly #app: ForeignImportRequest['app'];

  /** `app`: this build's version and commit, recorded in the run's provenance. */
  constructor(app: ForeignImportRequest['app'], api: () => Api = () => resultsWorker.api) {
    this.#app = app;
    this.#api = api;
  }

  get preview(): ForeignImportPreview | null {
    return this.#preview;
  }
  get benchmarkId(): string {
    return this.#benchmarkId;
  }
  get protocolId(): string {
    return this.#protocolId;
  }
  get model(): string {
    return this.#model;
  }
  get mapping(): Readonly<Record<string, string>> {
    return this.#mapping;
  }
  get busy(): boolean {
    return this.#busy;
  }
  get error(): string | null {
    return this.#error;
  }
  get done(): ForeignImportResult | null {
    return this.#done;
  }
  get active(): boolean {
    return this.#files.length > 0;
  }

  /** Forgets the files and everything chosen for them. */
  reset(): void {
    this.#files = [];
    this.#preview = null;
    this.#benchmarkId = '';
    this.#protocolId = 'auto';
    this.#model = '';
    this.#mapping = {};
    this.#error = null;
    this.#done = null;
  }

  /** Reads the picked files and previews them against the stored benchmarks. */
  async open(files: readonly File[]): Promise<void> {
    this.reset();
    this.#files = await Promise.all(files.map(async (f) => ({ name: f.name, bytes: new Uint8Array(await f.arrayBuffer()) })));
    await this.refresh();
  }

  setBenchmark(id: string): Promise<void> {
    this.#benchmarkId = id;
    this.#mapping = {};
    return this.refresh();
  }

  setProtocol(id: string): void {
    this.#protocolId = id;
  }

  setModel(name: string): void {
    this.#model = name;
  }

  /** Maps a harness id to a case (or case#question); an empty value removes the mapping. Applied by {@link refresh}. */
  map(id: string, target: string): void {
    const next = { ...this.#mapping };
    if (target.trim()) next[id] = target.trim();
    else delete next[id];
    this.#mapping = next;
  }

  #request(): ForeignImportRequest {
    return {
      files: this.#files,
      ...(this.#benchmarkId ? { benchmarkId: this.#benchmarkId } : {}),
      protocolId: this.#protocolId,
      mapping: { ...this.#mapping },
      ...(this.#model.trim() ? { model: this.#model.trim() } : {}),
      app: this.#app,
    };
  }

  /** Previews again with the current choices. */
  async refresh(): Promise<void> {
    if (!this.#files.length) return;
    this.#busy = true;
    this.#error = null;
    try {
      this.#preview = await this.#api().previewForeign(this.#request());
      this.#benchmarkId = this.#preview.benchmark.id;
    } catch (err) {
      this.#preview = null;
      this.#error = messageWithLocation(err);
    } finally {
      this.#busy = false;
    }
  }

  /** Stores the matched answers as a run. */
  async commit(): Promise<ForeignImportResult | null> {
    this.#busy = true;
    this.#error = null;
    try {
      this.#done = await this.#api().importForeign(this.#request());
      this.#preview = null;
      return this.#done;
    } catch (err) {
      this.#error = messageWithLocation(err);
      return null;
    } finally {
      this.#busy = false;
    }
  }
}
