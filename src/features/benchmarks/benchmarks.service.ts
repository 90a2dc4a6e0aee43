/**
 * Actions on stored benchmarks: export as a bundle ZIP and load the bundled
 * demo benchmark on first start (deleting is lib/deletion's, for every kind of record).
 */
import { LARGE_WRITE_BYTES } from '../../core/db/index.ts';
import { download } from '../../lib/files/download.ts';
import { repos } from '../../lib/storage/app-db.ts';
import { persistence } from '../../lib/storage/persistence.svelte.ts';
import { storedMarker } from '../../lib/storage/stored-marker.svelte.ts';
import { importWorker } from '../../lib/workers/clients.ts';

const DEMO_URL = 'demo/neuroeval-demo.zip';
const DEMO_SETTING = 'demo.loadedOnce';

export async function exportBenchmark(benchmarkId: string): Promise<void> {
  const { name, bytes } = await importWorker.api.exportZip({ benchmarkId });
  download(name, bytes, 'application/zip');
}

/** Imports the demo bundle shipped with the app (from the offline cache once installed). */
export async function loadDemo(): Promise<string> {
  const res = await fetch(DEMO_URL);
  if (!res.ok) throw new Error(`The demo benchmark could not be read (${res.status}).`);
  const file = new File([await res.blob()], 'neuroeval-demo.zip', { type: 'application/zip' });
  const preview = await importWorker.api.preview({ files: [{ path: file.name, file }], kind: 'neuroeval-bundle' });
  if (!preview.previewId) throw new Error(`The demo benchmark is invalid: ${preview.errors[0]?.message ?? 'unknown problem'}`);
  const result = await importWorker.api.commit({ previewId: preview.previewId });
  // The worker cannot ask for persistent storage (a window-only API): this is the first large write.
  if (result.bytesWritten >= LARGE_WRITE_BYTES) void persistence.request();
  const r = await repos();
  await r.settings.set(DEMO_SETTING, true);
  await storedMarker.update(r);
  return result.benchmarkId;
}

/**
 * On the very first start, load the demo so a teacher or IT person sees a
 * working benchmark at once. Once loaded (or deleted later), it is not forced back.
 */
export async function ensureDemoOnFirstStart(): Promise<void> {
  const r = await repos();
  if (await r.settings.get(DEMO_SETTING, false)) return;
  if ((await r.benchmarks.count()) > 0) {
    await r.settings.set(DEMO_SETTING, true);
    return;
  }
  await loadDemo();
}
