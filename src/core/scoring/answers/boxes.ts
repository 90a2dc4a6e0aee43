/**
 * Bounding boxes: the reference boxes of a grounding question (MedSG-Bench,
 * referring and localisation tasks) against the boxes a model writes (read by
 * protocols/answers/box-parse.ts), by IoU. Coordinates are compared in one frame: a box given
 * as fractions of the image (all values ≤ 1), in Qwen's 0–1000 grid, or in
 * pixels is brought to fractions of its image before IoU.
 */

import type { BoxFrame } from '../../bundle/types.ts';
import type { Box } from '../../protocols/answers/box-parse.ts';

export type { Box, BoxFrame };
export { parseBoxes } from '../../protocols/answers/box-parse.ts';

/** A box in fractions of a `width` × `height` image. */
export function toFraction(box: Box, frame: BoxFrame, width: number, height: number): Box {
  if (frame === 'fraction') return box;
  if (frame === 'grid1000') return { x1: box.x1 / 1000, y1: box.y1 / 1000, x2: box.x2 / 1000, y2: box.y2 / 1000 };
  return { x1: box.x1 / width, y1: box.y1 / height, x2: box.x2 / width, y2: box.y2 / height };
}

/**
 * The frame a model's box is read in: the one the question asked for, except
 * that a box whose every value is ≤ 1 is read as fractions (models often
 * answer in fractions whatever they are asked; as pixels or on the 0–1000
 * grid such a box would be a speck in the corner). NeuroEval's reading.
 */
export function answerFrame(box: Box, asked: BoxFrame): BoxFrame {
  return Math.max(box.x1, box.y1, box.x2, box.y2) <= 1 ? 'fraction' : asked;
}

/** Intersection over union of two boxes (0 when either has no area). */
export function iou(a: Box, b: Box): number {
  const w = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1);
  const h = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
  const inter = w > 0 && h > 0 ? w * h : 0;
  const area = (x: Box) => Math.max(0, x.x2 - x.x1) * Math.max(0, x.y2 - x.y1);
  const union = area(a) + area(b) - inter;
  return union > 0 ? inter / union : 0;
}
