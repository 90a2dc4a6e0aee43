/**
 * The one table of image-degradation severities (MedQ-Deg style: each kind at
 * three levels, mild → severe). Accuracy and calibration shift are reported
 * per level, so these values are part of a run's definition: changing one
 * changes what `degrade:<kind>:<severity>` means and makes old results
 * incomparable. Add a new kind or level rather than editing an existing value.
 *
 * MedQ-Deg (arXiv 2603.07769) uses three levels (L0/L1/L2) but its exact
 * parameters are not published in the abstract; these are chosen so that
 * level 1 is visible but diagnostically harmless, level 2 clearly hurts fine
 * detail, and level 3 leaves only coarse anatomy.
 *
 * All values are in source pixels and 8-bit intensity units (0–255), applied
 * before any resizing the model does.
 *
 * | kind        | parameter                                  | 1    | 2    | 3    |
 * |-------------|--------------------------------------------|------|------|------|
 * | noise       | Gaussian noise σ (0–255 scale)             | 8    | 16   | 32   |
 * | blur        | Gaussian blur σ (pixels)                   | 1    | 2    | 4    |
 * | contrast    | factor around the mean (1 = unchanged)     | 0.7  | 0.45 | 0.25 |
 * | jpeg        | JPEG quality (libjpeg scale, 1–100)        | 30   | 15   | 5    |
 * | downsample  | factor k: box-average to 1/k, bilinear up  | 2    | 4    | 8    |
 */

export const DEGRADATION_KINDS = ['noise', 'blur', 'contrast', 'jpeg', 'downsample'] as const;
export type DegradationKind = (typeof DEGRADATION_KINDS)[number];

export const SEVERITIES = [1, 2, 3] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface SeverityLevel {
  /** The operation's parameter at this level (see the table above for units). */
  readonly value: number;
  /** What the parameter is, for reports and tooltips. */
  readonly label: string;
}

/** Parameters per kind, indexed by severity − 1. */
export const SEVERITY_TABLE: Readonly<Record<DegradationKind, readonly [number, number, number]>> = {
  noise: [8, 16, 32],
  blur: [1, 2, 4],
  contrast: [0.7, 0.45, 0.25],
  jpeg: [30, 15, 5],
  downsample: [2, 4, 8],
};

const LABELS: Record<DegradationKind, (v: number) => string> = {
  noise: (v) => `Gaussian noise, σ = ${v} (0–255)`,
  blur: (v) => `Gaussian blur, σ = ${v} px`,
  contrast: (v) => `Contrast × ${v}`,
  jpeg: (v) => `JPEG quality ${v}`,
  downsample: (v) => `Down-sampled to 1/${v}`,
};

/** The parameter and a readable description of one kind at one severity. */
export function severityLevel(kind: DegradationKind, severity: Severity): SeverityLevel {
  const value = SEVERITY_TABLE[kind][severity - 1]!;
  return { value, label: LABELS[kind](value) };
}
