/**
 * `neuroeval validate` on hostile files written to a temporary folder: the
 * line each gets, the exit status, and for the zip bombs that the budget
 * refused them (their gigabytes are never inflated); `--json` gives the
 * same errors with file, line and field.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import {
  bz2Prompt,
  bundleWithAsset,
  dicomFreeText,
  forgedEndRecord,
  imageMetadata,
  infiniteNumber,
  lookalikeIds,
  niftiNanSlope,
  niftiVoxOffset,
  PRIVATE_MARKER,
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

  it('removes image metadata and says what, and prints nothing it removed', async () => {
    const r = await validate(imageMetadata());
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      'Image metadata removed (never stored): PNG text (tEXt) (2 images), PNG compressed text (zTXt) (2 images), PNG international text (iTXt) (2 images), PNG EXIF (eXIf) (2 images), PNG colour profile (iCCP) (2 images), PNG chunk "prVt" (2 images), JPEG JFIF thumbnail (APP0) (1 image), JPEG EXIF (APP1) (1 image), JPEG XMP (APP1) (1 image), JPEG colour profile (APP2) (1 image), JPEG comment (COM) (1 image), data after the end of the JPEG (1 image)',
    );
    expect(r.out.join('\n')).not.toContain(PRIVATE_MARKER);
  });

  it('drops DICOM free text by default and lists it; --keep-dicom-descriptions keeps it cleaned', async () => {
    const r = await validate(dicomFreeText(), '--json');
    expect(r.code).toBe(0);
    const preview = JSON.parse(r.out.join('\n')) as { droppedTags: { keyword: string }[]; warnings: unknown[] };
    expect(preview.droppedTags.map((t) => t.keyword)).toEqual(expect.arrayContaining(['ProtocolName', 'SequenceName', 'SeriesDescription', 'StudyDescription', 'PerformedProcedureStepDescription']));
    expect(r.out.join('\n')).not.toContain(PRIVATE_MARKER);
    const kept = await validate(dicomFreeText(), '--keep-dicom-descriptions');
    expect(kept.code).toBe(0);
    expect(kept.out).toContain(`warning: images/scan.dcm, field "ProtocolName": "images/scan.dcm": ProtocolName held the patient's name, an ID or a date; only the rest is kept.`);
    expect(kept.out).toContain(`warning: images/scan.dcm, field "SeriesDescription": "images/scan.dcm": SeriesDescription holds the patient's name, an ID, a date or a label of personal data, and nothing technical is left without it, so it is not kept.`);
  });

  it('refuses a bzip2-compressed DICOM file under prompts/ by its content', async () => {
    const r = await validate(bz2Prompt());
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      'error: prompts/system.txt: "prompts/system.txt" is bzip2-compressed, a format NeuroEval does not open to check for patient data. Files beside the cases are stored as they are, so it cannot be de-identified: unpack it and refer to its images from cases (they are then de-identified), or remove it.',
    );
  });

  it('names file, line and field of a number that reads as infinity, in text and in --json', async () => {
    const message = '"ehr.age" is a number too large to store (it reads as infinity, as 1e400 does); write a smaller number, or the value as text.';
    const r = await validate(infiniteNumber());
    expect(r.code).toBe(1);
    expect(r.out).toContain(`error: cases.jsonl:2, field "ehr.age": ${message}`);
    const json = await validate(infiniteNumber(), '--json');
    expect((JSON.parse(json.out.join('\n')) as { errors: unknown[] }).errors).toEqual([{ severity: 'error', message, location: { file: 'cases.jsonl', line: 2, field: 'ehr.age' } }]);
  });

  it('refuses case ids with zero-width, bidi and control characters, each by line', async () => {
    const r = await validate(lookalikeIds());
    expect(r.code).toBe(1);
    const tail = 'holds an invisible or control character ({cp}), which makes it look like another id or read differently on screen; remove it.';
    expect(r.out).toEqual(expect.arrayContaining([
      `error: cases.jsonl:2, field "id": Case id "case\\u{200B}1" ${tail.replace('{cp}', 'U+200B')}`,
      `error: cases.jsonl:3, field "id": Case id "case\\u{202E}1gpj.exe" ${tail.replace('{cp}', 'U+202E')}`,
      `error: cases.jsonl:4, field "id": Case id "case\\u{0}1" ${tail.replace('{cp}', 'U+0000')}`,
    ]));
    expect(r.out.at(-1)).toBe('FAILED: 3 error(s); nothing would be stored.');
  });

  it('refuses a NIfTI header whose voxels start inside it, or whose scaling is NaN', async () => {
    const offset = await validate(niftiVoxOffset());
    expect(offset.code).toBe(1);
    expect(offset.out).toContain('error: images/brain.nii, field "vox_offset": This NIfTI file\'s header is damaged: vox_offset is 0, inside the 352 bytes of header and extension flag (the voxels of a .nii file start at byte 352 or later).');
    const nan = await validate(niftiNanSlope());
    expect(nan.code).toBe(1);
    expect(nan.out).toContain('error: images/brain.nii, field "scl_slope": This NIfTI file\'s header is damaged: scl_slope is NaN; the scaling of its voxels must be a finite number (scl_slope 0 means no scaling).');
  });

  it('names a ZIP end record forged inside the comment as damaged, not "manifest.json is missing"', async () => {
    const r = await validate(forgedEndRecord());
    expect(r.code).toBe(1);
    expect(r.out).toContain('error: forged-end.zip: "forged-end.zip" is not a readable ZIP archive (truncated or corrupt): its end-of-archive record is damaged or forged (one lies inside the comment of another), so its list of files cannot be trusted.');
  });
});
