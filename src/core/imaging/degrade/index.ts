/**
 * Image-degradation variants (MedQ-Deg style): an evaluation run can repeat a
 * benchmark with every image degraded by one kind of damage at one severity,
 * to measure how accuracy and calibration shift as image quality drops.
 *
 * A variant id is `degrade:<kind>:<severity>`; the parameters behind each id
 * live in `severities.ts`. {@link degradeImage} is deterministic: the same
 * pixels, variant and seed give the same bytes everywhere, so a re-run or a
 * run on another machine sends the model exactly the same image.
 */
import { InvalidInputError } from '../../errors.ts';
import { encodePng, type PngColor } from '../png-encode.ts';
import { encodeJpeg } from './jpeg-encode.ts';
import { addGaussianNoise, downsample, gaussianBlur, hashSeed, reduceContrast } from './ops.ts';
import type { RawImage } from './pixels.ts';
import { DEGRADATION_KINDS, type DegradationKind, type Severity, SEVERITIES, severityLevel } from './severities.ts';

export { encodeJpeg, type JpegOptions } from './jpeg-encode.ts';
export { addGaussianNoise, downsample, gaussianBlur, hashSeed, mulberry32, reduceContrast } from './ops.ts';
export { decodePng, type RawImage, rawImage } from './pixels.ts';
export {
  DEGRADATION_KINDS,
  type DegradationKind,
  type Severity,
  SEVERITIES,
  SEVERITY_TABLE,
  severityLevel,
  type SeverityLevel,
} from './severities.ts';

type DegradeVariantId = `degrade:${DegradationKind}:${Severity}`;

interface DegradeVariant {
  readonly kind: DegradationKind;
  readonly severity: Severity;
}

interface DegradedImage {
  readonly bytes: Uint8Array;
  readonly mime: 'image/png' | 'image/jpeg';
}

/** Every variant id, kind by kind, mild to severe (15 ids). */
export const VARIANT_IDS: readonly DegradeVariantId[] = DEGRADATION_KINDS.flatMap((kind) =>
  SEVERITIES.map((severity): DegradeVariantId => `degrade:${kind}:${severity}`),
);

const VARIANT_RE = /^degrade:([a-z]+):(\d+)$/;

/** True when `id` names a degradation variant this version knows. */
export function isDegradeVariant(id: string): id is DegradeVariantId {
  return (VARIANT_IDS as readonly string[]).includes(id);
}

/** Splits `degrade:<kind>:<severity>`; throws {@link InvalidInputError} for anything else. */
export function parseVariant(id: string): DegradeVariant {
  const m = VARIANT_RE.exec(id);
  if (!m) throw new InvalidInputError(`"${id}" is not an image-degradation variant; expected degrade:<kind>:<severity>, e.g. degrade:blur:2.`);
  const kind = DEGRADATION_KINDS.find((k) => k === m[1]);
  if (!kind) throw new InvalidInputError(`Unknown image degradation "${m[1]}" in "${id}"; known kinds: ${DEGRADATION_KINDS.join(', ')}.`);
  const severity = SEVERITIES.find((s) => String(s) === m[2]);
  if (severity === undefined) throw new InvalidInputError(`Unknown severity "${m[2]}" in "${id}"; severities are ${SEVERITIES.join(', ')}.`);
  return { kind, severity };
}

const PNG_COLOR: Record<RawImage['channels'], PngColor> = { 1: 'gray', 3: 'rgb', 4: 'rgba' };

/**
 * Applies one variant to decoded pixels and encodes the result: JPEG bytes
 * for `degrade:jpeg:*`, PNG for every other kind (so the only loss is the
 * intended one). `seed` should identify the image (its content hash): it is
 * combined with the variant id to seed the noise, so each image gets its own
 * noise and the same image always gets the same noise.
 */
export function degradeImage(raw: RawImage, variant: string, seed: string): DegradedImage {
  const { kind, severity } = parseVariant(variant);
  const { value } = severityLevel(kind, severity);
  if (kind === 'jpeg') return { bytes: encodeJpeg(raw, { quality: value }), mime: 'image/jpeg' };
  let out: RawImage;
  switch (kind) {
    case 'noise':
      out = addGaussianNoise(raw, value, hashSeed(`${seed}\u0000${variant}`));
      break;
    case 'blur':
      out = gaussianBlur(raw, value);
      break;
    case 'contrast':
      out = reduceContrast(raw, value);
      break;
    case 'downsample':
      out = downsample(raw, value);
      break;
  }
  return { bytes: encodePng(out.data, out.width, out.height, PNG_COLOR[out.channels]), mime: 'image/png' };
}
