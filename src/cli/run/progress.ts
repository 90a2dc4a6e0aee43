/**
 * Progress of a CLI run on stderr: a one-line bar redrawn in place when
 * stderr is a terminal, otherwise a plain line now and then (every 10 % or
 * 30 s) that logs read well. Both show done/total, the ETA and the decode speed.
 */
import type { RunProgress } from '../../core/runner/types.ts';
import { decodeSpeedText } from '../../core/runner/decode-speed.ts';

export interface ProgressSink {
  write(text: string): unknown;
}

export interface ProgressOptions {
  readonly tty: boolean;
  /** Terminal width for the bar. */
  readonly columns?: number;
  readonly now?: () => number;
  /** Minimum ms between plain lines (default 30 s; a 10 % step prints sooner). */
  readonly lineEveryMs?: number;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '—';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** Draws progress events; call `end()` once the run stops. */
export class ProgressReporter {
  readonly #sink: ProgressSink;
  readonly #o: ProgressOptions;
  readonly #now: () => number;
  /** Answers and time at the first answer of this session: the ETA counts from there (model loading excluded). */
  #base: { done: number; at: number } | null = null;
  #last: RunProgress | null = null;
  #drawnAt = 0;
  #lineAt = 0;
  #lineDecile = -1;
  #dirty = false;

  constructor(sink: ProgressSink, options: ProgressOptions) {
    this.#sink = sink;
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** Seconds left at this session's pace, or null until two answers were stored in it. */
  eta(p: RunProgress): number | null {
    if (!this.#base || p.overall.done <= this.#base.done) return null;
    const rate = (p.overall.done - this.#base.done) / Math.max(1, this.#now() - this.#base.at);
    return (p.overall.total - p.overall.done) / rate / 1000;
  }

  update(p: RunProgress): void {
    if (p.latest && !this.#base) this.#base = { done: p.overall.done, at: this.#now() };
    this.#last = p;
    const now = this.#now();
    if (this.#o.tty) {
      if (now - this.#drawnAt < 100 && p.phase === 'running' && p.overall.done < p.overall.total) {
        this.#dirty = true;
        return;
      }
      this.#drawnAt = now;
      this.#dirty = false;
      this.#sink.write(`\r\x1b[2K${this.bar(p)}`);
      return;
    }
    if (p.phase === 'loading-model') {
      this.#sink.write(`loading ${p.modelId ?? 'model'}…\n`);
      return;
    }
    const decile = p.overall.total ? Math.floor((10 * p.overall.done) / p.overall.total) : 10;
    if (!p.latest || (decile === this.#lineDecile && now - this.#lineAt < (this.#o.lineEveryMs ?? 30_000))) return;
    this.#lineDecile = decile;
    this.#lineAt = now;
    this.#sink.write(`progress: ${this.summary(p)}\n`);
  }

  /** Finishes the bar line (terminal) so what follows starts on a line of its own. */
  end(): void {
    if (!this.#o.tty) return;
    if (this.#dirty && this.#last) this.#sink.write(`\r\x1b[2K${this.bar(this.#last)}`);
    if (this.#last) this.#sink.write('\n');
  }

  /** `12/40 (30%) · ETA 1m 20s · decode speed 45.2 tokens/s · self-test`. */
  summary(p: RunProgress): string {
    const { done, total } = p.overall;
    const pct = total ? Math.floor((100 * done) / total) : 100;
    const eta = this.eta(p);
    const parts = [`${done}/${total} (${pct}%)`, `ETA ${eta === null ? '—' : formatDuration(eta)}`, p.decodeTps === null ? 'decode speed —' : decodeSpeedText(p.decodeTps)];
    if (p.modelId) parts.push(p.modelId);
    return parts.join(' · ');
  }

  bar(p: RunProgress): string {
    if (p.phase === 'loading-model') return `loading ${p.modelId ?? 'model'}… ${p.overall.done}/${p.overall.total}`;
    const text = this.summary(p);
    const width = Math.max(10, Math.min(40, (this.#o.columns ?? 80) - text.length - 4));
    const { done, total } = p.overall;
    const filled = total ? Math.round((width * done) / total) : width;
    return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}`;
  }
}
