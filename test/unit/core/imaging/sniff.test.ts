import { describe, expect, it } from 'vitest';
import { encodePng } from '../../../../src/core/imaging/png-encode.ts';
import { type ImageType, isRasterImageType, mimeFor, sniffImageType } from '../../../../src/core/imaging/sniff.ts';
import { makeBmp, makeDicom, makeGif, makeJpeg, makeNifti, makeWebpVp8, makeWebpVp8l, makeWebpVp8x } from '../../../support/fixtures-imaging/index.ts';

describe('sniffImageType', () => {
  const cases: [string, Uint8Array, ImageType][] = [
    ['PNG', encodePng(new Uint8Array(6), 3, 2), 'png'],
    ['JPEG', makeJpeg(10, 20), 'jpeg'],
    ['WebP VP8', makeWebpVp8(10, 20), 'webp'],
    ['WebP VP8L', makeWebpVp8l(10, 20), 'webp'],
    ['WebP VP8X', makeWebpVp8x(10, 20), 'webp'],
    ['GIF', makeGif(10, 20), 'gif'],
    ['BMP', makeBmp(10, 20), 'bmp'],
    ['DICOM', makeDicom(), 'dicom'],
    ['DICOM big endian', makeDicom({ syntax: 'explicit-be' }), 'dicom'],
    ['NIfTI-1 LE', makeNifti(), 'nifti1'],
    ['NIfTI-1 BE', makeNifti({ littleEndian: false }), 'nifti1'],
    ['NIfTI-1 header of a .hdr/.img pair', makeNifti({ pairMagic: true }), 'nifti1'],
    ['NIfTI-2 LE', makeNifti({ version: 2 }), 'nifti2'],
    ['NIfTI-2 BE', makeNifti({ version: 2, littleEndian: false }), 'nifti2'],
    ['gzip (.nii.gz)', makeNifti({ gzip: true }), 'gzip'],
  ];
  it.each(cases)('recognises %s', (_name, bytes, type) => {
    expect(sniffImageType(bytes)).toBe(type);
  });

  it('returns null for unknown or empty input', () => {
    expect(sniffImageType(new Uint8Array(0))).toBeNull();
    expect(sniffImageType(new TextEncoder().encode('BM is also how this sentence starts, but it is text.'))).toBeNull();
    expect(sniffImageType(new TextEncoder().encode('id,question\n1,What is shown?\n'))).toBeNull();
  });

  it('does not take a DICOM dataset without the Part 10 preamble for DICOM', () => {
    const withPreamble = makeDicom();
    // Strip the 128-byte preamble and "DICM": what remains starts with the meta group.
    expect(sniffImageType(withPreamble.subarray(132))).toBeNull();
  });

  it('does not take a NIfTI size field alone for NIfTI', () => {
    const bytes = makeNifti();
    bytes[344] = 0x41; // break the magic
    expect(sniffImageType(bytes)).toBeNull();
  });

  it('gives a MIME type for every type and tells raster formats apart', () => {
    expect(mimeFor('png')).toBe('image/png');
    expect(mimeFor('jpeg')).toBe('image/jpeg');
    expect(mimeFor('webp')).toBe('image/webp');
    expect(mimeFor('gif')).toBe('image/gif');
    expect(mimeFor('bmp')).toBe('image/bmp');
    expect(mimeFor('dicom')).toBe('application/dicom');
    expect(mimeFor('nifti1')).toBe('application/x-nifti');
    expect(mimeFor('nifti2')).toBe('application/x-nifti');
    expect(mimeFor('gzip')).toBe('application/gzip');
    expect(isRasterImageType('png')).toBe(true);
    expect(isRasterImageType('dicom')).toBe(false);
    expect(isRasterImageType(null)).toBe(false);
  });
});
