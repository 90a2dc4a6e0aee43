import { describe, expect, it } from 'vitest';
import type { Plane } from '../../../../src/core/model/geometry.ts';
import { InvalidInputError } from '../../../../src/core/errors.ts';
import { parseNifti } from '../../../../src/core/imaging/nifti/parse.ts';
import { makeNifti, type NiftiFixtureType, niftiPattern } from '../../../support/fixtures-imaging/index.ts';
import { thrown } from '../../../support/errors.ts';

const DIMS = [4, 3, 2] as const; // nx, ny, nz

function slice(parsed: ReturnType<typeof parseNifti>, plane: Plane, index: number): number[][] {
  const s = parsed.getSlice(plane, index);
  return Array.from({ length: s.height }, (_, r) => Array.from(s.data.subarray(r * s.width, (r + 1) * s.width)));
}

/**
 * Expected slices for RAS storage (i → R, j → A, k → S), in display
 * convention: axial/coronal have the patient's right on the image's left,
 * axial has anterior up, coronal/sagittal superior up, sagittal anterior left.
 */
function expectedRas(plane: Plane, index: number, f: (i: number, j: number, k: number) => number = (i, j, k) => niftiPattern(i, j, k, 0)): number[][] {
  const [nx, ny, nz] = DIMS;
  const grid = (h: number, w: number, at: (r: number, c: number) => number) =>
    Array.from({ length: h }, (_, r) => Array.from({ length: w }, (_, c) => at(r, c)));
  switch (plane) {
    case 'axial':
      return grid(ny, nx, (r, c) => f(nx - 1 - c, ny - 1 - r, index));
    case 'coronal':
      return grid(nz, nx, (r, c) => f(nx - 1 - c, index, nz - 1 - r));
    case 'sagittal':
      return grid(nz, ny, (r, c) => f(index, ny - 1 - c, nz - 1 - r));
  }
}


const PLANES: Plane[] = ['axial', 'coronal', 'sagittal'];

describe('parseNifti: formats', () => {
  const variants = [
    { name: 'NIfTI-1 .nii little endian', options: {} },
    { name: 'NIfTI-1 .nii big endian', options: { littleEndian: false } },
    { name: 'NIfTI-1 .nii.gz', options: { gzip: true } },
    { name: 'NIfTI-1 .nii.gz big endian', options: { gzip: true, littleEndian: false } },
    { name: 'NIfTI-2 .nii little endian', options: { version: 2 as const } },
    { name: 'NIfTI-2 .nii big endian', options: { version: 2 as const, littleEndian: false } },
    { name: 'NIfTI-2 .nii.gz', options: { version: 2 as const, gzip: true } },
  ];
  it.each(variants)('reads $name with exact slices in every plane', ({ options }) => {
    const parsed = parseNifti(makeNifti({ ...options, pixdim: [0.9, 1.1, 5] }), 'brain.nii');
    expect(parsed.version).toBe(options.version ?? 1);
    expect(parsed.dims).toEqual([4, 3, 2]);
    expect(parsed.pixdim[0]).toBeCloseTo(0.9, 6);
    expect(parsed.pixdim[2]).toBeCloseTo(5, 6);
    expect(parsed.datatype).toBe('int16');
    expect(parsed.orientation.source).toBe('sform');
    expect(parsed.sliceCount('axial')).toBe(2);
    expect(parsed.sliceCount('coronal')).toBe(3);
    expect(parsed.sliceCount('sagittal')).toBe(4);
    for (const plane of PLANES) {
      for (let i = 0; i < parsed.sliceCount(plane); i++) expect(slice(parsed, plane, i)).toEqual(expectedRas(plane, i));
    }
  });

  it('reports slice sizes and pixel spacing per plane', () => {
    const parsed = parseNifti(makeNifti({ pixdim: [0.5, 0.75, 5] }));
    const axial = parsed.getSlice('axial', 0);
    expect([axial.width, axial.height]).toEqual([4, 3]);
    expect(axial.pixelSpacing).toEqual([0.5, 0.75]);
    const sagittal = parsed.getSlice('sagittal', 0);
    expect([sagittal.width, sagittal.height]).toEqual([3, 2]);
    expect(sagittal.pixelSpacing).toEqual([0.75, 5]);
  });

  const types: [NiftiFixtureType, (i: number, j: number, k: number) => number, string][] = [
    ['uint8', (i, j, k) => niftiPattern(i, j, k, 0), 'Uint8Array'],
    ['int8', (i, j, k) => niftiPattern(i, j, k, 0) - 100, 'Int8Array'],
    ['int16', (i, j, k) => niftiPattern(i, j, k, 0) * 20 - 2000, 'Int16Array'],
    ['uint16', (i, j, k) => niftiPattern(i, j, k, 0) * 300, 'Uint16Array'],
    ['int32', (i, j, k) => niftiPattern(i, j, k, 0) * 100_000 - 7_000_000, 'Int32Array'],
    ['uint32', (i, j, k) => niftiPattern(i, j, k, 0) * 10_000_000, 'Uint32Array'],
    ['float32', (i, j, k) => niftiPattern(i, j, k, 0) + 0.25, 'Float32Array'],
    ['float64', (i, j, k) => niftiPattern(i, j, k, 0) / 3, 'Float64Array'],
  ];
  it.each(types)('reads %s voxels (both byte orders)', (datatype, f, ctor) => {
    for (const littleEndian of [true, false]) {
      const parsed = parseNifti(makeNifti({ datatype, littleEndian, value: (i, j, k) => f(i, j, k) }));
      expect(parsed.datatype).toBe(datatype);
      expect(parsed.data.constructor.name).toBe(ctor);
      const got = parsed.getSlice('coronal', 1);
      const want = expectedRas('coronal', 1, f).flat();
      want.forEach((v, n) => expect(got.data[n]).toBeCloseTo(v, 4));
    }
  });

  it('applies scl_slope/scl_inter', () => {
    const parsed = parseNifti(makeNifti({ sclSlope: 2.5, sclInter: -7 }));
    expect(parsed.sclSlope).toBe(2.5);
    expect(parsed.sclInter).toBe(-7);
    const got = parsed.getSlice('axial', 1).data;
    expectedRas('axial', 1).flat().forEach((v, n) => expect(got[n]).toBeCloseTo(v * 2.5 - 7, 4));
    // Stored samples stay unscaled.
    expect(parsed.data[1]).toBe(1);
  });

  it('treats scl_slope 0 as "no scaling", ignoring the intercept', () => {
    const parsed = parseNifti(makeNifti({ sclSlope: 0, sclInter: 50 }));
    expect(parsed.sclSlope).toBe(1);
    expect(parsed.sclInter).toBe(0);
    expect(slice(parsed, 'axial', 0)).toEqual(expectedRas('axial', 0));
  });

  it('loads volume 0 of a 4D series unless asked, and any other volume on request', () => {
    const bytes = makeNifti({ dims: [4, 3, 2, 3], gzip: true });
    const first = parseNifti(bytes);
    expect(first.volumes).toBe(3);
    expect(first.volume).toBe(0);
    expect(slice(first, 'axial', 0)).toEqual(expectedRas('axial', 0));
    const third = parseNifti(bytes, 'bold.nii.gz', { volume: 2 });
    expect(slice(third, 'axial', 0)).toEqual(expectedRas('axial', 0, (i, j, k) => niftiPattern(i, j, k, 2)));
    expect(thrown(() => parseNifti(bytes, 'bold.nii.gz', { volume: 3 })).message).toMatch(/Volume 3 does not exist: this file has 3 volume/);
  });

  it('decompresses a .nii.gz only as far as the requested volume', () => {
    // 20 volumes of 8 KiB: the whole file is ~160 KiB decompressed, volume 0 needs ~8 KiB.
    const bytes = makeNifti({ dims: [16, 16, 16, 20], gzip: true, value: (i, j, k, t) => (i + j + k + t) % 100 });
    expect(parseNifti(bytes, 'bold.nii.gz', { maxBytes: 40_000 }).getSlice('axial', 3).data).toHaveLength(256);
    expect(thrown(() => parseNifti(bytes, 'bold.nii.gz', { maxBytes: 40_000, volume: 19 })).message).toMatch(/beyond the 39.1 KiB/);
  });

  it('reads a 2D image (dim[0] = 2) as a single axial slice', () => {
    const parsed = parseNifti(makeNifti({ dims: [4, 3] }));
    expect(parsed.dims).toEqual([4, 3, 1]);
    expect(parsed.sliceCount('axial')).toBe(1);
  });
});

describe('parseNifti: orientation', () => {
  it('mirrors left-right for LAS storage (sform with a negative x axis)', () => {
    const parsed = parseNifti(makeNifti({ sform: [[-1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]] }));
    expect(parsed.orientation).toEqual({ axes: [0, 1, 2], signs: [-1, 1, 1], source: 'sform' });
    expect(slice(parsed, 'axial', 1)).toEqual(expectedRas('axial', 1, (i, j, k) => niftiPattern(3 - i, j, k, 0)));
  });

  it('uses the qform when there is no sform (qfac −1 flips k)', () => {
    const parsed = parseNifti(makeNifti({ qform: { b: 0, c: 0, d: 0, qfac: -1 } }));
    expect(parsed.orientation).toEqual({ axes: [0, 1, 2], signs: [1, 1, -1], source: 'qform' });
    expect(slice(parsed, 'coronal', 0)).toEqual(expectedRas('coronal', 0, (i, j, k) => niftiPattern(i, j, 1 - k, 0)));
  });

  it('handles a 180° qform rotation about z (LPS storage)', () => {
    const parsed = parseNifti(makeNifti({ qform: { b: 0, c: 0, d: 1 } }));
    expect(parsed.orientation.signs).toEqual([-1, -1, 1]);
  });

  it('follows permuted axes (a sagittal acquisition stored i → A, j → S, k → R)', () => {
    const parsed = parseNifti(makeNifti({ sform: [[0, 0, 1, 0], [1, 0, 0, 0], [0, 1, 0, 0]] }));
    expect(parsed.orientation.axes).toEqual([2, 0, 1]);
    // Axial slices now cut along j (superior-inferior), and are k (R–L) wide and i (A–P) high.
    expect(parsed.sliceCount('axial')).toBe(3);
    const axial = parsed.getSlice('axial', 0);
    expect([axial.width, axial.height]).toEqual([2, 4]);
    // Top-left pixel: most anterior (i = 3), patient's right (k = 1).
    expect(axial.data[0]).toBe(niftiPattern(3, 0, 1, 0));
  });

  it('assumes RAS storage when the header has no orientation', () => {
    const parsed = parseNifti(makeNifti({ noOrientation: true, version: 2 }));
    expect(parsed.orientation.source).toBe('assumed');
    expect(slice(parsed, 'sagittal', 2)).toEqual(expectedRas('sagittal', 2));
  });
});

describe('parseNifti: refusals and dropped fields', () => {
  it('refuses the header of a two-file .hdr/.img pair', () => {
    expect(thrown(() => parseNifti(makeNifti({ pairMagic: true }))).message).toMatch(/separate \.img file/);
  });

  it('refuses unsupported datatypes by name', () => {
    expect(thrown(() => parseNifti(makeNifti({ datatypeCode: 128 }))).message).toMatch(/RGB24 voxels, which are not supported yet/);
    expect(thrown(() => parseNifti(makeNifti({ datatypeCode: 999 }))).message).toMatch(/unknown datatype code 999/);
  });

  it('refuses truncated data, plain and gzipped', () => {
    expect(thrown(() => parseNifti(makeNifti({ truncate: 3 }), 'cut.nii')).message).toMatch(/incomplete: its header declares 4 × 3 × 2 int16 voxels/);
    expect(thrown(() => parseNifti(makeNifti({ truncate: 3, gzip: true }))).message).toMatch(/decompressed file has only/);
    const gz = makeNifti({ gzip: true });
    expect(thrown(() => parseNifti(gz.subarray(0, gz.length - 30))).message).toMatch(/ends early/);
    expect(thrown(() => parseNifti(makeNifti().subarray(0, 200))).message).toMatch(/header needs 348 bytes/);
  });

  it('refuses corrupt gzip with a typed error', () => {
    const gz = makeNifti({ gzip: true });
    gz.fill(0xaa, 20, 40);
    expect(() => parseNifti(gz)).toThrow(InvalidInputError);
  });

  it('refuses volumes over the size limits', () => {
    expect(thrown(() => parseNifti(makeNifti({ dims: [20_000, 2, 1], datatype: 'uint8', value: () => 0 }))).message).toMatch(/largest side/);
    expect(thrown(() => parseNifti(makeNifti({ dims: [64, 64, 64] }), 'big.nii', { maxBytes: 100_000 })).message).toMatch(/more than the 97.7 KiB/);
  });

  it('refuses a file that is not NIfTI', () => {
    expect(thrown(() => parseNifti(new Uint8Array(600))).message).toMatch(/not a NIfTI file/);
  });

  it('lists free-text header fields and extensions it dropped, by name only', () => {
    const parsed = parseNifti(makeNifti({ descrip: 'DOE^JANE 2024-01-05', extension: '(0010,0010) DOE^JANE' }));
    expect(parsed.dropped).toEqual(['descrip', 'extensions']);
    expect(JSON.stringify(parsed.dropped)).not.toContain('DOE');
    // The extension moves vox_offset; voxels must still be found.
    expect(slice(parsed, 'axial', 0)).toEqual(expectedRas('axial', 0));
    expect(parseNifti(makeNifti()).dropped).toEqual([]);
  });

  it('rejects out-of-range slice indices', () => {
    const parsed = parseNifti(makeNifti());
    expect(thrown(() => parsed.getSlice('axial', 2)).message).toMatch(/Slice 2 does not exist: this volume has 2 axial slices/);
    expect(() => parsed.getSlice('sagittal', -1)).toThrow(InvalidInputError);
    expect(() => parsed.getSlice('coronal', 0.5)).toThrow(InvalidInputError);
  });
});

describe('headers that would read the wrong bytes or scale to nothing', () => {
  const patched = (patch: (v: DataView) => void, version: 1 | 2 = 1) => {
    const bytes = makeNifti({ dims: [4, 4, 2], datatype: 'uint8', version });
    patch(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return bytes;
  };

  it('refuses vox_offset inside the header (0, or below 352 in NIfTI-1, 544 in NIfTI-2)', () => {
    expect(() => parseNifti(patched((v) => v.setFloat32(108, 0, true)), 'a.nii')).toThrow(expect.objectContaining({ message: "This NIfTI file's header is damaged: vox_offset is 0, inside the 352 bytes of header and extension flag (the voxels of a .nii file start at byte 352 or later).", location: { file: 'a.nii', field: 'vox_offset' } }));
    expect(() => parseNifti(patched((v) => v.setFloat32(108, 348, true)))).toThrow('vox_offset is 348, inside the 352 bytes');
    expect(() => parseNifti(patched((v) => v.setBigInt64(168, 540n, true), 2))).toThrow('vox_offset is 540, inside the 544 bytes');
  });

  it('refuses a scaling that is NaN or infinite, and still reads scl_slope 0 as no scaling', () => {
    expect(() => parseNifti(patched((v) => v.setFloat32(112, Number.NaN, true)), 'b.nii')).toThrow(expect.objectContaining({ message: "This NIfTI file's header is damaged: scl_slope is NaN; the scaling of its voxels must be a finite number (scl_slope 0 means no scaling).", location: { file: 'b.nii', field: 'scl_slope' } }));
    expect(() => parseNifti(patched((v) => v.setFloat32(116, Number.POSITIVE_INFINITY, true)))).toThrow('scl_inter is infinite');
    expect(parseNifti(patched((v) => v.setFloat32(112, 0, true))).sclSlope).toBe(1);
  });
});
