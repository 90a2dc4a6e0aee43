/** The run-time estimate in words: the figure, and what it was measured on. */
import type { RunEstimate } from '../../core/runner/estimate.ts';
import type { LiveRemaining } from './live-estimate.ts';
import type { SpeedBasis } from './speed-records.ts';

/** "about 40 s", "about 2 min 40 s", "about 1 h 5 min". */
export function approxDuration(seconds: number): string {
  const s = Math.max(1, Math.round(seconds));
  if (s < 90) return `about ${s} s`;
  if (s < 3600) {
    const m = Math.floor(s / 60);
    // Seconds to the nearest 10 below 10 min; beyond that they are noise.
    const rest = m < 10 ? Math.round((s % 60) / 10) * 10 : 0;
    return rest === 60 ? `about ${m + 1} min` : `about ${m} min${rest ? ` ${rest} s` : ''}`;
  }
  const h = Math.floor(s / 3600);
  const m = Math.round((s % 3600) / 60);
  return `about ${h} h${m ? ` ${m} min` : ''}`;
}

export function deviceName(d: string): string {
  return d === 'wasm' ? 'WASM' : d === 'webgpu' ? 'WebGPU' : d;
}

/**
 * Where each model's part of the estimate comes from, e.g. "from 54 answers
 * of Demo-trained on WASM with this protocol on this machine, 6 s of it
 * loading the model", or why there is none yet.
 */
export function estimateBasis(estimate: RunEstimate, records: Readonly<Record<string, SpeedBasis>>, labelOf: (id: string) => string, device: string): string {
  return estimate.perModel
    .map((m) => {
      const r = records[m.modelId];
      if (!r || m.seconds === null) return `no measured speed yet for ${labelOf(m.modelId)} on ${deviceName(device)}: the estimate will appear after the first answers`;
      const protocol =
        m.unmeasuredItems === 0
          ? 'with this protocol'
          : m.unmeasuredItems === m.items
            ? 'with other protocols (this one not measured yet: its answers taken as long as under them, its prompts from their text)'
            : `(${m.unmeasuredItems} of ${m.items} requests use a protocol not measured yet, priced from this model's answers under the others)`;
      const load = m.loadS >= 1 ? `, ${Math.round(m.loadS)} s of it loading the model${m.warm ? '' : ' and its first, slower answers'}` : '';
      return `from ${r.answers} answer${r.answers === 1 ? '' : 's'} of ${labelOf(m.modelId)} on ${deviceName(r.device)} ${protocol} on this machine${load}`;
    })
    .join('; ');
}

/** "Demo-trained model's part", "the parts of A and B"; an empty id stands for models not known by name. */
function partsOf(ids: readonly string[], labelOf: (id: string) => string): string {
  if (ids.length === 1 && ids[0] === '') return "the other models' part";
  const names = ids.map((id) => (id === '' ? 'the other models' : labelOf(id)));
  if (names.length === 1) return `${names[0]}'s part`;
  return `the parts of ${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/**
 * The run form's estimate: the whole run's, or the sum of the models that
 * have a measured speed and which models' parts are not known yet (never a
 * model priced at another's rate); "not known yet" when none is measured.
 */
export function estimateText(estimate: RunEstimate, labelOf: (id: string) => string): string {
  if (estimate.seconds !== null) return approxDuration(estimate.seconds);
  const known = estimate.perModel.filter((m) => m.seconds !== null);
  if (!known.length) return 'not known yet';
  const unknown = estimate.perModel.filter((m) => m.seconds === null).map((m) => m.modelId);
  const sum = known.reduce((n, m) => n + m.seconds!, 0);
  return `${approxDuration(sum)} for ${known.map((m) => labelOf(m.modelId)).join(', ')}, plus ${partsOf(unknown, labelOf)} (not known yet)`;
}

/**
 * The live view's remaining time, with where it comes from, and the models
 * whose part is not known yet (no measured speed here and too few answers).
 */
export function remainingText(r: LiveRemaining | null, liveAnswers: number, labelOf: (id: string) => string = (id) => id): string {
  if (r === null) return 'time left: measuring the first answers…';
  const unknown = r.unknown.length ? `, plus ${partsOf(r.unknown, labelOf)}: not known yet (no speed measured on this machine)` : '';
  if (r.seconds <= 0) return unknown ? `time left${unknown}` : 'finishing';
  const left = `${approxDuration(r.seconds)} left`;
  const n = `${liveAnswers} answer${liveAnswers === 1 ? '' : 's'}`;
  const basis =
    r.basis === 'record'
      ? 'from earlier answers on this machine; updated once answers arrive'
      : r.basis === 'live'
        ? `at this run's rate over ${n}`
        : `this run's rate over ${n}, blended with earlier answers on this machine`;
  return `${left} (${basis})${unknown}`;
}
