/**
 * `neuroeval score --fail-under <metric>=<value>`: a bar for pipelines. A
 * model passes when its 95 % interval's lower bound for the metric is at or
 * above the bar, so a lucky point estimate on a small run does not pass. For a
 * metric where lower is better (`mcq.invalid`) the upper bound must be at or
 * under the bar. The figures gated are NeuroEval's own (the same the app's
 * leaderboard shows), never the benchmark's.
 */
import { InvalidInputError } from '../../core/errors.ts';
import { LOWER_IS_BETTER } from '../../core/results/leaderboard.ts';
import type { NeuroVlmReport } from '../../core/scoring/neurovlm/score.ts';
import type { RunScoringResult } from '../../core/scoring/run/score-run.ts';

export interface Gate {
  readonly metric: string;
  readonly bar: number;
}

/** One model's figure for one metric, as a gate reads it. */
export interface GateFigure {
  readonly model: string;
  readonly metric: string;
  readonly value: number;
  readonly lower: number;
  readonly upper: number;
  readonly n: number;
}

export interface GateVerdict extends GateFigure {
  readonly bar: number;
  readonly pass: boolean;
  /** Which bound was compared: `lower` (higher is better) or `upper`. */
  readonly bound: 'lower' | 'upper';
  readonly reason: string;
}

/**
 * Reads `<metric>=<value>`; the value is a number or a percentage (`70%` is 0.7).
 * @throws InvalidInputError (a usage error) naming the option.
 */
export function parseGate(raw: string): Gate {
  const eq = raw.lastIndexOf('=');
  const metric = eq > 0 ? raw.slice(0, eq).trim() : '';
  const text = eq > 0 ? raw.slice(eq + 1).trim() : '';
  const pct = text.endsWith('%');
  const n = Number(pct ? text.slice(0, -1) : text);
  if (!metric || text === '' || !Number.isFinite(n)) {
    throw new InvalidInputError(`--fail-under needs <metric>=<value>, e.g. pass@1=0.6 or pass@1=60%, not "${raw}"`, { field: '--fail-under' });
  }
  return { metric, bar: pct ? n / 100 : n };
}

/** NeuroEval's own NeuroVLM-Bench analysis as gateable figures: field accuracy (Wilson) and macro-F1 (bootstrap). */
function neuroVlmFigures(model: string, report: NeuroVlmReport): GateFigure[] {
  return Object.values(report.fields).flatMap((f) => [
    { model, metric: `neurovlm.${f.field}.accuracy`, value: f.accuracy.value, lower: f.accuracy.wilson.lower, upper: f.accuracy.wilson.upper, n: f.scored },
    { model, metric: `neurovlm.${f.field}.macro_f1`, value: f.macroF1.value, lower: f.macroF1.bootstrap.lower, upper: f.macroF1.bootstrap.upper, n: f.scored },
  ]);
}

/** Every figure a gate can name: each arm's run metrics, and NeuroEval's NeuroVLM-Bench analysis per group. */
export function gateFigures(run: RunScoringResult | undefined, groups: readonly { readonly key: string; readonly report: NeuroVlmReport }[]): GateFigure[] {
  const out: GateFigure[] = [];
  for (const arm of run?.summary.arms ?? []) {
    for (const m of arm.metrics) out.push({ model: arm.key, metric: m.metric, value: m.mean, lower: m.ci.lower, upper: m.ci.upper, n: m.n });
  }
  for (const g of groups) out.push(...neuroVlmFigures(g.key, g.report));
  return out;
}

const fmt = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : 'undefined');

/**
 * Each gate against each model that has the metric.
 * @throws InvalidInputError (a usage error) for a metric no model has, listing those available.
 */
export function checkGates(gates: readonly Gate[], figures: readonly GateFigure[]): GateVerdict[] {
  const available = [...new Set(figures.map((f) => f.metric))].sort();
  const verdicts: GateVerdict[] = [];
  for (const gate of gates) {
    const mine = figures.filter((f) => f.metric === gate.metric);
    if (mine.length === 0) {
      throw new InvalidInputError(`--fail-under: no model has the metric "${gate.metric}". Available: ${available.join(', ') || 'none (nothing was scored)'}`, { field: '--fail-under' });
    }
    const bound = LOWER_IS_BETTER.has(gate.metric) ? 'upper' : 'lower';
    for (const f of mine) {
      const edge = bound === 'lower' ? f.lower : f.upper;
      // An interval that cannot be computed (nothing scored) cannot show the bar is met.
      const pass = Number.isFinite(edge) && (bound === 'lower' ? edge >= gate.bar : edge <= gate.bar);
      const interval = `95% CI [${fmt(f.lower)}, ${fmt(f.upper)}], mean ${fmt(f.value)}, n=${f.n}`;
      const reason = !Number.isFinite(edge)
        ? `${f.model}: ${gate.metric} has no interval (${interval}), so it cannot be shown to meet ${fmt(gate.bar)}`
        : bound === 'lower'
          ? `${f.model}: ${gate.metric} lower bound ${fmt(edge)} ${pass ? '≥' : '<'} bar ${fmt(gate.bar)} (${interval})`
          : `${f.model}: ${gate.metric} upper bound ${fmt(edge)} ${pass ? '≤' : '>'} bar ${fmt(gate.bar)}, lower is better (${interval})`;
      verdicts.push({ ...f, bar: gate.bar, pass, bound, reason });
    }
  }
  return verdicts;
}
