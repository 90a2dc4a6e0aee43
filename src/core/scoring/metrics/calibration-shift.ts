/**
 * Calibration shift under image degradation (MedQ-Deg, arXiv 2603.07769;
 * docs/protocols.md#related-protocols, "robustness to image quality"): per severity level,
 * shift = mean self-reported confidence − accuracy. Positive means
 * overconfident. `deltaFromBaseline` is the shift minus the shift at the
 * undegraded level (severity 0 / "none" / "L0"), so a model that grows more
 * overconfident as images degrade shows rising positive deltas.
 *
 * MedQ-Deg does not publish the exact formula; this is the stated definition
 * (gap between confidence and accuracy), computed on the same confidence
 * preparation as {@link prepareConfidence} (null → 0, clipped to [0, 1]).
 */
import { prepareConfidence } from './calibration.ts';

type Severity = string | number;

export interface DegradedItem {
  readonly severity: Severity;
  readonly confidence: number | null | undefined;
  readonly correct: boolean;
}

export interface SeverityShift {
  readonly severity: Severity;
  readonly n: number;
  readonly meanConfidence: number;
  readonly accuracy: number;
  /** meanConfidence − accuracy. */
  readonly shift: number;
  /** shift − baseline shift; null when no baseline level is present. */
  readonly deltaFromBaseline: number | null;
}

interface CalibrationShiftOptions {
  /** The undegraded level. Default: the first of 0, "0", "none", "L0", "l0" present. */
  readonly baseline?: Severity;
}

const DEFAULT_BASELINES: readonly Severity[] = [0, '0', 'none', 'L0', 'l0'];

function compareSeverity(a: Severity, b: Severity): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), 'en', { numeric: true });
}

/**
 * Shift per severity level, ordered with the baseline first and the other
 * levels in natural order (numbers ascending, "L1" before "L10").
 * Empty input → empty list.
 */
export function calibrationShift(items: readonly DegradedItem[], options: CalibrationShiftOptions = {}): SeverityShift[] {
  const groups = new Map<Severity, { n: number; conf: number; hits: number }>();
  for (const item of items) {
    const g = groups.get(item.severity) ?? { n: 0, conf: 0, hits: 0 };
    g.n++;
    g.conf += prepareConfidence(item.confidence);
    if (item.correct) g.hits++;
    groups.set(item.severity, g);
  }
  const baseline = options.baseline !== undefined
    ? (groups.has(options.baseline) ? options.baseline : undefined)
    : DEFAULT_BASELINES.find((s) => groups.has(s));
  const levels = [...groups.keys()].sort((a, b) => {
    if (a === baseline) return -1;
    if (b === baseline) return 1;
    return compareSeverity(a, b);
  });
  const shiftOf = (g: { n: number; conf: number; hits: number }): number => g.conf / g.n - g.hits / g.n;
  const base = baseline === undefined ? undefined : groups.get(baseline);
  const baseShift = base === undefined ? null : shiftOf(base);
  return levels.map((severity) => {
    const g = groups.get(severity)!;
    const shift = shiftOf(g);
    return {
      severity,
      n: g.n,
      meanConfidence: g.conf / g.n,
      accuracy: g.hits / g.n,
      shift,
      deltaFromBaseline: baseShift === null ? null : shift - baseShift,
    };
  });
}
