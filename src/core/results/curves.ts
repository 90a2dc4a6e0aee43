/** The series the charts draw: reliability bins of a row, and each model's metric by degradation severity. */
import { reliabilityPoints, type ReliabilityPoint } from '../scoring/metrics/calibration.ts';

import { type LeaderboardRow, type ScoredRun } from './leaderboard.ts';

/** Reliability bins of a row from its answers' stated confidence and primary 0/1 outcome. */
export function rowReliability(run: Pick<ScoredRun, 'items'>, row: Pick<LeaderboardRow, 'modelId' | 'variant'>): ReliabilityPoint[] {
  const conf: number[] = [];
  const correct: boolean[] = [];
  for (const it of run.items) {
    if (it.modelId !== row.modelId || it.variant !== row.variant || it.confidence === null || !it.primary) continue;
    const v = it.metrics[it.primary]?.value;
    if (v !== 0 && v !== 1) continue;
    conf.push(it.confidence);
    correct.push(v === 1);
  }
  return conf.length ? reliabilityPoints(conf, correct) : [];
}

export interface DegradationCurve {
  readonly modelId: string;
  readonly runId: string;
  readonly label: string;
  readonly kind: string;
  /** Severity 0 = no degradation. */
  readonly accuracy: readonly { readonly x: number; readonly y: number }[];
  readonly shift: readonly { readonly x: number; readonly y: number }[];
}

/** Accuracy (primary 0/1 metric) and calibration shift by severity, per model and degradation kind. */
export function degradationCurves(runs: readonly ScoredRun[]): DegradationCurve[] {
  const out: DegradationCurve[] = [];
  for (const { run, set, items } of runs) {
    const acc = new Map<string, { n: number; hits: number }>();
    const kinds = new Map<string, Set<string>>();
    for (const it of items) {
      const v = it.primary ? it.metrics[it.primary]?.value : null;
      if (v !== 0 && v !== 1) continue;
      const m = /^degrade:([^:]+):(\d+)$/.exec(it.variant);
      const entries = m ? [[m[1]!, Number(m[2])] as const] : it.variant === 'none' ? [['*', 0] as const] : [];
      for (const [kind, sev] of entries) {
        const key = `${it.modelId}\u0000${kind}\u0000${sev}`;
        const a = acc.get(key) ?? { n: 0, hits: 0 };
        a.n++;
        if (v === 1) a.hits++;
        acc.set(key, a);
        if (kind !== '*') kinds.set(it.modelId, (kinds.get(it.modelId) ?? new Set()).add(kind));
      }
    }
    for (const [modelId, ks] of kinds) {
      for (const kind of ks) {
        const points: { x: number; y: number }[] = [];
        const base = acc.get(`${modelId}\u0000*\u00000`);
        if (base) points.push({ x: 0, y: base.hits / base.n });
        for (const sev of [1, 2, 3]) {
          const a = acc.get(`${modelId}\u0000${kind}\u0000${sev}`);
          if (a) points.push({ x: sev, y: a.hits / a.n });
        }
        const shift = set.summary.calibrationShift.find((c) => c.modelId === modelId && c.kind === kind);
        out.push({
          modelId, runId: run.id, label: `${modelId} · ${kind}`, kind, accuracy: points,
          shift: (shift?.levels ?? []).map((l) => ({ x: Number(l.severity), y: l.shift })),
        });
      }
    }
  }
  return out;
}
