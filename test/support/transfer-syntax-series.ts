/**
 * A small synthetic MR-like series and its conversion into every compressed
 * transfer syntax by independent encoders: Debian's dcmtk, GDCM and OpenJPH
 * tools. The tools are required, not optional: a missing one fails the test
 * with the command that installs it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDicom } from './fixtures-imaging/index.ts';

export interface SeriesSpec {
  readonly bitsAllocated: 8 | 16;
  readonly bitsStored: number;
  readonly signed: boolean;
  readonly slices: number;
  readonly rows: number;
  readonly columns: number;
}

/** Debian package of each tool the conversions use. */
const TOOLS: Record<string, string> = {
  gdcmconv: 'libgdcm-tools',
  dcmconv: 'dcmtk',
  dcmcjpeg: 'dcmtk',
  dcmcjpls: 'dcmtk',
  dcmcrle: 'dcmtk',
  dcmdjpeg: 'dcmtk',
  dcmdjpls: 'dcmtk',
  ojph_compress: 'openjph-tools',
  ojph_expand: 'openjph-tools',
};

/** Throws, naming the packages to install, unless every conversion tool is on the PATH. */
export function requireConversionTools(): void {
  const missing = Object.keys(TOOLS).filter((tool) => (spawnSync(tool, ['--version'], { stdio: 'ignore' }).error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT');
  if (missing.length) {
    const packages = [...new Set(missing.map((t) => TOOLS[t]))].join(' ');
    throw new Error(`These transfer-syntax tests need ${missing.join(', ')} (Debian: apt-get install -y ${packages}); .ci/run installs them.`);
  }
}

/** Deterministic hash noise in [0, 1): the same series every run, and texture no coder can predict away. */
function noise(slice: number, r: number, c: number): number {
  let h = (slice * 73856093) ^ (r * 19349663) ^ (c * 83492791);
  h = Math.imul(h ^ (h >>> 13), 0x5bd1e995);
  return ((h ^ (h >>> 15)) >>> 0) / 2 ** 32;
}

/**
 * Stored value of a head-like slice: a bright ellipse with a darker
 * "ventricle", smooth shading and noise, on a noisy background. Uses most of
 * the stored range (and the sign, when signed) so every bit is exercised.
 */
export function seriesValue(spec: SeriesSpec, slice: number, r: number, c: number): number {
  const max = spec.signed ? 2 ** (spec.bitsStored - 1) - 1 : 2 ** spec.bitsStored - 1;
  const min = spec.signed ? -(2 ** (spec.bitsStored - 1)) : 0;
  const y = (r - spec.rows / 2) / (spec.rows * 0.42);
  const x = (c - spec.columns / 2) / (spec.columns * 0.36);
  const inside = x * x + y * y < 1;
  const ventricle = (x * 2.5) ** 2 + ((y + 0.1) * 4) ** 2 < 1;
  let level = 0.04 + 0.05 * noise(slice, r, c);
  if (inside) level = ventricle ? 0.25 : 0.55 + 0.3 * Math.cos(x * 2 + slice * 0.4) * Math.sin(y * 3) + 0.12 * noise(slice, r, c);
  return Math.round(min + Math.min(1, Math.max(0, level)) * (max - min));
}

/** Writes the uncompressed (Explicit VR Little Endian) series; returns the slice files in order. */
export function writeSourceSeries(dir: string, spec: SeriesSpec): string[] {
  return Array.from({ length: spec.slices }, (_, s) => {
    const path = join(dir, `slice${s}.dcm`);
    writeFileSync(path, makeDicom({ ...encodingOptions(spec), modality: 'MR', pixel: (_f, r, c) => seriesValue(spec, s, r, c) }));
    return path;
  });
}

function encodingOptions(spec: SeriesSpec) {
  return { rows: spec.rows, columns: spec.columns, bitsAllocated: spec.bitsAllocated, bitsStored: spec.bitsStored, signed: spec.signed };
}

/** Runs a converter `tool args… input output` and returns the output's bytes. */
export function convertWith(tool: string, args: readonly string[], input: string, output: string): Uint8Array {
  execFileSync(tool, [...args, input, output], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Uint8Array(readFileSync(output));
}

/**
 * HTJ2K, which neither dcmtk nor GDCM writes yet: OpenJPH's `ojph_compress`
 * encodes each slice (from a PGM) and the codestream is wrapped into DICOM
 * with the repository's own writer.
 */
export function htj2kSlice(dir: string, spec: SeriesSpec, slice: number, lossless: boolean): Uint8Array {
  if (spec.signed) throw new Error('PGM input is unsigned: HTJ2K slices are made from unsigned series only.');
  const pgm = join(dir, `slice${slice}.pgm`);
  const j2c = join(dir, `slice${slice}.j2c`);
  const wide = spec.bitsAllocated === 16;
  const header = new TextEncoder().encode(`P5\n${spec.columns} ${spec.rows}\n${2 ** spec.bitsStored - 1}\n`);
  const body = new Uint8Array(spec.rows * spec.columns * (wide ? 2 : 1));
  const view = new DataView(body.buffer);
  for (let r = 0; r < spec.rows; r++) {
    for (let c = 0; c < spec.columns; c++) {
      const v = seriesValue(spec, slice, r, c);
      // PGM stores 16-bit samples most significant byte first.
      if (wide) view.setUint16((r * spec.columns + c) * 2, v, false);
      else view.setUint8(r * spec.columns + c, v);
    }
  }
  writeFileSync(pgm, Buffer.concat([header, body]));
  execFileSync('ojph_compress', ['-i', pgm, '-o', j2c, ...(lossless ? ['-reversible', 'true'] : ['-qstep', '0.002'])], { stdio: ['ignore', 'ignore', 'pipe'] });
  const uid = lossless ? '1.2.840.10008.1.2.4.201' : '1.2.840.10008.1.2.4.203';
  return makeDicom({ ...encodingOptions(spec), modality: 'MR', encapsulated: { uid, frames: [new Uint8Array(readFileSync(j2c))] } });
}

/** Samples of an HTJ2K slice as OpenJPH's own `ojph_expand` decodes them: the reference for lossy HTJ2K. */
export function htj2kReference(dir: string, spec: SeriesSpec, slice: number): Uint16Array {
  const out = join(dir, `slice${slice}.expanded.pgm`);
  execFileSync('ojph_expand', ['-i', join(dir, `slice${slice}.j2c`), '-o', out], { stdio: ['ignore', 'ignore', 'pipe'] });
  const bytes = readFileSync(out);
  const samples = new Uint16Array(spec.rows * spec.columns);
  const start = bytes.length - samples.length * 2;
  for (let i = 0; i < samples.length; i++) samples[i] = bytes.readUInt16BE(start + i * 2);
  return samples;
}
