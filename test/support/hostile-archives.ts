/**
 * Hostile benchmark archives and files, crafted small: archives that declare
 * or inflate to gigabytes (a few megabytes each on disk), archives whose
 * headers lie, images and volumes whose headers lie, a bundle whose declared
 * image hash does not match, and NeuroVLM-Bench indexes with labels outside
 * the benchmark's label set. Made fresh at test time (and by
 * scripts/make-hostile-archives.ts for a manual look); never committed.
 */
import { strToU8, zipSync } from 'fflate';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { crc32 } from '../../src/core/hash/crc32.ts';
import { sha256Hex } from '../../src/core/hash/sha256.ts';
import { encodePng } from '../../src/core/imaging/png-encode.ts';
import { makeNifti } from './fixtures-imaging/index.ts';
import { deflated, forgeZip, repeatedDeflate, stored } from './zip-forge.ts';

/** Files of one hostile input, by path; `input` is what to import (an archive, or a folder ending in "/"). */
export interface HostileInput {
  readonly input: string;
  readonly files: ReadonlyMap<string, Uint8Array>;
}

const MiB = 1024 ** 2;

function png(seed: number, size = 8): Uint8Array {
  return encodePng(Uint8Array.from({ length: size * size }, (_, i) => (i * 31 + seed * 17) & 0xff), size, size);
}

function manifest(id: string): string {
  return JSON.stringify({ format: 'neuroeval-bundle', formatVersion: 1, id, name: `Hostile ${id}`, version: '1', license: 'CC0-1.0' });
}

function caseLine(id: string, image: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ id, taskFamily: 'classification', images: [{ path: image, ...extra }], questions: [{ id: 'q1', text: 'What does this scan show?' }] });
}

/** A small valid bundle's entries, to which each hostile archive adds its trick. */
function bundleEntries(id: string) {
  return [stored('manifest.json', manifest(id)), stored('cases.jsonl', `${caseLine('c1', 'images/a.png')}\n`), stored('images/a.png', png(1))];
}

function single(name: string, bytes: Uint8Array): HostileInput {
  return { input: name, files: new Map([[name, bytes]]) };
}

/** Deterministic noise, so compression ratios are the same on every run. */
function noise(length: number, seed: number): Uint8Array {
  let x = seed >>> 0 || 1;
  return Uint8Array.from({ length }, () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x & 0xff;
  });
}

/** 1 MiB that deflates about 440:1: zeros with a sprinkle of noise. */
function block440(): Uint8Array {
  const block = new Uint8Array(MiB);
  block.set(noise(1_140, 7), 0);
  return block;
}

/** A bundle ZIP with one extra asset whose packed size is declared 0 and unpacked size 1 GiB (the "1 KB archive, 1 GB asset"). */
export function zeroCompressedSize(): HostileInput {
  const asset = { name: 'assets/big.bin', data: new Uint8Array(0), method: 8 as const, crc: 0, size: 1024 ** 3, compressedSize: 0 };
  return single('zero-size.zip', forgeZip([...bundleEntries('zero-size'), asset]));
}

/** Four honest entries of 1000 MiB each at about 440:1 (about 9 MB on disk): under the old 1,000:1 rule, 4 GB in memory. */
export function ratioBomb(): HostileInput {
  const stream = repeatedDeflate(block440(), 1000);
  const entries = [0, 1, 2, 3].map((i) => ({ name: `assets/part${i}.bin`, method: 8 as const, ...stream }));
  return single('ratio-bomb.zip', forgeZip([...bundleEntries('ratio-bomb'), ...entries]));
}

/** The same 1000 MiB stream declared as 1 MiB: only inflating reveals it. */
export function lyingBomb(): HostileInput {
  const stream = repeatedDeflate(block440(), 1000);
  return single('lying-bomb.zip', forgeZip([...bundleEntries('lying-bomb'), { name: 'assets/small.bin', method: 8, ...stream, size: MiB }]));
}

/** cases.jsonl declared as 10 bytes while it holds 100,000 (it used to be cut to 10 without a word). */
export function understatedEntry(): HostileInput {
  const lines = Array.from({ length: 1_000 }, (_, i) => caseLine(`c${i}`, 'images/a.png')).join('\n');
  const text = strToU8(`${lines}\n`.padEnd(100_000, ' ').slice(0, 100_000));
  const d = deflated(text);
  const entries = [stored('manifest.json', manifest('understated')), { name: 'cases.jsonl', method: 8 as const, ...d, size: 10 }, stored('images/a.png', png(1))];
  return single('understated.zip', forgeZip(entries));
}

/** Forty 15 MiB entries of zeros, each under the per-file ratio allowance, 600 MiB from 600 KB together. */
export function swarmBomb(): HostileInput {
  const stream = repeatedDeflate(new Uint8Array(MiB), 15);
  const entries = Array.from({ length: 40 }, (_, i) => ({ name: `assets/zeros${i}.bin`, method: 8 as const, ...stream }));
  return single('swarm.zip', forgeZip([...bundleEntries('swarm'), ...entries]));
}

/** Ten names pointing at one 15 MiB stream of zeros (overlapping entries). */
export function overlapBomb(): HostileInput {
  const stream = repeatedDeflate(new Uint8Array(MiB), 15);
  const entries = Array.from({ length: 10 }, (_, i) => ({ name: `assets/copy${i}.bin`, method: 8 as const, ...stream, ...(i > 0 ? { sameDataAs: 'assets/copy0.bin' } : {}) }));
  return single('overlap.zip', forgeZip([...bundleEntries('overlap'), ...entries]));
}

/** A valid bundle that also carries a 300 KB file outside images/: stored, so the preview must count it. */
export function bundleWithAsset(): HostileInput {
  return single('with-asset.zip', zipSync({ 'manifest.json': strToU8(manifest('with-asset')), 'cases.jsonl': strToU8(`${caseLine('c1', 'images/a.png')}\n`), 'images/a.png': png(1), 'notes/readme.bin': noise(300_000, 3) }));
}

/** An 8 × 8 PNG whose header (CRC fixed up) says 10000 × 10000. */
export function lyingPng(): Uint8Array {
  const bytes = png(2);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  view.setUint32(16, 10_000);
  view.setUint32(20, 10_000);
  view.setUint32(29, crc32(bytes.subarray(12, 29)));
  return bytes;
}

/** A bundle whose only image is the lying PNG. */
export function pngLiar(): HostileInput {
  return single('png-liar.zip', zipSync({ 'manifest.json': strToU8(manifest('png-liar')), 'cases.jsonl': strToU8(`${caseLine('c1', 'images/liar.png')}\n`), 'images/liar.png': lyingPng() }));
}

/** A bundle whose second case declares the SHA-256 of an image other than the one it holds. */
export function shaMismatch(): HostileInput {
  const cases = [caseLine('c1', 'images/a.png', { sha256: sha256Hex(png(1)) }), caseLine('c2', 'images/b.png', { sha256: sha256Hex(png(3)) })];
  return single('sha-mismatch.zip', zipSync({ 'manifest.json': strToU8(manifest('sha-mismatch')), 'cases.jsonl': strToU8(`${cases.join('\n')}\n`), 'images/a.png': png(1), 'images/b.png': png(4) }));
}

/** A NIfTI-1 volume (8 × 8 × 4) whose header says its second dimension is -8. */
export function negativeNifti(): Uint8Array {
  const bytes = makeNifti({ dims: [8, 8, 4], datatype: 'uint8', value: (x, y, z) => (x + y + z) * 8 });
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).setInt16(40 + 2 * 2, -8, true);
  return bytes;
}

/** A bundle whose only image is that NIfTI. */
export function niftiNegative(): HostileInput {
  return single('nifti-negative.zip', zipSync({ 'manifest.json': strToU8(manifest('nifti-negative')), 'cases.jsonl': strToU8(`${caseLine('c1', 'images/brain.nii')}\n`), 'images/brain.nii': negativeNifti() }));
}

const NVB_HEADER = 'dataset,file_path,class,original_class,subclass,modality,modality_subtype,plane';

function nvbFolder(folder: string, rows: readonly string[]): HostileInput {
  const files = new Map<string, Uint8Array>([[`${folder}/subset_hostile.csv`, strToU8(`${[NVB_HEADER, ...rows].join('\n')}\n`)]]);
  rows.forEach((row, i) => files.set(`${folder}/${row.split(',')[1]!}`, png(10 + i, 16)));
  return { input: `${folder}/`, files };
}

/** A NeuroVLM-Bench index whose labels fall outside the benchmark's set (lines 3 and 4), otherwise valid. */
export function nvbOffLabels(): HostileInput {
  return nvbFolder('nvb-off-labels', [
    'images-17,img/a.png,tumor,Glioma T2,glioma,MRI,T2,axial',
    'sclerosis,img/b.png,normal,Normal,,MRI,T1,diagonal',
    'stroke,img/c.png,stroke,Stroke,glioma,CT,,axial',
  ]);
}

/** A NeuroVLM-Bench index with a spreadsheet formula as a class (line 3). */
export function nvbFormula(): HostileInput {
  return nvbFolder('nvb-formula', ['images-17,img/a.png,tumor,Glioma T2,glioma,MRI,T2,axial', 'images-17,img/b.png,"=HYPERLINK(""x"")",Glioma T2,,MRI,T2,axial']);
}

/** Writes one hostile input under `dir` and returns the path to import (a file, or a folder). */
export function writeHostile(input: HostileInput, dir: string): string {
  for (const [path, bytes] of input.files) {
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, bytes);
  }
  return join(dir, input.input);
}

/** Every hostile input, by a short name (for scripts/make-hostile-archives.ts). */
export const HOSTILE_ARCHIVES: Readonly<Record<string, () => HostileInput>> = {
  'zero-compressed-size': zeroCompressedSize,
  'ratio-bomb': ratioBomb,
  'lying-bomb': lyingBomb,
  'understated-entry': understatedEntry,
  'swarm-bomb': swarmBomb,
  'overlap-bomb': overlapBomb,
  'bundle-with-asset': bundleWithAsset,
  'png-liar': pngLiar,
  'sha-mismatch': shaMismatch,
  'nifti-negative': niftiNegative,
  'nvb-off-labels': nvbOffLabels,
  'nvb-formula': nvbFormula,
};
