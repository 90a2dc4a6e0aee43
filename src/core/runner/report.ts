/**
 * A run's progress as it crosses from the runner worker to the page: the
 * runner's own report ({@link RunProgress}) without the answer, and the
 * answers stored since the last report, whole and in order. The backup folder
 * keeps every answer it has seen, so its last copy is complete even when the
 * database can no longer be read (a full disk closes it); a list, because a
 * batch stores several answers within one throttle interval and the throttle
 * concatenates their reports.
 */
import type { ItemIdentity, ResponseRecord } from '../model/answer.ts';
import type { Progress, ProgressDetail } from '../model/progress.ts';
import type { RunProgress } from './types.ts';

/** The runner's report as sent: its state, and what it stored. */
export function runReport(p: RunProgress): ProgressDetail & { kind: 'run' } {
  const { latest, ...run } = p;
  return { kind: 'run', run, rows: latest ? [latest] : [] };
}

/** The run's state and the answers stored since the last report, from a report {@link runReport} made; null for any other. */
export function runReportOf(p: Progress): { readonly run: RunProgress; readonly rows: readonly ResponseRecord[] } | null {
  if (p.detail?.kind !== 'run') return null;
  return { run: p.detail.run as RunProgress, rows: p.detail.rows as readonly ResponseRecord[] };
}

/** What the Runs page shows of a stored answer while the run goes: its text cut to a preview. */
export type AnswerPreview = ItemIdentity & {
  readonly text: string;
  readonly parseError: string | null;
  readonly finishReason: string;
};

export function answerPreview(r: ResponseRecord): AnswerPreview {
  return { itemKey: r.itemKey, caseId: r.caseId, questionId: r.questionId, modelId: r.modelId, variant: r.variant, sample: r.sample, text: r.rawText.slice(0, 400), parseError: r.parseError, finishReason: r.finishReason };
}
