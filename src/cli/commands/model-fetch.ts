import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, openAsBlob, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { CATALOGUE, DEFAULT_MODEL_HOST, sourceFileUrl, type Catalogue, type CatalogueEntry, type ModelSourceFile } from '../../core/engines/catalogue.ts';
import { hashBlob } from '../../core/hash/hash-blob.ts';
import { MODEL_MANIFEST, type ModelManifest } from '../../core/models/manifest.ts';
import { formatBytes } from '../../core/text/units.ts';
import type { CliCommand, CliIo } from '../command.ts';

/**
 * `neuroeval model-fetch <catalogue-id> --out <folder>`: on a machine with
 * internet, downloads exactly the files the app loads for a catalogue model
 * at the catalogue's revision, checks each one's size and SHA-256 where the
 * catalogue records them, and writes manifest.json, so the folder can be
 * carried (USB stick) to an air-gapped machine and imported there.
 *
 * Files already in the folder with the right size (and hash) are kept, so an
 * interrupted fetch resumes. A token for gated models is read from
 * `--token` or `HF_TOKEN` and sent only to the host; it is never written.
 */
export const modelFetchCommand: CliCommand = {
  name: 'model-fetch',
  usage: 'model-fetch <catalogue-id> --out <folder> [--host <url>] [--token <t>] [--catalogue <file>]',
  summary: "Download a catalogue model's files at its revision, verified, with manifest.json, for a USB stick",
  help: [
    'Usage: neuroeval model-fetch <catalogue-id> --out <folder> [options]',
    '',
    'Downloads exactly the files NeuroEval loads for a catalogue model, at the',
    "catalogue's revision, checks their sizes and SHA-256, and writes manifest.json.",
    'Copy the folder to the air-gapped machine and import it on the Models page.',
    '',
    '  --out <folder>      Where to put the model (created if needed)',
    "  --host <url>        The model host (default https://huggingface.co)",
    '  --token <token>     Access token for gated models (or set HF_TOKEN); never written to disk',
    '  --catalogue <file>  Use this catalogue JSON instead of the built-in one',
    '  --list              List the catalogue entries that have files to fetch',
  ].join('\n'),
  async run(args, io) {
    const opt = (name: string) => {
      const i = args.indexOf(name);
      return i >= 0 ? args[i + 1] : undefined;
    };
    let catalogue: Pick<Catalogue, 'models'> = CATALOGUE;
    const catalogueFile = opt('--catalogue');
    if (catalogueFile) {
      try {
        catalogue = JSON.parse(readFileSync(catalogueFile, 'utf8')) as Catalogue;
      } catch (error) {
        io.err.write(`neuroeval model-fetch: ${catalogueFile}: not a readable catalogue (${error instanceof Error ? error.message : String(error)})\n`);
        return 2;
      }
    }
    const fetchable = catalogue.models.filter((m) => m.source && !m.bundled);
    if (args.includes('--list')) {
      for (const m of fetchable) io.out.write(`${m.id}\t${m.label}\t${m.source!.repo}@${m.source!.revision}${m.gated ? '\t(gated)' : ''}\n`);
      return 0;
    }
    const valueOf = new Set(['--out', '--host', '--token', '--catalogue'].map((o) => args.indexOf(o) + 1).filter((i) => i > 0));
    const id = args.find((a, i) => !a.startsWith('--') && !valueOf.has(i));
    const out = opt('--out');
    if (!id || !out) {
      io.err.write('neuroeval model-fetch: give a catalogue id and --out <folder> (see --list)\n');
      return 2;
    }
    const entry = catalogue.models.find((m) => m.id === id);
    if (!entry) {
      io.err.write(`neuroeval model-fetch: "${id}" is not in the catalogue. Models with files to fetch: ${fetchable.map((m) => m.id).join(', ') || 'none'}\n`);
      return 2;
    }
    if (!entry.source) {
      io.err.write(`neuroeval model-fetch: ${entry.label} has no file list in the catalogue${entry.bundled ? ' (it ships with the app)' : ''}.\n`);
      return 2;
    }
    const token = opt('--token') ?? process.env.HF_TOKEN;
    try {
      const manifest = await fetchModel(entry, resolve(out), { host: opt('--host') ?? entry.source.host ?? DEFAULT_MODEL_HOST, ...(token ? { token } : {}), io });
      io.out.write(`Fetched ${entry.label} (${entry.source.repo} at ${entry.source.revision}): ${manifest.files.length} files, ${formatBytes(manifest.files.reduce((n, f) => n + f.bytes, 0))}, into ${resolve(out)}\n`);
      return 0;
    } catch (error) {
      io.err.write(`neuroeval model-fetch: ${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
  },
};

interface FetchOptions {
  readonly host: string;
  readonly token?: string;
  readonly io: CliIo;
}

/** Downloads every file of `entry` into `folder`, verified; writes and returns the manifest. */
async function fetchModel(entry: CatalogueEntry, folder: string, options: FetchOptions): Promise<ModelManifest> {
  const source = entry.source!;
  mkdirSync(folder, { recursive: true });
  const files: ModelManifest['files'][number][] = [];
  const total = source.files.reduce((n, f) => n + (f.bytes ?? 0), 0);
  let done = 0;
  for (const file of source.files) {
    const target = join(folder, ...file.path.split('/'));
    if (!target.startsWith(folder)) throw new Error(`The catalogue lists a file outside the model folder: ${file.path}`);
    const kept = await existingMatch(target, file);
    const got = kept ?? (await download(sourceFileUrl(source, file.path, options.host), target, file, entry, options, (n) => progress(options.io, file.path, done + n, total)));
    done += got.bytes;
    files.push({ path: file.path, bytes: got.bytes, sha256: got.sha256 });
  }
  const manifest: ModelManifest = { files, note: `${entry.label}: ${source.repo} at revision ${source.revision}, fetched from ${options.host}.` };
  writeFileSync(join(folder, MODEL_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/**
 * A file already in the folder that matches the catalogue (size, and hash when
 * known): kept as is. Hashed as a stream, as `model-manifest` does: weight files
 * run to gigabytes.
 */
async function existingMatch(path: string, file: ModelSourceFile): Promise<{ bytes: number; sha256: string } | null> {
  if (!existsSync(path) || (file.bytes === undefined && file.sha256 === undefined)) return null;
  const bytes = statSync(path).size;
  if (file.bytes !== undefined && bytes !== file.bytes) return null;
  const sha256 = await hashBlob(await openAsBlob(path));
  if (file.sha256 !== undefined && sha256 !== file.sha256) return null;
  return { bytes, sha256 };
}

async function download(
  url: string,
  target: string,
  file: ModelSourceFile,
  entry: CatalogueEntry,
  options: FetchOptions,
  onBytes: (n: number) => void,
): Promise<{ bytes: number; sha256: string }> {
  let res: Response;
  try {
    res = await fetch(url, { headers: options.token ? { Authorization: `Bearer ${options.token}` } : {}, redirect: 'follow' });
  } catch (error) {
    throw new Error(`${file.path}: ${url} could not be reached (${error instanceof Error ? error.message : String(error)}). Check the network or --host.`, { cause: error });
  }
  if (res.status === 401 || res.status === 403) {
    const terms = entry.gated ? ` ${entry.label} is gated: ${entry.gated}` : '';
    throw new Error(`${file.path}: the host refused the download (${res.status}).${terms} Accept the terms on ${entry.source!.page}, then pass --token (or set HF_TOKEN).`);
  }
  if (!res.ok || !res.body) throw new Error(`${file.path}: ${url} answered ${res.status} ${res.statusText}.`);
  mkdirSync(dirname(target), { recursive: true });
  const partial = `${target}.part`;
  const hash = createHash('sha256');
  let bytes = 0;
  const body = Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
  body.on('data', (chunk: Buffer) => {
    hash.update(chunk);
    bytes += chunk.length;
    onBytes(bytes);
  });
  try {
    await pipeline(body, createWriteStream(partial));
  } catch (error) {
    rmSync(partial, { force: true });
    throw new Error(`${file.path}: the download broke off after ${formatBytes(bytes)} (${error instanceof Error ? error.message : String(error)}). Run the command again to resume.`, { cause: error });
  }
  const sha256 = hash.digest('hex');
  if (file.bytes !== undefined && bytes !== file.bytes) {
    rmSync(partial, { force: true });
    throw new Error(`${file.path}: got ${bytes} bytes, the catalogue says ${file.bytes}. The host may serve another revision; nothing was kept.`);
  }
  if (file.sha256 !== undefined && sha256 !== file.sha256) {
    rmSync(partial, { force: true });
    throw new Error(`${file.path}: SHA-256 ${sha256} does not match the catalogue's ${file.sha256}; nothing was kept.`);
  }
  renameSync(partial, target);
  return { bytes, sha256 };
}

let lastReport = 0;
function progress(io: CliIo, path: string, done: number, total: number): void {
  const now = Date.now();
  if (now - lastReport < 1000) return;
  lastReport = now;
  io.err.write(`  ${path}: ${formatBytes(done)}${total ? ` of ${formatBytes(total)}` : ''}\n`);
}
