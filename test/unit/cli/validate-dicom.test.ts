/**
 * `neuroeval validate <file.dcm | folder | zip> --json` on DICOM alone, as
 * a user has it on disk: every stored image is listed with the SHA-256 of
 * its PNG and the file it came from, so an import can be compared with
 * another tool's rendering; the key salt is never printed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { zipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { sha256Hex } from '../../../src/core/hash/sha256.ts';
import { parseDicom, renderDicomFrame } from '../../../src/core/imaging/index.ts';
import { axialSeries, PATIENT_A, secondaryCapture } from '../../support/dicom-studies.ts';
import { makeTempDir, removeTempDirs } from '../../support/temp-dir.ts';

function capture() {
  let out = '';
  let err = '';
  return { io: { out: { write: (t: string) => (out += t) }, err: { write: (t: string) => (err += t) } }, out: () => out, err: () => err };
}

interface Listed {
  case: string;
  sha256: string;
  plane?: string;
  slice?: number;
  input?: string;
}

afterEach(removeTempDirs);

const series = axialSeries({ patient: PATIENT_A, seriesUid: '1.2.826.0.1.3680043.8.498.31337', slices: 4, technical: { manufacturer: 'SIEMENS', fieldStrength: '1.5' } }, 'series');

function onDisk(): string {
  const root = makeTempDir('dicom');
  for (const f of series) {
    mkdirSync(dirname(join(root, f.name)), { recursive: true });
    writeFileSync(join(root, f.name), f.bytes);
  }
  return root;
}

/** The PNG the single-file path renders for the slice at position z. */
const expected = (z: number) => sha256Hex(renderDicomFrame(parseDicom(series.find((s) => s.z === z)!.bytes), 0).png);

describe('neuroeval validate on DICOM alone', () => {
  it('a series folder: every slice with its PNG hash and its input file, in position order', async () => {
    const c = capture();
    const code = await main(['validate', join(onDisk(), 'series'), '--series-slices', 'all', '--json'], c.io);
    expect(c.err()).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(c.out()) as { importer: { kind: string }; images: Listed[]; keySalt?: unknown };
    expect(report.importer.kind).toBe('dicom');
    expect(report.images.map((i) => [i.plane, i.slice, i.sha256])).toEqual([0, 1, 2, 3].map((z) => ['axial', z, expected(z)]));
    expect(report.images.map((i) => i.input)).toEqual([0, 1, 2, 3].map((z) => series.find((s) => s.z === z)!.name.replace('series/', '')));
    expect(report).not.toHaveProperty('keySalt');
    expect(c.out().toUpperCase()).not.toContain(PATIENT_A.name);
    expect(c.out()).not.toContain(PATIENT_A.id);
  });

  it('one file, and a ZIP of the folder, list the same renders', async () => {
    const root = onDisk();
    const one = capture();
    expect(await main(['validate', join(root, series[0]!.name), '--json'], one.io)).toBe(0);
    expect((JSON.parse(one.out()) as { images: Listed[] }).images.map((i) => i.sha256)).toEqual([expected(series[0]!.z)]);

    const zipPath = join(root, 'export.zip');
    writeFileSync(zipPath, zipSync(Object.fromEntries(series.map((s) => [s.name, s.bytes]))));
    const zipped = capture();
    expect(await main(['validate', zipPath, '--series-slices', '0,3', '--json'], zipped.io)).toBe(0);
    expect((JSON.parse(zipped.out()) as { images: Listed[] }).images.map((i) => i.sha256)).toEqual([expected(0), expected(3)]);
  });

  it('refuses a secondary capture naming the file and the tag, and takes it with --accept-burned-in', async () => {
    const path = join(makeTempDir('sc'), 'capture.dcm');
    writeFileSync(path, secondaryCapture());
    const refused = capture();
    expect(await main(['validate', path], refused.io)).toBe(1);
    expect(refused.out()).toContain('error: capture.dcm, field "SOPClassUID": "capture.dcm" is a secondary capture');
    const accepted = capture();
    expect(await main(['validate', path, '--accept-burned-in'], accepted.io)).toBe(0);
    expect(accepted.out()).toContain('OK: the import would succeed.');
  });
});
