/** Image variants of a run: parse, check and list them. */
import { InvalidInputError } from '../errors.ts';
import { DEGRADE_KINDS, type DegradeKind, type DegradeSeverity, type ParsedVariant, type Variant } from './types.ts';

/** The paraphrase probe: the same question with the protocol's prompt reworded (src/core/protocols/paraphrase). */
export const PARAPHRASE_VARIANT = 'probe:paraphrase';

const SEVERITIES: readonly DegradeSeverity[] = [1, 2, 3];

/** Parses a variant string; `null` when it is not one. */
export function parseVariant(value: string): ParsedVariant | null {
  if (value === 'none' || value === 'text-only') return { kind: value };
  if (value === 'probe:mirror') return { kind: 'mirror' };
  if (value === PARAPHRASE_VARIANT) return { kind: 'paraphrase' };
  const m = /^degrade:([a-z]+):([1-3])$/.exec(value);
  if (!m || !(DEGRADE_KINDS as readonly string[]).includes(m[1]!)) return null;
  return { kind: 'degrade', degrade: m[1] as DegradeKind, severity: Number(m[2]) as DegradeSeverity };
}

export function isVariant(value: string): value is Variant {
  return parseVariant(value) !== null;
}

/** The variant string of a degradation. */
export function degradeVariant(kind: DegradeKind, severity: DegradeSeverity): Variant {
  return `degrade:${kind}:${severity}`;
}

/** Every variant, for pickers: `none`, `text-only`, the two consistency probes, then each kind at severities 1–3. */
export const ALL_VARIANTS: readonly Variant[] = [
  'none',
  'text-only',
  'probe:mirror',
  PARAPHRASE_VARIANT,
  ...DEGRADE_KINDS.flatMap((kind) => SEVERITIES.map((s) => degradeVariant(kind, s))),
];

/** Validates a list of variants: known, no duplicates, at least one. */
export function checkVariants(values: readonly string[]): Variant[] {
  if (values.length === 0) throw new InvalidInputError('Choose at least one variant.', { field: 'variants' });
  const seen = new Set<string>();
  for (const v of values) {
    if (!isVariant(v)) {
      throw new InvalidInputError(
        `Unknown variant "${v}": use none, text-only, probe:mirror, probe:paraphrase or degrade:<${DEGRADE_KINDS.join('|')}>:<1-3>.`,
        { field: 'variants' },
      );
    }
    if (seen.has(v)) throw new InvalidInputError(`Variant "${v}" is listed twice.`, { field: 'variants' });
    seen.add(v);
  }
  return [...values] as Variant[];
}

/** Each degradation in words, for people reading a run (the ids are stored; these are not). */
const DEGRADE_WORDS: Record<DegradeKind, string> = {
  noise: 'noise',
  blur: 'blur',
  contrast: 'reduced contrast',
  jpeg: 'JPEG compression',
  downsample: 'down-sampling',
};

/** A variant in plain words: `degrade:noise:2` → "noise, level 2"; an unknown id is returned as it is. */
export function variantLabel(value: string): string {
  const v = parseVariant(value);
  if (!v) return value;
  if (v.kind === 'none') return 'original images';
  if (v.kind === 'text-only') return 'text only (no images)';
  if (v.kind === 'mirror') return 'mirrored left–right (consistency probe)';
  if (v.kind === 'paraphrase') return 'paraphrased prompt (consistency probe)';
  return `${DEGRADE_WORDS[v.degrade]}, level ${v.severity} of 3`;
}
