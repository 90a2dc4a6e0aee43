/**
 * Deletion counts in words, for the confirmation that lists what will go and
 * the notice of what went. Pure, so it is tested in Node.
 */
import { count } from '../../core/text/plural.ts';
import type { DeletionCounts } from '../../core/db/index.ts';
import { formatBytes } from '../../core/text/units.ts';


/** Words for tables the counts name by their store name. */
const TABLE_WORDS: Readonly<Record<string, readonly [one: string, many: string]>> = {
  resultDigests: ['stored results summary', 'stored results summaries'],
};
const otherLine = (table: string, n: number) => {
  const [one, many] = TABLE_WORDS[table] ?? [`stored ${table} row`, `stored ${table} rows`];
  return count(n, one, many);
};

/** One line per kind of record removed, in the order a user thinks of them; kinds with none are left out. */
export function deletionLines(c: DeletionCounts): string[] {
  const lines = [
    c.benchmarks ? count(c.benchmarks, 'benchmark') : '',
    c.cases ? count(c.cases, 'case') : '',
    c.images ? `${count(c.images, 'image or bundle file', 'images and bundle files')} (${formatBytes(c.imageBytes)})` : '',
    c.runs ? count(c.runs, 'run') : '',
    c.answers ? count(c.answers, 'answer') : '',
    c.scores ? count(c.scores, 'answer score') : '',
    c.scoreSets ? count(c.scoreSets, 'score version') : '',
    c.reviews ? count(c.reviews, 'clinician review') : '',
    ...Object.entries(c.other).filter(([, n]) => n > 0).map(([table, n]) => otherLine(table, n)),
  ];
  return lines.filter((l) => l !== '');
}

/** What is kept or changed rather than removed: shared images, score versions to redo. */
export function deletionNotes(c: DeletionCounts): string[] {
  return [
    c.sharedImages ? `${count(c.sharedImages, 'image')} also used by another benchmark ${c.sharedImages === 1 ? 'is' : 'are'} kept.` : '',
    c.outdatedScoreSets ? `${count(c.outdatedScoreSets, 'score version')} that counted it will be marked outdated: re-score the run.` : '',
  ].filter((l) => l !== '');
}

/** "Deleted …: 2 cases, 1 run, …" — the notice shown where the action was. */
export function deletionSummary(kind: string, label: string, c: DeletionCounts): string {
  const lines = deletionLines(c);
  return `Deleted ${kind} "${label}"${lines.length ? `: ${lines.join(', ')}` : ''}.`;
}
