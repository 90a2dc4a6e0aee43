/**
 * Medical-imaging core: file sniffing, header-only dimensions, DICOM and
 * NIfTI readers with keep-list de-identification, window/level, rendering to
 * PNG and the de-identified source container used for re-windowing. Pure:
 * runs in browsers, workers and Node.
 */
export { checkImageSize, type ImageDimensions, MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE, readImageDimensions } from './dimensions.ts';
export { type DroppedTag, KEPT_TAGS, type KeptTag } from './dicom/deidentify.ts';
export { formatTag, tagKeyword } from './dicom/dictionary.ts';
export { parseDicom } from './dicom/parse.ts';
export { decodeVolume, encodeVolume, type StoredVolume, VOLUME_MAGIC, volumeFromDicom, volumeFromNifti } from './dicom/serialize.ts';
export type { DicomImageHeader, DicomPixelArray, ParsedDicom, PhotometricInterpretation } from './dicom/types.ts';
export { MAX_DECOMPRESSED_BYTES } from './inflate.ts';
export type { NiftiDataType } from './nifti/header.ts';
export type { NiftiOrientation } from './nifti/orientation.ts';
export { parseNifti, type ParseNiftiOptions } from './nifti/parse.ts';
export type { NiftiSlice, NiftiTypedArray, NiftiVolumeInfo, ParsedNifti } from './nifti/volume.ts';
export { encodePng, type PngColor } from './png-encode.ts';
export {
  defaultDicomWindow,
  defaultNiftiWindow,
  renderDicomFrame,
  type RenderedImage,
  renderNiftiSlice,
  renderVolumeSlice,
  type VolumeSliceSelector,
  type WindowChoice,
} from './render.ts';
export { type ImageType, isRasterImageType, mimeFor, type RasterImageType, sniffImageType } from './sniff.ts';
export {
  applyWindow,
  AUTO_WINDOW_PERCENTILES,
  autoWindow,
  CT_WINDOW_PRESETS,
  type CtWindowPreset,
  presetWindow,
  WINDOW_PRESETS,
  type WindowPreset,
  type WindowSetting,
} from './window.ts';
