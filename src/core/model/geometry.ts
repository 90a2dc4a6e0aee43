/** Words for images and figures that every layer shares: the anatomical plane of a slice, and an interval around an estimate. */

/** The anatomical plane of a 2-D slice. */
export type Plane = 'axial' | 'sagittal' | 'coronal';

/** A confidence interval's bounds, on the figure's own scale. */
export interface Interval {
  readonly lower: number;
  readonly upper: number;
}
