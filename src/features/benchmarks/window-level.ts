/**
 * Window/level for the case viewer: decodes a stored de-identified source
 * (DICOM or NIfTI container) once, then maps its values to grey levels for
 * any window, fast enough to follow a slider.
 */
import type { ImageSource } from '../../core/bundle/types.ts';
import { createDicomImage } from '../../core/imaging/dicom/pixels.ts';
import { decodeVolume } from '../../core/imaging/dicom/serialize.ts';
import { createNiftiVolume } from '../../core/imaging/nifti/volume.ts';
import { applyWindow, presetWindow, type WindowPreset, type WindowSetting } from '../../core/imaging/window.ts';

export interface SourceImage {
  readonly width: number;
  readonly height: number;
  readonly values: Float32Array;
  /** MONOCHROME1: higher values are darker. */
  readonly invert: boolean;
  /** CT in Hounsfield units: the CT presets make sense. */
  readonly isCt: boolean;
  /** RGB sources cannot be windowed. */
  readonly rgb: boolean;
}

export function decodeSource(bytes: Uint8Array, source: ImageSource): SourceImage {
  const volume = decodeVolume(bytes);
  if (volume.kind === 'dicom') {
    const img = createDicomImage(volume.header, volume.data, []);
    const h = volume.header;
    return {
      width: h.columns,
      height: h.rows,
      values: img.getFrame(source.frame ?? 0),
      invert: h.photometricInterpretation === 'MONOCHROME1',
      isCt: h.modality === 'CT',
      rgb: h.samplesPerPixel === 3,
    };
  }
  const nifti = createNiftiVolume(volume.header, volume.data);
  const plane = source.plane ?? 'axial';
  const slice = nifti.getSlice(plane, source.frame ?? Math.floor(nifti.sliceCount(plane) / 2));
  return { width: slice.width, height: slice.height, values: slice.data, invert: false, isCt: false, rgb: false };
}

export function windowFor(preset: WindowPreset, image: SourceImage): WindowSetting {
  return presetWindow(preset, image.values);
}

/** Grey levels as RGBA for a canvas ImageData. */
export function toRgba(image: SourceImage, center: number, width: number): Uint8ClampedArray<ArrayBuffer> {
  const grey = applyWindow(image.values, center, width, image.invert);
  const out = new Uint8ClampedArray(image.width * image.height * 4);
  for (let i = 0, j = 0; i < grey.length; i++, j += 4) {
    out[j] = out[j + 1] = out[j + 2] = grey[i]!;
    out[j + 3] = 255;
  }
  return out;
}
