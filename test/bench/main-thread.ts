/**
 * Main-thread responsiveness collectors shared by the browser suites that
 * drive the real UI (import throughput, the UI run): long tasks and long
 * animation frames observed in the page, and the helpers that attribute a
 * long task to the scripts of the frame it fell in.
 */
import type { Page } from '@playwright/test';

export interface LoafScript {
  invoker: string;
  invokerType: string;
  sourceURL: string;
  sourceFunctionName: string;
  sourceCharPosition: number;
  duration: number;
  forcedStyleAndLayoutDuration: number;
}

export interface Loaf {
  startTime: number;
  duration: number;
  blockingDuration: number;
  renderStart: number;
  styleAndLayoutStart: number;
  scripts: LoafScript[];
}

export interface LongTask {
  startTime: number;
  duration: number;
  name: string;
  attribution: string[];
}

export interface MainThreadLog {
  longTasks: LongTask[];
  loafs: Loaf[];
  /** False where this Chromium has no long-animation-frame entries. */
  loafSupported: boolean;
}

/** A task longer than this blocks input noticeably (the Long Tasks API threshold). */
export const LONG_TASK_MS = 50;

const KEY = '__benchMainThread';

/**
 * Starts observing long tasks and long animation frames (buffered, so
 * entries from before the call count too). Runs in the page through
 * `page.evaluate(installMainThreadCollectors, KEY)`: it closes over nothing.
 */
function installMainThreadCollectors(key: string): void {
  const log: MainThreadLog = { longTasks: [], loafs: [], loafSupported: false };
  (window as unknown as Record<string, MainThreadLog>)[key] = log;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const attribution = ((e as PerformanceEntry & { attribution?: PerformanceEntry[] }).attribution ?? []).map((a) => {
        const t = a as PerformanceEntry & { containerType?: string; containerName?: string; containerSrc?: string };
        return `${t.name}/${t.containerType ?? ''}${t.containerName ? `:${t.containerName}` : ''}${t.containerSrc ? `:${t.containerSrc}` : ''}`;
      });
      log.longTasks.push({ startTime: e.startTime, duration: e.duration, name: e.name, attribution });
    }
  }).observe({ type: 'longtask', buffered: true });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const f = e as PerformanceEntry & Omit<Loaf, 'scripts'> & { scripts: LoafScript[] };
        log.loafs.push({
          startTime: f.startTime,
          duration: f.duration,
          blockingDuration: f.blockingDuration,
          renderStart: f.renderStart,
          styleAndLayoutStart: f.styleAndLayoutStart,
          scripts: f.scripts.map((s) => ({
            invoker: s.invoker,
            invokerType: s.invokerType,
            sourceURL: s.sourceURL,
            sourceFunctionName: s.sourceFunctionName,
            sourceCharPosition: s.sourceCharPosition,
            duration: s.duration,
            forcedStyleAndLayoutDuration: s.forcedStyleAndLayoutDuration,
          })),
        });
      }
    }).observe({ type: 'long-animation-frame', buffered: true });
    log.loafSupported = true;
  } catch {
    // No long-animation-frame support: long tasks are still counted, just not attributed.
  }
}

export async function startMainThreadCollectors(page: Page): Promise<void> {
  await page.evaluate(installMainThreadCollectors, KEY);
}

export async function readMainThreadLog(page: Page): Promise<MainThreadLog> {
  const log = await page.evaluate((key) => (window as unknown as Record<string, MainThreadLog | undefined>)[key], KEY);
  if (!log) throw new Error('the main-thread collectors were not started in this page');
  return log;
}

export interface PhaseSummary {
  count: number;
  longestMs: number;
  totalMs: number;
}

/** Long tasks counted per phase of the measured action (count, longest, total). */
export function tasksByPhase(tasks: readonly { readonly phase: string; readonly duration: number }[]): Record<string, PhaseSummary> {
  const byPhase: Record<string, PhaseSummary> = {};
  for (const t of tasks) {
    const p = (byPhase[t.phase] ??= { count: 0, longestMs: 0, totalMs: 0 });
    p.count++;
    p.longestMs = Math.max(p.longestMs, t.duration);
    p.totalMs += t.duration;
  }
  return byPhase;
}

/** The long animation frame a task ran in, if any overlaps it. */
export function loafOf(loafs: readonly Loaf[], t: { startTime: number; duration: number }): Loaf | undefined {
  return loafs.find((f) => f.startTime < t.startTime + t.duration && f.startTime + f.duration > t.startTime);
}

/** One line naming the three longest scripts of a frame and its rendering time. */
export function describeLoaf(loaf: Loaf | undefined): string {
  if (!loaf) return 'no long-animation-frame entry';
  const scripts = [...loaf.scripts]
    .sort((a, b) => b.duration - a.duration)
    .slice(0, 3)
    .map(
      (s) =>
        `${s.invokerType} ${s.invoker} (${s.sourceFunctionName || 'anonymous'} in ${s.sourceURL.replace(/^.*\//, '')}:${s.sourceCharPosition}) ${s.duration.toFixed(0)} ms${s.forcedStyleAndLayoutDuration > 1 ? `, forced layout ${s.forcedStyleAndLayoutDuration.toFixed(0)} ms` : ''}`,
    );
  const render = loaf.renderStart > 0 ? loaf.startTime + loaf.duration - loaf.renderStart : 0;
  return `${scripts.join('; ') || 'no script'}; rendering ${render.toFixed(0)} ms`;
}
