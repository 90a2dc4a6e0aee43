/**
 * The formats a run can be written in for other tools, by one name each (the
 * CLI's `--format`, the app's menu).
 */
import { everyEvalEverFiles } from './every-eval-ever.ts';
import { inspectFiles } from './inspect.ts';
import { lmEvalFiles } from './lm-eval.ts';
import type { ExportFile, ExportSource } from './common.ts';

export type { ExportFile, ExportScores, ExportSource } from './common.ts';

export const FOREIGN_EXPORT_FORMATS = {
  'inspect-json': { label: 'Inspect AI eval log (.json)', files: (s: ExportSource) => inspectFiles(s, 'json') },
  'inspect-eval': { label: 'Inspect AI eval log (.eval)', files: (s: ExportSource) => inspectFiles(s, 'eval') },
  'lm-eval': { label: 'lm-evaluation-harness results and samples', files: lmEvalFiles },
  'every-eval-ever': { label: 'Every Eval Ever records', files: everyEvalEverFiles },
} as const satisfies Record<string, { label: string; files: (s: ExportSource) => ExportFile[] }>;

export type ForeignExportFormat = keyof typeof FOREIGN_EXPORT_FORMATS;

export function isForeignExportFormat(f: string): f is ForeignExportFormat {
  return Object.hasOwn(FOREIGN_EXPORT_FORMATS, f);
}

/** The files of a run in another tool's format. */
export function exportForeign(format: ForeignExportFormat, source: ExportSource): ExportFile[] {
  return FOREIGN_EXPORT_FORMATS[format].files(source);
}
