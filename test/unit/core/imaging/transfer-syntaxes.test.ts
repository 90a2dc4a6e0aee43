/**
 * One uncompressed series, converted by Debian's dcmtk, GDCM and OpenJPH
 * tools into every transfer syntax we decode, imported through the same
 * pipeline the app and the CLI use. Lossless syntaxes must store exactly the
 * original samples. Lossy ones must store what the encoder's own project
 * decodes from the same file (±1 for rounding in the inverse transform) and
 * stay within the loss the encoder was asked for.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareImport } from '../../../../src/core/importers/import-pipeline.ts';
import { memoryFile } from '../../../../src/core/bundle/importer.ts';
import { decodeVolume } from '../../../../src/core/imaging/dicom/serialize.ts';
import { parseDicom } from '../../../../src/core/imaging/dicom/parse.ts';
import type { DicomPixelArray } from '../../../../src/core/imaging/dicom/types.ts';
import { makeTempDir, removeTempDirs } from '../../../support/temp-dir.ts';
import { convertWith, htj2kReference, htj2kSlice, requireConversionTools, type SeriesSpec, writeSourceSeries } from '../../../support/transfer-syntax-series.ts';

afterAll(removeTempDirs);

const MR16: SeriesSpec = { bitsAllocated: 16, bitsStored: 16, signed: false, slices: 3, rows: 64, columns: 48 };
/** CT-like: signed, 12 of 16 bits stored; encoders treat the sign bit differently, decoders must not. */
const CT12: SeriesSpec = { bitsAllocated: 16, bitsStored: 12, signed: true, slices: 2, rows: 40, columns: 56 };
const MR12: SeriesSpec = { ...MR16, bitsStored: 12, slices: 1 };
const MR8: SeriesSpec = { bitsAllocated: 8, bitsStored: 8, signed: false, slices: 2, rows: 48, columns: 64 };

const mapping = { id: 'case', question: 'prompt', image: 'file' };

/** Imports slice files as a generic benchmark (one case per slice) and returns each case's stored samples. */
async function importSeries(slices: readonly Uint8Array[]): Promise<{ stored: DicomPixelArray[]; errors: string[]; transferSyntax: string[] }> {
  const csv = 'case,prompt,file\n' + slices.map((_, i) => `s${i},Describe.,slice${i}.dcm\n`).join('');
  const files = [memoryFile('cases.csv', csv), ...slices.map((bytes, i) => memoryFile(`slice${i}.dcm`, bytes))];
  const preview = await prepareImport(files, { kind: 'generic', options: { mapping } });
  if (!preview.bundle) return { stored: [], errors: preview.errors.map((e) => `${e.location?.file ?? ''}: ${e.message}`), transferSyntax: [] };
  const volumes = slices.map((_, i) => {
    const asset = preview.bundle!.cases.find((c) => c.id === `s${i}`)!.images[0]!.source!.asset;
    const volume = decodeVolume(preview.bundle!.files.get(`sources/${asset}.nevol`)!);
    if (volume.kind !== 'dicom') throw new Error('expected a DICOM source');
    return volume;
  });
  return { stored: volumes.map((v) => v.data), errors: [], transferSyntax: volumes.map((v) => v.header.transferSyntaxUID) };
}

interface Series {
  readonly dir: string;
  readonly sources: string[];
  readonly original: DicomPixelArray[];
}

const made = new Map<SeriesSpec, Promise<Series>>();
/** The uncompressed series and what importing it stores: the reference for every variant. */
function source(spec: SeriesSpec): Promise<Series> {
  let pending = made.get(spec);
  if (!pending) {
    pending = (async () => {
      requireConversionTools();
      const dir = makeTempDir('syntax');
      const sources = writeSourceSeries(dir, spec);
      const imported = await importSeries(sources.map((p) => new Uint8Array(readFileSync(p))));
      expect(imported.errors).toEqual([]);
      return { dir, sources, original: imported.stored };
    })();
    made.set(spec, pending);
  }
  return pending;
}

let runs = 0;
/** Converts every slice with `tool args…`; returns the converted files' bytes. */
async function convert(spec: SeriesSpec, tool: string, args: readonly string[]): Promise<{ series: Series; files: Uint8Array[]; dir: string }> {
  const series = await source(spec);
  const dir = join(series.dir, `${tool}-${runs++}`);
  mkdirSync(dir);
  return { series, dir, files: series.sources.map((src, i) => convertWith(tool, args, src, join(dir, `slice${i}.dcm`))) };
}

function maxAbsError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
}

/** Peak signal-to-noise ratio against the full stored range, in dB. */
function psnr(spec: SeriesSpec, original: ArrayLike<number>, decoded: ArrayLike<number>): number {
  let squared = 0;
  for (let i = 0; i < original.length; i++) squared += (original[i]! - decoded[i]!) ** 2;
  const peak = 2 ** spec.bitsStored - 1;
  return squared === 0 ? Infinity : 10 * Math.log10((peak * peak) / (squared / original.length));
}

const lossless: [string, string, SeriesSpec, string, string[]][] = [
  ['Implicit VR Little Endian', '1.2.840.10008.1.2', MR16, 'dcmconv', ['+ti']],
  ['Explicit VR Big Endian', '1.2.840.10008.1.2.2', MR16, 'dcmconv', ['+tb']],
  ['Deflated Explicit VR Little Endian (dcmtk)', '1.2.840.10008.1.2.1.99', MR16, 'dcmconv', ['+td']],
  ['Deflated Explicit VR Little Endian (GDCM)', '1.2.840.10008.1.2.1.99', MR16, 'gdcmconv', ['--deflated']],
  ['JPEG Lossless SV1 (dcmtk)', '1.2.840.10008.1.2.4.70', MR16, 'dcmcjpeg', ['+e1']],
  ['JPEG Lossless SV1 (GDCM)', '1.2.840.10008.1.2.4.70', MR16, 'gdcmconv', ['--jpeg']],
  ['JPEG Lossless SV1, signed 12-bit', '1.2.840.10008.1.2.4.70', CT12, 'gdcmconv', ['--jpeg']],
  ['JPEG Lossless process 14, predictor 6', '1.2.840.10008.1.2.4.57', MR16, 'dcmcjpeg', ['+el', '+sv', '6']],
  ['JPEG-LS Lossless (dcmtk)', '1.2.840.10008.1.2.4.80', MR16, 'dcmcjpls', ['+el']],
  ['JPEG-LS Lossless (GDCM)', '1.2.840.10008.1.2.4.80', MR16, 'gdcmconv', ['--jpegls']],
  ['JPEG-LS Lossless, signed 12-bit', '1.2.840.10008.1.2.4.80', CT12, 'dcmcjpls', ['+el']],
  ['JPEG 2000 Lossless', '1.2.840.10008.1.2.4.90', MR16, 'gdcmconv', ['--j2k']],
  ['JPEG 2000 Lossless, signed 12-bit', '1.2.840.10008.1.2.4.90', CT12, 'gdcmconv', ['--j2k']],
  ['RLE Lossless (dcmtk)', '1.2.840.10008.1.2.5', MR16, 'dcmcrle', []],
  ['RLE Lossless (GDCM)', '1.2.840.10008.1.2.5', MR16, 'gdcmconv', ['--rle']],
  ['RLE Lossless, signed 12-bit', '1.2.840.10008.1.2.5', CT12, 'dcmcrle', []],
  ['RLE Lossless, 8-bit', '1.2.840.10008.1.2.5', MR8, 'gdcmconv', ['--rle']],
];

describe('lossless transfer syntaxes import pixel-identical to the uncompressed series', () => {
  it.each(lossless)('%s', async (_name, uid, spec, tool, args) => {
    const { series, files } = await convert(spec, tool, args);
    const imported = await importSeries(files);
    expect(imported.errors).toEqual([]);
    expect(imported.transferSyntax).toEqual(files.map(() => uid));
    expect(imported.stored.map((s) => s.constructor)).toEqual(series.original.map((s) => s.constructor));
    imported.stored.forEach((samples, i) => expect(maxAbsError(samples, series.original[i]!)).toBe(0));
  });

  it('HTJ2K Lossless (encoded by OpenJPH)', async () => {
    const series = await source(MR16);
    const dir = join(series.dir, 'htj2k-lossless');
    mkdirSync(dir);
    const imported = await importSeries(series.sources.map((_, s) => htj2kSlice(dir, MR16, s, true)));
    expect(imported.errors).toEqual([]);
    expect(imported.transferSyntax[0]).toBe('1.2.840.10008.1.2.4.201');
    imported.stored.forEach((samples, i) => expect(maxAbsError(samples, series.original[i]!)).toBe(0));
  });
});

/** A lossy variant and the independent decoder (same project as the encoder) that gives the reference samples. */
const lossy: [string, string, SeriesSpec, string, string[], string, string[], number][] = [
  // Baseline JPEG at quality 90 keeps ~28 dB on this deliberately noisy 8-bit series; a decoding error (wrong colour model, shifted blocks) falls far below.
  ['JPEG Baseline, quality 90', '1.2.840.10008.1.2.4.50', MR8, 'dcmcjpeg', ['+eb', '+q', '90'], 'dcmdjpeg', [], 25],
  ['JPEG Extended (8-bit), quality 90', '1.2.840.10008.1.2.4.51', MR8, 'dcmcjpeg', ['+ee', '+q', '90'], 'dcmdjpeg', [], 25],
  ['JPEG 2000 irreversible, quality 50', '1.2.840.10008.1.2.4.91', MR16, 'gdcmconv', ['--j2k', '--lossy', '-q', '50'], 'gdcmconv', ['--raw'], 45],
];

describe('lossy transfer syntaxes import what an independent decoder reads, within the requested loss', () => {
  it.each(lossy)('%s', async (_name, uid, spec, tool, args, decoder, decoderArgs, minPsnr) => {
    const { series, files, dir } = await convert(spec, tool, args);
    const imported = await importSeries(files);
    expect(imported.errors).toEqual([]);
    expect(imported.transferSyntax[0]).toBe(uid);
    imported.stored.forEach((samples, i) => {
      const reference = parseDicom(convertWith(decoder, decoderArgs, join(dir, `slice${i}.dcm`), join(dir, `slice${i}.reference.dcm`))).pixel;
      // Inverse DCT / wavelet implementations may round differently by one unit.
      expect(maxAbsError(samples, reference)).toBeLessThanOrEqual(1);
      expect(psnr(spec, series.original[i]!, samples)).toBeGreaterThanOrEqual(minPsnr);
    });
  });

  it('JPEG-LS near-lossless keeps every sample within the NEAR value it was encoded with', async () => {
    const { series, files, dir } = await convert(MR16, 'dcmcjpls', ['+en', '+md', '3']);
    const imported = await importSeries(files);
    expect(imported.errors).toEqual([]);
    expect(imported.transferSyntax[0]).toBe('1.2.840.10008.1.2.4.81');
    imported.stored.forEach((samples, i) => {
      // JPEG-LS bounds the error by NEAR exactly (ISO 14495-1), and its decoding is integer-exact.
      expect(maxAbsError(samples, series.original[i]!)).toBeLessThanOrEqual(3);
      expect(maxAbsError(samples, series.original[i]!)).toBeGreaterThan(0);
      const reference = parseDicom(convertWith('dcmdjpls', [], join(dir, `slice${i}.dcm`), join(dir, `slice${i}.reference.dcm`))).pixel;
      expect(maxAbsError(samples, reference)).toBe(0);
    });
  });

  it('HTJ2K irreversible (encoded by OpenJPH) matches what OpenJPH decodes', async () => {
    const series = await source(MR16);
    const dir = join(series.dir, 'htj2k-lossy');
    mkdirSync(dir);
    const imported = await importSeries(series.sources.map((_, s) => htj2kSlice(dir, MR16, s, false)));
    expect(imported.errors).toEqual([]);
    expect(imported.transferSyntax[0]).toBe('1.2.840.10008.1.2.4.203');
    imported.stored.forEach((samples, i) => {
      // Two implementations of the irreversible 9/7 wavelet (OpenJPEG here, OpenJPH there): a few units of 65535 apart.
      expect(maxAbsError(samples, htj2kReference(dir, MR16, i))).toBeLessThanOrEqual(4);
      expect(psnr(MR16, series.original[i]!, samples)).toBeGreaterThanOrEqual(45);
    });
  });
});

describe('a syntax no decoder here reads', () => {
  it('refuses 12-bit lossy JPEG naming the file, and stores nothing', async () => {
    const { files } = await convert(MR12, 'dcmcjpeg', ['+ee', '+q', '90']);
    const imported = await importSeries(files);
    expect(imported.stored).toEqual([]);
    expect(imported.errors).toEqual([expect.stringMatching(/slice0\.dcm: .*12-bit lossy JPEG \(JPEG Extended\).*Export the images uncompressed/)]);
  });

  it('names a damaged JPEG-LS frame', async () => {
    const { files } = await convert(MR16, 'dcmcjpls', ['+el']);
    const damaged = files[0]!.slice(0, files[0]!.length - 200);
    damaged.fill(0x55, damaged.length - 900, damaged.length - 700);
    const imported = await importSeries([damaged]);
    expect(imported.errors).toEqual([expect.stringMatching(/slice0\.dcm: .*(damaged|could not be decoded)/)]);
  });
});
