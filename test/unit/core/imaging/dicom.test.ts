import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../src/core/errors.ts';
import { parseDicom } from '../../../../src/core/imaging/dicom/parse.ts';
import { defaultDicomPixel, type DicomSyntax, makeDicom, type MakeDicomOptions } from '../../../support/fixtures-imaging/index.ts';
import { thrown } from '../../../support/errors.ts';

/** Stored values the fixture wrote, in frame/row/column/sample order. */
function expected(o: MakeDicomOptions, frame = 0): number[] {
  const rows = o.rows ?? 4;
  const columns = o.columns ?? 5;
  const samples = o.photometric === 'RGB' ? 3 : 1;
  const value = o.pixel ?? defaultDicomPixel;
  const out: number[] = [];
  for (let r = 0; r < rows; r++) for (let c = 0; c < columns; c++) for (let s = 0; s < samples; s++) out.push(value(frame, r, c, s));
  return out;
}


const SYNTAXES: DicomSyntax[] = ['explicit-le', 'implicit-le', 'explicit-be', 'deflated'];

describe('parseDicom: transfer syntaxes and pixel formats', () => {
  it.each(SYNTAXES)('reads 16-bit unsigned pixels in %s', (syntax) => {
    const parsed = parseDicom(makeDicom({ syntax }), 'a.dcm');
    expect(parsed.kept.rows).toBe(4);
    expect(parsed.kept.columns).toBe(5);
    expect(parsed.kept.bitsAllocated).toBe(16);
    expect(parsed.frames).toBe(1);
    expect(parsed.pixel).toBeInstanceOf(Uint16Array);
    expect(Array.from(parsed.getFrame(0))).toEqual(expected({}));
  });

  it.each(SYNTAXES)('reads 8-bit pixels in %s', (syntax) => {
    const parsed = parseDicom(makeDicom({ syntax, bitsAllocated: 8 }));
    expect(parsed.pixel).toBeInstanceOf(Uint8Array);
    expect(Array.from(parsed.getFrame(0))).toEqual(expected({}));
  });

  it('un-swaps 8-bit pixel data encoded as OW in big endian', () => {
    const parsed = parseDicom(makeDicom({ syntax: 'explicit-be', bitsAllocated: 8, pixelVR: 'OW' }));
    expect(Array.from(parsed.getFrame(0))).toEqual(expected({}));
  });

  it.each(SYNTAXES)('reads signed 16-bit pixels in %s', (syntax) => {
    const pixel = (_f: number, r: number, c: number) => (r * 5 + c) * 150 - 1500;
    const parsed = parseDicom(makeDicom({ syntax, signed: true, pixel }));
    expect(parsed.kept.pixelRepresentation).toBe(1);
    expect(parsed.pixel).toBeInstanceOf(Int16Array);
    expect(Array.from(parsed.getFrame(0))).toEqual(expected({ pixel }));
    expect(Math.min(...parsed.getFrame(0))).toBe(-1500);
  });

  it('reads signed 8-bit pixels', () => {
    const pixel = (_f: number, r: number, c: number) => r * 10 + c - 20;
    const parsed = parseDicom(makeDicom({ bitsAllocated: 8, signed: true, pixel }));
    expect(parsed.pixel).toBeInstanceOf(Int8Array);
    expect(Array.from(parsed.getFrame(0))).toEqual(expected({ pixel }));
  });

  it('masks bits above HighBit and sign-extends 12-bit signed data', () => {
    const pixel = (_f: number, r: number, c: number) => (r * 5 + c) * 200 - 2048; // −2048 … 1752 fits 12 bits
    const parsed = parseDicom(makeDicom({ bitsStored: 12, signed: true, garbageHighBits: true, pixel }));
    expect(Array.from(parsed.getFrame(0))).toEqual(expected({ pixel }));
  });

  it('masks bits above HighBit for 12-bit unsigned data', () => {
    const pixel = (_f: number, r: number, c: number) => (r * 5 + c) * 200;
    const parsed = parseDicom(makeDicom({ bitsStored: 12, garbageHighBits: true, pixel }));
    expect(Array.from(parsed.getFrame(0))).toEqual(expected({ pixel }));
  });

  it('shifts data whose HighBit is not BitsStored − 1', () => {
    const parsed = parseDicom(makeDicom({ bitsStored: 12, highBit: 15 }));
    expect(Array.from(parsed.getFrame(0))).toEqual(expected({}));
  });

  it.each([0, 1] as const)('reads RGB with planar configuration %s as interleaved samples', (planarConfiguration) => {
    const o: MakeDicomOptions = { photometric: 'RGB', bitsAllocated: 8, planarConfiguration, frames: 2 };
    const parsed = parseDicom(makeDicom(o));
    expect(parsed.kept.samplesPerPixel).toBe(3);
    expect(parsed.getFrame(0)).toHaveLength(4 * 5 * 3);
    expect(Array.from(parsed.getFrame(1))).toEqual(expected(o, 1));
  });

  it('applies RescaleSlope/Intercept: CT stored values become Hounsfield units', () => {
    const pixel = (_f: number, r: number, c: number) => 1024 + (r * 5 + c) * 10 - 50;
    const parsed = parseDicom(makeDicom({ modality: 'CT', rescale: { slope: 1, intercept: -1024 }, pixel }));
    expect(parsed.kept.rescaleIntercept).toBe(-1024);
    expect(parsed.kept.rescaleSlope).toBe(1);
    const hu = parsed.getFrame(0);
    expect(hu[0]).toBe(-50);
    expect(hu[19]).toBe(140);
    // Stored values stay untouched for storage and re-windowing.
    expect(parsed.pixel[0]).toBe(974);
  });

  it('applies fractional slopes', () => {
    const parsed = parseDicom(makeDicom({ rescale: { slope: 0.5, intercept: 10.25 } }));
    const frame = parsed.getFrame(0);
    expected({}).forEach((v, i) => expect(frame[i]).toBeCloseTo(v * 0.5 + 10.25, 5));
  });

  it('keeps MONOCHROME1 so the renderer can invert it', () => {
    expect(parseDicom(makeDicom({ photometric: 'MONOCHROME1' })).kept.photometricInterpretation).toBe('MONOCHROME1');
  });

  it('takes the first of multi-valued WindowCenter/WindowWidth', () => {
    const parsed = parseDicom(makeDicom({ window: { center: [40, 400], width: [80, 2000] } }));
    expect(parsed.kept.windowCenter).toBe(40);
    expect(parsed.kept.windowWidth).toBe(80);
  });

  it('ignores a window width below 1', () => {
    const parsed = parseDicom(makeDicom({ window: { center: 40, width: 0 } }));
    expect(parsed.kept.windowCenter).toBeUndefined();
    expect(parsed.kept.windowWidth).toBeUndefined();
  });

  it('keeps spatial and technical tags', () => {
    const parsed = parseDicom(
      makeDicom({ modality: 'MR', pixelSpacing: [0.5, 0.75], sliceThickness: 5, imageOrientationPatient: [1, 0, 0, 0, 1, 0] }),
    );
    expect(parsed.kept).toMatchObject({
      modality: 'MR',
      pixelSpacing: [0.5, 0.75],
      sliceThickness: 5,
      imageOrientationPatient: [1, 0, 0, 0, 1, 0],
      instanceNumber: 7,
      transferSyntaxUID: '1.2.840.10008.1.2.1',
    });
  });

  it.each(SYNTAXES)('gives access to each frame of a multi-frame image (%s)', (syntax) => {
    const parsed = parseDicom(makeDicom({ syntax, frames: 3 }));
    expect(parsed.frames).toBe(3);
    expect(parsed.kept.numberOfFrames).toBe(3);
    for (let f = 0; f < 3; f++) expect(Array.from(parsed.getFrame(f))).toEqual(expected({}, f));
    expect(thrown(() => parsed.getFrame(3)).message).toMatch(/Frame 3 does not exist: this image has 3 frame/);
    expect(() => parsed.getFrame(-1)).toThrow(InvalidInputError);
  });

  it.each(SYNTAXES)('walks sequences of defined and undefined length without reading their content (%s)', (syntax) => {
    const parsed = parseDicom(makeDicom({ syntax, sequence: true }));
    // The items contain Rows 999 / Columns 777 decoys; only the top level counts.
    expect(parsed.kept.rows).toBe(4);
    expect(parsed.kept.columns).toBe(5);
    expect(Array.from(parsed.getFrame(0))).toEqual(expected({}));
    const names = parsed.dropped.map((d) => d.name);
    expect(names).toContain('ReferencedImageSequence');
    expect(names).toContain('ReferencedSeriesSequence');
    // Nested elements are dropped with their sequence, not listed one by one.
    expect(names).not.toContain('ContentSequence');
  });

  it('skips an undefined-length UN element as an implicit VR sequence', () => {
    const parsed = parseDicom(makeDicom({ sequence: true }));
    expect(parsed.dropped.map((d) => d.name)).toContain('RequestAttributesSequence');
  });

  it('guesses the encoding when the Transfer Syntax UID is missing', () => {
    for (const syntax of ['explicit-le', 'implicit-le'] as const) {
      const parsed = parseDicom(makeDicom({ syntax, omitTransferSyntax: true }));
      expect(Array.from(parsed.getFrame(0))).toEqual(expected({}));
    }
  });
});

describe('parseDicom: refusals', () => {
  it('explains a missing pixel data element', () => {
    const error = thrown(() => parseDicom(makeDicom({ omitPixelData: true }), 'report.dcm'));
    expect(error.message).toBe('This DICOM file has no pixel data (7FE0,0010): it may be a structured report or a presentation state.');
    expect(error.location?.file).toBe('report.dcm');
  });

  it('refuses compressed DICOM that no decoder here reads, naming the transfer syntax', () => {
    // JPEG XL: the compressed syntaxes that are decoded are tested in transfer-syntaxes.test.ts.
    const error = thrown(() => parseDicom(makeDicom({ encapsulated: { uid: '1.2.840.10008.1.2.4.110', frames: [new Uint8Array([0xff, 0x0a, 0, 0])] } })));
    expect(error.message).toMatch(/compressed DICOM \(JPEG XL Lossless\) is not supported yet/);
    expect(error.message).toMatch(/1\.2\.840\.10008\.1\.2\.4\.110/);
    expect(error.message).toMatch(/uncompressed/);
  });

  it('refuses an unknown transfer syntax', () => {
    const bytes = makeDicom();
    // Rewrite "1.2.840.10008.1.2.1" in the meta group as "1.2.840.10008.9.9.9".
    const text = new TextDecoder('latin1').decode(bytes);
    const at = text.indexOf('1.2.840.10008.1.2.1');
    bytes.set(new TextEncoder().encode('1.2.840.10008.9.9.9'), at);
    expect(thrown(() => parseDicom(bytes)).message).toMatch(/unknown encoding \(transfer syntax 1\.2\.840\.10008\.9\.9\.9\)/);
  });

  it('refuses a file without the DICM marker', () => {
    expect(thrown(() => parseDicom(makeDicom().subarray(132))).message).toMatch(/not a DICOM Part 10 file/);
    expect(thrown(() => parseDicom(new Uint8Array(10))).message).toMatch(/not a DICOM Part 10 file/);
  });

  it('explains truncated pixel data', () => {
    const bytes = makeDicom({ frames: 2 });
    expect(thrown(() => parseDicom(bytes.subarray(0, bytes.length - 10))).message).toMatch(/pixel data is incomplete: 2 frame\(s\) of 5 × 4 need 80 bytes/);
  });

  it('refuses any truncation of the header with a typed error, never a crash', () => {
    const bytes = makeDicom({ sequence: true, syntax: 'explicit-le' });
    const pixelStart = bytes.length - 40;
    for (let cut = 133; cut < pixelStart; cut += 3) {
      expect(() => parseDicom(bytes.subarray(0, cut))).toThrow(InvalidInputError);
    }
  });

  it('refuses unsupported photometric interpretations', () => {
    expect(thrown(() => parseDicom(makeDicom({ photometric: 'PALETTE COLOR', bitsAllocated: 8 }))).message).toMatch(
      /PALETTE COLOR colour model .* not supported yet/,
    );
  });

  it('refuses images over the size limit before decoding them', () => {
    const bytes = makeDicom({ rows: 20_000, columns: 2, omitPixelData: false, bitsAllocated: 8, pixel: () => 0 });
    expect(thrown(() => parseDicom(bytes)).message).toMatch(/largest side accepted/);
  });
});
