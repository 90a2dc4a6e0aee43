/**
 * What the backup folder knows of one run without the database: the last
 * export it read, and every answer the runner reported stored since. When a
 * full disk closes the database the export can no longer be read, and the
 * copy is rebuilt from these, so the backup still holds every stored answer.
 *
 * An answer reported while an export is being read may or may not be in what
 * the read returns (the read and the runner's write race), so it is kept for
 * the next copy either way; the rebuild takes each item once, the newest.
 */
import { serializeRunExport, type RunExport } from '../../core/scoring/io/run-export.ts';
import type { ResponseRecord } from '../../core/model/answer.ts';

/** A run's export as the results worker writes it ("Download run"). */
export interface ExportFile {
  readonly fileName: string;
  readonly text: string;
}

export class SeenAnswers {
  #base: ExportFile | null = null;
  /** Answers reported since the read that gave `#base` began. */
  #rows = new Map<string, ResponseRecord>();

  /** An answer the runner has just stored. */
  add(row: ResponseRecord): void {
    this.#rows.set(row.itemKey, row);
  }

  /**
   * The run's export: `read` from the database, or, when that fails, the last
   * export read with every answer seen since in place of its own. Fails with
   * the read's error when no export was ever read.
   */
  async export(read: () => Promise<ExportFile>, now: number): Promise<ExportFile> {
    const before = this.#rows;
    this.#rows = new Map();
    try {
      const f = await read();
      this.#base = f;
      return f;
    } catch (e) {
      // Nothing read: the answers from before the read still count, with those that came during it (newer) over them.
      this.#rows = new Map([...before, ...this.#rows]);
      if (!this.#base) throw e;
      const base = JSON.parse(this.#base.text) as RunExport;
      const rows = this.#rows;
      const responses = [...base.responses.filter((r) => !rows.has(r.itemKey)), ...rows.values()];
      return { fileName: this.#base.fileName, text: serializeRunExport({ ...base, exportedAt: now, responses }) };
    }
  }
}
