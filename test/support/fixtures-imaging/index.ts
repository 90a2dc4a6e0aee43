/** Generators of medical and ordinary image files for unit and browser tests. */
export { asciiBytes, ByteWriter, containsBytes } from './bytes.ts';
export { defaultDicomPixel, type DicomSyntax, FAKE_PATIENT, makeDicom, type MakeDicomOptions, TRANSFER_SYNTAX_UIDS } from './dicom.ts';
export { makeNifti, type MakeNiftiOptions, type NiftiFixtureType, niftiPattern } from './nifti.ts';
export { makeBmp, makeGif, makeJpeg, makeWebpVp8, makeWebpVp8l, makeWebpVp8x } from './raster.ts';
