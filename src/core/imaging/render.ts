/**
 * Rendering of DICOM frames and NIfTI slices to the 8-bit PNG a model
 * receives, with the window recorded so the result can be reproduced (see
 * `ImageSource.window` in the bundle types).
 */
import type { Plane } from '../model/geometry.ts';
import { createDicomImage } from './dicom/pixels.ts';
import type { StoredVolume } from './dicom/serialize.ts';
import type { ParsedDicom } from './dicom/types.ts';
import { createNiftiVolume, type ParsedNifti } from './nifti/volume.ts';
import { encodePng } from './png-encode.ts';
import { applyWindow, autoWindow, presetWindow, type WindowPreset, type WindowSetting } from './window.ts';

/** A preset name, or an explicit center/width in modality units. */
export type WindowChoice = WindowPreset | { readonly center: number; readonly width: number; readonly preset?: string };

export interface RenderedImage {
  readonly png: Uint8Array;
  readonly width: number;
  readonly height: number;
  /** The window actually applied. */
  readonly window: WindowSetting;
}

function resolve(choice: WindowChoice, values: Float32Array): WindowSetting {
  if (typeof choice === 'string') return presetWindow(choice, values);
  return choice.preset === undefined ? { center: choice.center, width: choice.width } : { ...choice };
}

/**
 * The window used when none is asked for: for RGB, the identity mapping of the
 * stored bit depth; else the file's own WindowCenter/WindowWidth (what the
 * radiographer chose); else `brain` for CT; else `auto`.
 */
export function defaultDicomWindow(parsed: ParsedDicom, values: Float32Array): WindowSetting {
  const k = parsed.kept;
  if (k.samplesPerPixel === 3) return { center: 2 ** (k.bitsStored - 1), width: 2 ** k.bitsStored };
  if (k.windowCenter !== undefined && k.windowWidth !== undefined) return { center: k.windowCenter, width: k.windowWidth };
  if (k.modality === 'CT') return presetWindow('brain');
  return autoWindow(values);
}

/**
 * Renders one frame (0-based) of a parsed DICOM image to PNG. MONOCHROME1
 * images are inverted so that they look as on the scanner console.
 */
export function renderDicomFrame(parsed: ParsedDicom, frame = 0, window?: WindowChoice): RenderedImage {
  const values = parsed.getFrame(frame);
  const setting = window === undefined ? defaultDicomWindow(parsed, values) : resolve(window, values);
  const k = parsed.kept;
  const invert = k.photometricInterpretation === 'MONOCHROME1';
  const pixels = applyWindow(values, setting.center, setting.width, invert);
  const png = encodePng(pixels, k.columns, k.rows, k.samplesPerPixel === 3 ? 'rgb' : 'gray');
  return { png, width: k.columns, height: k.rows, window: setting };
}

/**
 * The window used for a NIfTI slice when none is asked for: the file's
 * cal_min/cal_max display range when set, else `auto` on this slice.
 */
export function defaultNiftiWindow(parsed: ParsedNifti, values: Float32Array): WindowSetting {
  if (parsed.calMin !== undefined && parsed.calMax !== undefined && parsed.calMax - parsed.calMin >= 1) {
    return { center: (parsed.calMin + parsed.calMax) / 2, width: parsed.calMax - parsed.calMin };
  }
  return autoWindow(values);
}

/** Renders one slice of a parsed NIfTI volume to PNG, oriented for display (see nifti/volume.ts). */
export function renderNiftiSlice(parsed: ParsedNifti, plane: Plane, index: number, window?: WindowChoice): RenderedImage {
  const slice = parsed.getSlice(plane, index);
  const setting = window === undefined ? defaultNiftiWindow(parsed, slice.data) : resolve(window, slice.data);
  const pixels = applyWindow(slice.data, setting.center, setting.width);
  return { png: encodePng(pixels, slice.width, slice.height, 'gray'), width: slice.width, height: slice.height, window: setting };
}

/** Which image of a stored volume to render: a DICOM frame, or a NIfTI plane and slice (default: axial, middle slice). */
export interface VolumeSliceSelector {
  readonly frame?: number;
  readonly plane?: Plane;
  readonly index?: number;
}

/**
 * Re-renders an image from the stored de-identified container (see
 * `decodeVolume`), typically with a different window.
 */
export function renderVolumeSlice(volume: StoredVolume, select: VolumeSliceSelector = {}, window?: WindowChoice): RenderedImage {
  if (volume.kind === 'dicom') return renderDicomFrame(createDicomImage(volume.header, volume.data, []), select.frame ?? 0, window);
  const nifti = createNiftiVolume(volume.header, volume.data);
  const plane = select.plane ?? 'axial';
  const index = select.index ?? Math.floor(nifti.sliceCount(plane) / 2);
  return renderNiftiSlice(nifti, plane, index, window);
}
