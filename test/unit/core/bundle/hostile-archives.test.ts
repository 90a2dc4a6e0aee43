/**
 * Hostile inputs through the import pipeline the app and the CLI share: each
 * is refused (or warned about) with the message a user reads, naming the
 * archive entry, file, line or field; nothing comes back to store. The zip
 * bombs are refused by the byte budget, from their listing or a step into
 * inflating, so these tests finish without ever holding the gigabytes.
 */
import { describe, expect, it } from 'vitest';
import { prepareImport, type ImportPreview } from '../../../../src/core/importers/import-pipeline.ts';
import { memoryFile } from '../../../../src/core/bundle/importer.ts';
import { formatLocation } from '../../../../src/core/errors.ts';
import {
  bundleWithAsset,
  lyingBomb,
  niftiNegative,
  overlapBomb,
  pngLiar,
  ratioBomb,
  shaMismatch,
  swarmBomb,
  understatedEntry,
  zeroCompressedSize,
  type HostileInput,
} from '../../../support/hostile-archives.ts';

function prepare(input: HostileInput, options?: Record<string, unknown>): Promise<ImportPreview> {
  return prepareImport(
    [...input.files].map(([path, bytes]) => memoryFile(path, bytes)),
    options ? { options } : {},
  );
}

/** Each error as the CLI prints it (`where: message`). */
function errorLines(p: ImportPreview): string[] {
  return p.errors.map((e) => `${formatLocation(e.location)}: ${e.message}`);
}

function refused(p: ImportPreview): void {
  expect(p.ok).toBe(false);
  expect(p.bundle).toBeNull();
  expect(p.summary).toBeNull();
}

/** Imports the input, expects it refused, and expects exactly these error lines. */
async function expectRefusedWith(input: HostileInput, lines: readonly string[], options?: Record<string, unknown>): Promise<void> {
  const p = await prepare(input, options);
  refused(p);
  expect(errorLines(p)).toEqual(lines);
}

describe('zip bombs are refused by a byte budget', () => {
  it('an entry declaring 0 compressed bytes for 1 GiB (the ratio check used to skip it)', async () => {
    const input = zeroCompressedSize();
    expect(input.files.get('zero-size.zip')!.length).toBeLessThan(1024);
    await expectRefusedWith(input, [
      'zero-size.zip, field "assets/big.bin": "assets/big.bin" declares 1,073,741,824 bytes from 0 compressed bytes, which looks like a zip bomb; refusing the archive.',
    ]);
  });

  it('four 1000 MiB entries at about 440:1, under the old 1,000:1 limit', async () => {
    await expectRefusedWith(ratioBomb(), [
      'ratio-bomb.zip, field "assets/part0.bin": "assets/part0.bin" is compressed 444:1 (1000 MiB from 2.3 MiB), which looks like a zip bomb: files over 16 MiB may be compressed at most 100:1.',
    ]);
  });

  it('with the ratio raised to 1,000:1 the same archive is refused by the total budget, still before inflating', async () => {
    await expectRefusedWith(ratioBomb(), ['ratio-bomb.zip: The archive would unpack to more than 2,147,483,648 bytes; refusing to read it.'], { zipLimits: { maxRatio: 1000 } });
  });

  it('a 1000 MiB stream declared as 1 MiB is stopped a step past 1 MiB', async () => {
    await expectRefusedWith(lyingBomb(), [
      'lying-bomb.zip, field "assets/small.bin": "assets/small.bin" holds more than the 1,048,576 bytes the archive declares for it; it was stopped there. The archive is corrupt or forged.',
    ]);
  });

  it('an entry that declares 10 bytes and holds 100,000 is refused, not cut to 10', async () => {
    await expectRefusedWith(understatedEntry(), [
      'understated.zip, field "cases.jsonl": "cases.jsonl" holds more than the 10 bytes the archive declares for it; it was stopped there. The archive is corrupt or forged.',
    ]);
  });

  it('many entries each under the per-file allowance are refused by the ratio of the whole archive', async () => {
    await expectRefusedWith(swarmBomb(), [
      'swarm.zip: The archive would unpack to 600 MiB from 612.7 KiB (1,003:1), which looks like a zip bomb: an archive over 16 MiB unpacked may be compressed at most 100:1.',
    ]);
  });

  it('entries sharing one stream are refused by name', async () => {
    await expectRefusedWith(overlapBomb(), [
      'overlap.zip, field "assets/copy1.bin": "assets/copy1.bin" and "assets/copy0.bin" share the same bytes in the archive (overlapping entries, a zip-bomb technique); refusing the archive.',
    ]);
  });

  it('a limit that is not a positive number is an error naming the option', async () => {
    await expectRefusedWith(bundleWithAsset(), ['field "zipLimits.maxRatio": The ZIP limit "maxRatio" must be a positive number.'], { zipLimits: { maxRatio: 'lots' } });
  });
});

describe('the preview counts every file that will be stored', () => {
  it('a file outside images/ is counted with its size', async () => {
    const p = await prepare(bundleWithAsset());
    expect(p.ok).toBe(true);
    expect(p.summary).toMatchObject({ images: 1, files: 1, fileBytes: 300_000 });
    expect([...p.bundle!.files.keys()]).toEqual(['notes/readme.bin']);
  });
});

describe('images, volumes and hashes are checked against what they hold', () => {
  it('a PNG whose header says 10000 × 10000 and holds 8 × 8 pixels', async () => {
    await expectRefusedWith(pngLiar(), [
      'png-liar.zip, field "images/liar.png": This PNG image is damaged or incomplete: its header says 10000 × 10000 pixels, but its pixel data holds only 72 of the 100,010,000 bytes that size needs.',
    ]);
  });

  it('an image that does not match its declared SHA-256 is refused with the case line', async () => {
    const p = await prepare(shaMismatch());
    refused(p);
    expect(p.errors).toHaveLength(1);
    expect(p.errors[0]!.location).toEqual({ file: 'cases.jsonl', line: 2, field: 'images[0].sha256' });
    expect(p.errors[0]!.message).toMatch(/^images\/b\.png does not match the SHA-256 declared for it \(declared [0-9a-f]{12}…, the file hashes to [0-9a-f]{12}…\): the image was changed or replaced after the bundle was made\.$/);
  });

  it('a NIfTI with a negative dimension is refused, not rendered as a one-voxel image', async () => {
    const p = await prepare(niftiNegative());
    refused(p);
    expect(p.errors).toHaveLength(1);
    expect(p.errors[0]!.location?.file).toBe('images/brain.nii');
    expect(p.errors[0]!.message).toBe("This NIfTI file's header is damaged: dimension 2 (dim[2]) is -8; sizes cannot be negative.");
  });
});
