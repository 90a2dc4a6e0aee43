/**
 * Models on this device: download from an on-prem mirror, import from a
 * folder (air-gapped machines), verify against recorded hashes, delete.
 * Files go to Cache Storage (lib/models/model-store.ts); the record with the
 * file list and hashes goes to the `models` table.
 */
import { sourceFileUrl, type CatalogueEntry } from '../../core/engines/catalogue.ts';
import { AbortedError, InvalidInputError, isAbortLike, throwIfAborted } from '../../core/errors.ts';
import type { ModelRecord } from '../../core/models/record.ts';
import { checkModelFolder, MLC_CONFIG, mlcShardPaths } from '../../core/models/folder-layout.ts';
import { describeModelConfig, MODEL_MANIFEST, parseModelManifest, type ModelManifestFile } from '../../core/models/manifest.ts';
import type { PickedFile } from '../../core/bundle/importer.ts';
import { forgetWebLlmModel, rememberWebLlmModel } from '../../lib/engines/webllm-models.ts';
import { deleteModelFiles, modelLocation, putModelFile, readModelFile } from '../../lib/models/model-store.ts';
import { repos } from '../../lib/storage/app-db.ts';
import { persistence } from '../../lib/storage/persistence.svelte.ts';
import { hashWorker } from '../../lib/workers/clients.ts';
import { Transfer } from './transfer.svelte.ts';

export const MIRROR_SETTING = 'models.mirrorBaseUrl';

/** A file name safe as one path segment of a model id. */
function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'model';
}

class ModelManager {
  #transfers = $state.raw<Transfer[]>([]);
  #message = $state<string | null>(null);
  #error = $state<string | null>(null);
  /** Which action the message or error is about, so the page shows it in that action's card. */
  #about = $state<'download' | 'import' | 'verify' | 'delete' | null>(null);
  /** The last outcome of an action on a catalogue row, shown in that row. */
  #rows = $state<Record<string, { readonly ok: boolean; readonly text: string }>>({});

  get transfers() { return this.#transfers; }
  get message() { return this.#message; }
  get error() { return this.#error; }
  get about() { return this.#about; }
  rowStatus(entryId: string): { readonly ok: boolean; readonly text: string } | undefined {
    return this.#rows[entryId];
  }

  async #run<T>(transfer: Transfer, work: (t: Transfer) => Promise<T>, done: (r: T) => string): Promise<T | null> {
    this.#transfers = [...this.#transfers, transfer];
    this.#message = this.#error = null;
    this.#about = transfer.kind;
    try {
      const result = await work(transfer);
      this.#message = done(result);
      if (transfer.entryId) this.#rows = { ...this.#rows, [transfer.entryId]: { ok: true, text: this.#message } };
      return result;
    } catch (e) {
      this.#error = isAbortLike(e) ? `${transfer.label}: cancelled. Nothing was kept.` : `${transfer.label}: ${e instanceof Error ? e.message : String(e)}`;
      if (transfer.entryId) this.#rows = { ...this.#rows, [transfer.entryId]: { ok: false, text: this.#error } };
      return null;
    } finally {
      this.#transfers = this.#transfers.filter((t) => t !== transfer);
    }
  }

  /**
   * Imports a model folder copied from removable media. With a manifest.json the
   * files are checked against it; without one their hashes are computed and kept.
   * A transformers.js folder (config.json, onnx/…) or, for a WebLLM catalogue
   * model, an MLC folder (mlc-chat-config.json, tensor-cache.json, weight
   * shards, tokenizer, the model library .wasm).
   */
  importFolder(files: PickedFile[], entry?: CatalogueEntry): Promise<ModelRecord | null> {
    const root = files[0]?.path.split('/')[0] ?? 'model';
    const strip = (p: string) => (p.includes('/') ? p.slice(p.indexOf('/') + 1) : p);
    const label = entry?.label ?? root;
    return this.#run(
      new Transfer(`Import ${label}`, 'import'),
      async (t) => {
        const byPath = new Map(files.map((f) => [strip(f.path), f.file]));
        const mlc = byPath.has(MLC_CONFIG);
        if (entry) {
          // The catalogue says what the entry loads: a missing or misplaced file is named now, not at load time.
          const index = byPath.get('tensor-cache.json') ?? byPath.get('ndarray-cache.json');
          const problems = checkModelFolder(entry, byPath.keys(), index ? mlcShardPaths(await index.text()) : null);
          const first = problems[0];
          if (first) throw new InvalidInputError(`"${root}": ${first.message}${problems.length > 1 ? ` (${problems.length - 1} more problem${problems.length > 2 ? 's' : ''} after this one)` : ''}`, { file: first.file });
        } else if (mlc) {
          throw new InvalidInputError(`"${root}" is a WebLLM (MLC) model folder: choose which WebLLM catalogue model it is before importing.`, { file: MLC_CONFIG });
        }
        const config = byPath.get(mlc ? MLC_CONFIG : 'config.json');
        if (!config) throw new InvalidInputError(`"${root}" has no config.json at its top: choose the model's own folder.`, { file: root });
        const modelType = mlc ? mlcModelType(await config.text()) : describeModelConfig(await config.text()).modelType;
        const libs = mlc ? [...byPath.keys()].filter((p) => p.endsWith('.wasm')) : [];
        if (mlc && libs.length !== 1) {
          throw new InvalidInputError(`"${root}" must hold exactly one model library (.wasm) built for this WebLLM version; it holds ${libs.length}.`, { file: root });
        }
        const manifestFile = byPath.get(MODEL_MANIFEST);
        const manifest = manifestFile ? parseModelManifest(JSON.parse(await manifestFile.text())) : null;
        const listed = manifest ? manifest.files.map((f) => f.path) : [...byPath.keys()].filter((p) => p !== MODEL_MANIFEST);
        const missing = listed.filter((p) => !byPath.has(p));
        if (missing.length) throw new InvalidInputError(`The folder lacks ${missing.length} file(s) its manifest lists, e.g. ${missing[0]}.`, { file: MODEL_MANIFEST });
        const id = entry ? entry.id : `imported-${slug(root)}`;
        const total = listed.reduce((n, p) => n + byPath.get(p)!.size, 0);
        t.start(total);
        const recorded: ModelManifestFile[] = [];
        try {
          for (const path of listed) {
            const blob = byPath.get(path)!;
            t.setFile(path);
            const before = t.done;
            const sha256 = await hashWorker.api.sha256({ blob }, { signal: t.controller.signal, onProgress: (p) => t.advance(before + p.done - t.done) });
            const expected = manifest?.files.find((f) => f.path === path);
            if (expected && (expected.sha256 !== sha256 || expected.bytes !== blob.size)) {
              throw new InvalidInputError(`${path} does not match its manifest (the copy is damaged or was changed): expected SHA-256 ${expected.sha256.slice(0, 12)}…, got ${sha256.slice(0, 12)}…`, { file: path });
            }
            throwIfAborted(t.controller.signal);
            // Kept (and recorded, so "Verify" finds it) where the runtime reads it.
            const stored = mlc && entry ? webllmPath(entry, path) : path;
            await putModelFile(id, stored, blob);
            recorded.push({ path: stored, bytes: blob.size, sha256 });
          }
          if (manifestFile) await putModelFile(id, MODEL_MANIFEST, manifestFile);
        } catch (e) {
          await deleteModelFiles(id);
          throw e;
        }
        if (mlc && entry) {
          // From now on WebLLM loads it from this browser's own storage (the service worker serves it offline).
          await rememberWebLlmModel({ entryId: entry.id, weightsBaseUrl: modelLocation(id), modelLibUrl: new URL(webllmPath(entry, libs[0]!), modelLocation(id)).href });
        }
        const record: ModelRecord = {
          id,
          runtime: mlc ? 'webllm' : 'transformers',
          modelId: entry?.modelId ?? `local/${slug(root)}`,
          label: entry?.label ?? `${root} (${modelType}, imported)`,
          sizeBytes: total,
          files: recorded.map((f) => ({ name: f.path, bytes: f.bytes, sha256: f.sha256 })),
          source: 'imported',
          addedAt: Date.now(),
        };
        await (await repos()).models.put(record);
        if (total > 1024 * 1024) void persistence.request();
        return record;
      },
      (r) => `Imported ${r.label}: ${r.files.length} files, each hashed and stored on this device.`,
    );
  }

  /** Downloads a catalogue model from the on-prem mirror, which must serve `<modelId>/manifest.json`. */
  download(entry: CatalogueEntry, mirrorBase: string): Promise<ModelRecord | null> {
    return this.#run(
      new Transfer(`Download ${entry.label}`, 'download', entry.id),
      async (t) => {
        const base = new URL(`${entry.modelId}/`, mirrorBase.endsWith('/') ? mirrorBase : `${mirrorBase}/`).href;
        const signal = t.controller.signal;
        const res = await fetch(new URL(MODEL_MANIFEST, base), { signal });
        if (!res.ok) throw new InvalidInputError(`The mirror has no ${MODEL_MANIFEST} for ${entry.modelId} (${res.status}). Create one with "neuroeval model-manifest <folder>".`, { file: `${base}${MODEL_MANIFEST}` });
        const manifest = parseModelManifest(await res.json(), `${base}${MODEL_MANIFEST}`);
        t.start(manifest.files.reduce((n, f) => n + f.bytes, 0));
        try {
          for (const f of manifest.files) {
            t.setFile(f.path);
            const blob = await fetchWithProgress(new URL(f.path, base).href, signal, (n) => t.advance(n));
            const sha256 = await hashWorker.api.sha256({ blob }, { signal });
            if (sha256 !== f.sha256) throw new InvalidInputError(`${f.path} arrived damaged: its SHA-256 does not match the mirror's manifest.`, { file: f.path });
            await putModelFile(entry.id, f.path, blob);
          }
        } catch (e) {
          await deleteModelFiles(entry.id);
          throw e;
        }
        return saveCatalogueRecord(entry, manifest.files, 'catalogue');
      },
      (r) => `Downloaded ${r.label} (${r.files.length} files, hashes checked).`,
    );
  }

  /**
   * Downloads a catalogue model from its public host (the user allowed that
   * host first): exactly the files the catalogue lists, at its revision, each
   * checked against the listed size and SHA-256 where known and hashed for
   * the record. Only these public files are requested; no case data, image
   * or answer is ever sent.
   */
  downloadFromHost(entry: CatalogueEntry, host: string): Promise<ModelRecord | null> {
    const source = entry.source;
    return this.#run(
      new Transfer(`Download ${entry.label} from ${new URL(host).host}`, 'download', entry.id),
      async (t) => {
        if (!source) throw new InvalidInputError(`${entry.label} has no file list in the catalogue; import its folder instead.`, { field: 'source' });
        const signal = t.controller.signal;
        // The catalogue's size estimate when not every file's size is listed.
        t.start(source.files.every((f) => f.bytes !== undefined) ? source.files.reduce((n, f) => n + f.bytes!, 0) : entry.downloadBytes);
        const recorded: ModelManifestFile[] = [];
        try {
          for (const f of source.files) {
            t.setFile(f.path);
            const url = sourceFileUrl(source, f.path, host);
            const blob = await fetchWithProgress(url, signal, (n) => t.advance(n), entry);
            if (f.bytes !== undefined && blob.size !== f.bytes) {
              throw new InvalidInputError(`${f.path}: ${blob.size} bytes arrived, the catalogue lists ${f.bytes}. The host may serve another revision; nothing was kept.`, { file: f.path });
            }
            const sha256 = await hashWorker.api.sha256({ blob }, { signal });
            if (f.sha256 !== undefined && sha256 !== f.sha256) throw new InvalidInputError(`${f.path} arrived damaged: its SHA-256 does not match the catalogue.`, { file: f.path });
            throwIfAborted(signal);
            await putModelFile(entry.id, f.path, blob);
            recorded.push({ path: f.path, bytes: blob.size, sha256 });
          }
        } catch (e) {
          await deleteModelFiles(entry.id);
          throw e;
        }
        return saveCatalogueRecord(entry, recorded, 'public host');
      },
      (r) => `Downloaded ${r.label} from ${new URL(host).host}: ${r.files.length} files, each hashed; it now loads with the network off.`,
    );
  }

  /** Re-hashes every stored file and compares with the record. */
  verify(model: ModelRecord): Promise<string[] | null> {
    return this.#run(
      new Transfer(`Verify ${model.label}`, 'verify'),
      async (t) => {
        t.start(model.sizeBytes);
        const bad: string[] = [];
        for (const f of model.files) {
          t.setFile(f.name);
          const blob = await readModelFile(model.id, f.name);
          if (!blob) {
            bad.push(`${f.name} is missing`);
            continue;
          }
          const before = t.done;
          const sha = await hashWorker.api.sha256({ blob }, { signal: t.controller.signal, onProgress: (p) => t.advance(before + p.done - t.done) });
          if (sha !== f.sha256) bad.push(`${f.name} has changed`);
        }
        return bad;
      },
      (bad) => (bad.length === 0 ? `${model.label}: all ${model.files.length} files match their recorded SHA-256.` : `${model.label}: ${bad.join('; ')}. Delete and import it again.`),
    );
  }

  async remove(model: ModelRecord): Promise<void> {
    await deleteModelFiles(model.id);
    if (model.runtime === 'webllm') await forgetWebLlmModel(modelLocation(model.id));
    await (await repos()).models.delete(model.id);
    this.#error = null;
    this.#about = 'delete';
    this.#message = `Deleted ${model.label} from this device.`;
  }
}

/** Fetches a file, reporting bytes as they arrive. */
async function fetchWithProgress(url: string, signal: AbortSignal, onBytes: (n: number) => void, entry?: CatalogueEntry): Promise<Blob> {
  let res: Response;
  try {
    res = await fetch(url, { signal });
  } catch (e) {
    if (signal.aborted) throw new AbortedError();
    // A CSP refusal and an unreachable host look the same to a page: say both.
    throw new InvalidInputError(`${url} could not be reached (${e instanceof Error ? e.message : String(e)}): check the network, and that the host is allowed in Settings → Network policy.`, { file: url });
  }
  if ((res.status === 401 || res.status === 403) && entry) {
    throw new InvalidInputError(`${url} answered ${res.status}: ${entry.label} is gated.${entry.gated ? ` ${entry.gated}` : ''} Accept the terms on its model page, or fetch it with "neuroeval model-fetch ${entry.id} --token …" and import the folder.`, { file: url });
  }
  if (!res.ok || !res.body) throw new InvalidInputError(`${url} answered ${res.status}.`, { file: url });
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  for (;;) {
    if (signal.aborted) throw new AbortedError();
    const { value, done } = await reader.read();
    if (done) break;
    parts.push(value);
    onBytes(value.length);
  }
  return new Blob(parts as BlobPart[]);
}

export const modelManager = new ModelManager();

/** Stores the record of a catalogue model whose files are in place (and asks for persistent storage: it is large). */
async function saveCatalogueRecord(entry: CatalogueEntry, files: readonly ModelManifestFile[], source: ModelRecord['source']): Promise<ModelRecord> {
  const record: ModelRecord = {
    id: entry.id,
    runtime: entry.runtime,
    modelId: entry.modelId,
    label: entry.label,
    sizeBytes: files.reduce((n, f) => n + f.bytes, 0),
    files: files.map((f) => ({ name: f.path, bytes: f.bytes, sha256: f.sha256 })),
    source,
    addedAt: Date.now(),
  };
  await (await repos()).models.put(record);
  void persistence.request();
  return record;
}

/** The model type an MLC folder declares. */
function mlcModelType(text: string): string {
  try {
    const c = JSON.parse(text) as { model_type?: unknown };
    if (typeof c.model_type === 'string') return c.model_type;
  } catch {
    throw new InvalidInputError(`${MLC_CONFIG} is not valid JSON.`, { file: MLC_CONFIG });
  }
  throw new InvalidInputError(`${MLC_CONFIG} has no "model_type": is this a WebLLM model folder?`, { file: MLC_CONFIG, field: 'model_type' });
}

/**
 * Where a file of an imported MLC folder is kept: the layout WebLLM reads,
 * `<base>/<model id>/resolve/main/<file>` for weights and config, and
 * `<base>/lib/<file>` for the model library.
 */
function webllmPath(entry: CatalogueEntry, path: string): string {
  return path.endsWith('.wasm') ? `lib/${path.split('/').pop()}` : `${entry.modelId}/resolve/main/${path}`;
}
