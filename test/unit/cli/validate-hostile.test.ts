/**
 * `neuroeval validate` on hostile files written to a temporary folder: the
 * line each gets, the exit status, and for the zip bombs that the budget
 * refused them (their gigabytes are never inflated).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import {
  bundleWithAsset,
  lyingBomb,
  niftiNegative,
  nvbFormula,
  nvbOffLabels,
  pngLiar,
  ratioBomb,
  shaMismatch,
  understatedEntry,
  writeHostile,
  zeroCompressedSize,
  type HostileInput,
} from '../../support/hostile-archives.ts';
import { makeTempDir, removeTempDirs } from '../../support/temp-dir.ts';

afterEach(removeTempDirs);

async function validate(input: HostileInput, ...flags: string[]): Promise<{ code: number; out: string[]; err: string }> {
  const path = writeHostile(input, makeTempDir('hostile'));
  let out = '';
  let err = '';
  const code = await main(['validate', path, ...flags], { out: { write: (t: string) => (out += t) }, err: { write: (t: string) => (err += t) } });
  return { code, out: out.trimEnd().split('\n'), err };
}

describe('neuroeval validate on hostile input', () => {
  it('refuses an entry declaring 0 compressed bytes for 1 GiB', async () => {
    const r = await validate(zeroCompressedSize());
    expect(r.code).toBe(1);
    expect(r.out).toContain('error: zero-size.zip, field "assets/big.bin": "assets/big.bin" declares 1,073,741,824 bytes from 0 compressed bytes, which looks like a zip bomb; refusing the archive.');
    expect(r.out.at(-1)).toBe('FAILED: 1 error(s); nothing would be stored.');
  });

  it('refuses 4 × 1000 MiB at about 440:1, and with --zip-limits raising the ratio, by the total budget', async () => {
    const input = ratioBomb();
    const r = await validate(input);
    expect(r.code).toBe(1);
    expect(r.out).toContain('error: ratio-bomb.zip, field "assets/part0.bin": "assets/part0.bin" is compressed 444:1 (1000 MiB from 2.3 MiB), which looks like a zip bomb: files over 16 MiB may be compressed at most 100:1.');
    const raised = await validate(input, '--zip-limits', '{"maxRatio":1000}');
    expect(raised.code).toBe(1);
    expect(raised.out).toContain('error: ratio-bomb.zip: The archive would unpack to more than 2,147,483,648 bytes; refusing to read it.');
  });

  it('stops an entry that inflates past what it declares', async () => {
    const r = await validate(lyingBomb());
    expect(r.code).toBe(1);
    expect(r.out).toContain('error: lying-bomb.zip, field "assets/small.bin": "assets/small.bin" holds more than the 1,048,576 bytes the archive declares for it; it was stopped there. The archive is corrupt or forged.');
    const small = await validate(understatedEntry());
    expect(small.out).toContain('error: understated.zip, field "cases.jsonl": "cases.jsonl" holds more than the 10 bytes the archive declares for it; it was stopped there. The archive is corrupt or forged.');
  });

  it('says how many other files, and how many bytes, would be stored besides the images', async () => {
    const r = await validate(bundleWithAsset());
    expect(r.code).toBe(0);
    expect(r.out).toContain('Would store 1 cases, 1 questions, 1 images (0.0 MB), 1 other file (293 KiB).');
  });

  it('refuses a PNG whose header claims more pixels than it holds, a swapped image and a negative NIfTI dimension', async () => {
    const png = await validate(pngLiar());
    expect(png.code).toBe(1);
    expect(png.out).toContain(
      'error: png-liar.zip, field "images/liar.png": This PNG image is damaged or incomplete: its header says 10000 × 10000 pixels, but its pixel data holds only 72 of the 100,010,000 bytes that size needs.',
    );
    const sha = await validate(shaMismatch());
    expect(sha.code).toBe(1);
    expect(sha.out.some((l) => /^error: cases\.jsonl:2, field "images\[0\]\.sha256": images\/b\.png does not match the SHA-256 declared for it \(declared [0-9a-f]{12}…, the file hashes to [0-9a-f]{12}…\)/.test(l))).toBe(true);
    const nifti = await validate(niftiNegative());
    expect(nifti.code).toBe(1);
    expect(nifti.out.filter((l) => l.startsWith('error: images/brain.nii') && l.endsWith(": This NIfTI file's header is damaged: dimension 2 (dim[2]) is -8; sizes cannot be negative."))).toHaveLength(1);
  });

  it('warns about NeuroVLM-Bench labels outside the set and refuses a formula', async () => {
    const off = await validate(nvbOffLabels());
    expect(off.code).toBe(0);
    expect(off.out).toContain(
      'warning: subset_hostile.csv:3, field "plane": plane "diagonal" is not one of NeuroVLM-Bench\'s planes (axial, sagittal, coronal); the case is imported, but the benchmark\'s prompt never offers this answer.',
    );
    const formula = await validate(nvbFormula());
    expect(formula.code).toBe(1);
    expect(formula.out).toContain('error: subset_hostile.csv:3, field "class": class "=HYPERLINK("x")" looks like a spreadsheet formula, not a NeuroVLM-Bench label; the index was altered, so it is refused.');
  });
});
