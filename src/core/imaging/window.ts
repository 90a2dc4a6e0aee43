/**
 * Window/level: mapping modality values (Hounsfield units for CT, arbitrary
 * intensities for MR) to 8-bit gray. The same window gives the same pixels as
 * a DICOM viewer because the linear VOI LUT function of the standard is used.
 */
import { InvalidInputError } from '../errors.ts';

export type CtWindowPreset = 'brain' | 'stroke' | 'bone' | 'subdural';
/** Named windows: the CT presets, and `auto` (percentile range, for MR and anything without units). */
export type WindowPreset = CtWindowPreset | 'auto';

export interface WindowSetting {
  readonly center: number;
  readonly width: number;
  /** Name of the preset it came from, if any. */
  readonly preset?: string;
}

/**
 * CT head windows in Hounsfield units (center C, width W).
 *
 * - brain C40 W80: the standard parenchyma window.
 * - stroke C40 W40: a narrow window that exaggerates the few-HU gray/white
 *   contrast loss of early ischaemia (published "stroke windows" range from
 *   about W8 C32 to W40 C40; the wider end is kept so normal brain is not
 *   saturated).
 * - bone C500 W2000: within the usual C400–600 / W1800–2800 range; shows
 *   fractures without clipping cortical bone.
 * - subdural C75 W215: wide enough to separate a thin acute collection from
 *   the adjacent skull.
 */
export const CT_WINDOW_PRESETS: Readonly<Record<CtWindowPreset, { readonly center: number; readonly width: number }>> = {
  brain: { center: 40, width: 80 },
  stroke: { center: 40, width: 40 },
  bone: { center: 500, width: 2000 },
  subdural: { center: 75, width: 215 },
};

/** All preset names, for menus. */
export const WINDOW_PRESETS: readonly WindowPreset[] = ['brain', 'stroke', 'bone', 'subdural', 'auto'];

/** Percentiles used by the `auto` window: ignores the extreme 1% at each end (noise spikes, background). */
export const AUTO_WINDOW_PERCENTILES = [1, 99] as const;

/**
 * A window covering the `low`–`high` percentile range of the values (NaN
 * ignored), for MR and other images without calibrated units.
 */
export function autoWindow(values: ArrayLike<number>, low: number = AUTO_WINDOW_PERCENTILES[0], high: number = AUTO_WINDOW_PERCENTILES[1]): WindowSetting {
  const sorted = Float64Array.from(values).filter((v) => !Number.isNaN(v));
  if (sorted.length === 0) return { center: 0, width: 1, preset: 'auto' };
  sorted.sort();
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.round((p / 100) * (sorted.length - 1))))]!;
  const lo = at(low);
  const hi = at(high);
  // The VOI function needs a width of at least 1; a flat image gets a width-1 window around its value.
  const width = Math.max(1, hi - lo);
  return { center: lo + (hi - lo) / 2, width, preset: 'auto' };
}

/** The center/width of a CT preset, or the auto window of `values` for `auto`. */
export function presetWindow(preset: WindowPreset, values?: ArrayLike<number>): WindowSetting {
  if (preset === 'auto') return autoWindow(values ?? []);
  const p = CT_WINDOW_PRESETS[preset];
  if (!p) throw new InvalidInputError(`Unknown window preset "${String(preset)}".`, { field: 'window' });
  return { ...p, preset };
}

/**
 * Maps values to 0–255 with the linear VOI LUT function of DICOM PS3.3
 * C.11.2.1.2.1:
 *
 *     x ≤ c − 0.5 − (w − 1)/2  → 0
 *     x > c − 0.5 + (w − 1)/2  → 255
 *     otherwise                → ((x − (c − 0.5)) / (w − 1) + 0.5) × 255
 *
 * rounded to the nearest integer. `invert` flips the result (MONOCHROME1,
 * where low values are white). NaN maps to the lowest output (black, white
 * when inverted). Width must be ≥ 1.
 */
export function applyWindow(values: ArrayLike<number>, center: number, width: number, invert = false): Uint8Array {
  if (!Number.isFinite(center) || !Number.isFinite(width) || width < 1) {
    throw new InvalidInputError(`The window must have a finite center and a width of at least 1 (got center ${center}, width ${width}).`, {
      field: 'window',
    });
  }
  const out = new Uint8Array(values.length);
  const lower = center - 0.5 - (width - 1) / 2;
  const upper = center - 0.5 + (width - 1) / 2;
  const base = center - 0.5;
  // Width 1 is a pure threshold: the middle branch is empty and the division below would be by zero.
  const scale = width > 1 ? 255 / (width - 1) : 0;
  for (let i = 0; i < values.length; i++) {
    const x = values[i]!;
    let y: number;
    if (Number.isNaN(x) || x <= lower) y = 0;
    else if (x > upper) y = 255;
    else y = Math.round((x - base) * scale + 127.5);
    if (y > 255) y = 255;
    else if (y < 0) y = 0;
    out[i] = invert ? 255 - y : y;
  }
  return out;
}
