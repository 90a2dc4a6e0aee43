/**
 * A reader study: clinicians answer a benchmark's cases blind, and each
 * reader's answers are stored as a run of their own (one "model" whose id is
 * `reader:<pseudonym>`), so the same scorer, with the same rules, scores
 * readers and models and their figures are comparable. A reader run has no
 * `config` (nothing can start it) and its provenance names the reader.
 */
import type { BenchCase, ProtocolDefaults } from '../bundle/types.ts';
import type { BenchmarkRecord } from '../bundle/records.ts';
import type { RunRecord } from '../runner/records.ts';
import type { Timestamp } from '../model/answer.ts';
import { InvalidInputError } from '../errors.ts';
import { isAskedMetric } from './answer.ts';
import { sha256Hex } from '../hash/sha256.ts';
import { getProtocol, protocolFor } from '../protocols/registry.ts';
import type { Protocol } from '../protocols/types.ts';
import { mulberry32 } from '../random/mulberry32.ts';
import { compareIds } from '../text/compare-ids.ts';
import { PROVENANCE_SCHEMA } from '../runner/provenance.ts';
import { READER_RUNTIME, readerLabel, readerModelId, readerOf, type ReaderIdentity } from './identity.ts';

export { READER_RUNTIME, isReaderModelId, isReaderRun, readerLabel, readerModelId, readerOf, type ReaderIdentity } from './identity.ts';

/** One question a reader answers. */
export interface ReaderItem {
  readonly caseId: string;
  readonly questionId: string;
}

/**
 * How a run's answers are scored (scoreRun's `askedOnly`): a reader's only on
 * the metrics of what their form asked (answer.ts `isAskedMetric`); a model
 * run's on everything (undefined).
 */
export function askedOnlyFor(run: Pick<RunRecord, 'provenance'>): ((protocolId: string, metric: string) => boolean) | undefined {
  return readerOf(run) ? isAskedMetric : undefined;
}

/**
 * The reader's run id: the same benchmark, case set and pseudonym give the
 * same run, so a reader who comes back resumes where they stopped.
 */
export function readerRunId(benchmarkId: string, pseudonym: string, sourceRunId: string | null): string {
  return `reader-${sha256Hex(`${benchmarkId}\u0000${sourceRunId ?? ''}\u0000${pseudonym.trim()}`).slice(0, 16)}`;
}

/**
 * The order one reader sees the questions in: shuffled with a seed from the
 * pseudonym (Fisher–Yates over mulberry32), so readers do not all meet the
 * cases in the same order (order effects), and one reader's order is the
 * same on every visit.
 */
export function readerOrder<T extends ReaderItem>(items: readonly T[], pseudonym: string): T[] {
  const sorted = [...items].sort((a, b) => a.caseId.localeCompare(b.caseId, 'en', { numeric: true }) || a.questionId.localeCompare(b.questionId, 'en', { numeric: true }));
  const random = mulberry32(parseInt(sha256Hex(pseudonym.trim()).slice(0, 8), 16));
  for (let i = sorted.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [sorted[i], sorted[j]] = [sorted[j]!, sorted[i]!];
  }
  return sorted;
}

/**
 * Neutral labels for the cases a reader sees ("Case 7"): numbered in an order
 * shuffled with a seed from the benchmark and the case set, so a label says
 * nothing of the stored id (ids often name the answer: "direct-stroke-01"),
 * and every reader of the same cases meets the same label for a case, which
 * they can then discuss. The key (label → case) is this function.
 */
export function readerCaseLabels(benchmarkId: string, caseIds: readonly string[]): Map<string, string> {
  const ids = [...new Set(caseIds)].sort(compareIds);
  const random = mulberry32(parseInt(sha256Hex(`${benchmarkId}\u0000${ids.join('\u0000')}`).slice(0, 8), 16));
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  }
  return new Map(ids.map((id, k) => [id, `Case ${k + 1}`]));
}

/** Every question of the given cases (all of the benchmark's, or those a run answered: `caseIds`). */
export function readerItems(cases: readonly BenchCase[], caseIds?: readonly string[] | null): ReaderItem[] {
  const only = caseIds ? new Set(caseIds) : null;
  return cases.filter((c) => !only || only.has(c.id)).flatMap((c) => c.questions.map((q) => ({ caseId: c.id, questionId: q.id })));
}

/** The protocol a reader answers a case in: the study's fixed one, or the case's default (`auto`). */
export function readerProtocol(protocolId: string, kase: BenchCase, defaults?: ProtocolDefaults): Protocol {
  if (protocolId === 'auto') return protocolFor(kase, defaults);
  const p = getProtocol(protocolId);
  if (!p) throw new InvalidInputError(`The protocol "${protocolId}" is not one this version knows.`, { field: 'protocol' });
  return p;
}

export interface ReaderRunInputs {
  readonly benchmark: Pick<BenchmarkRecord, 'id' | 'name' | 'version' | 'contentHash'>;
  readonly reader: ReaderIdentity;
  /** The run whose cases the readers answer, so they see exactly what the models answered; null for every case. */
  readonly sourceRun: Pick<RunRecord, 'id' | 'name'> | null;
  /** The protocol the answers are scored with: the source run's, or `auto`. */
  readonly protocol: { readonly id: string; readonly version: string };
  readonly items: readonly ReaderItem[];
  readonly app: { readonly version: string; readonly commit: string };
  readonly now: Timestamp;
}

/** A new reader run: status `running` until every question is answered. */
export function readerRunRecord(input: ReaderRunInputs): RunRecord {
  const { benchmark, reader, sourceRun, now } = input;
  const pseudonym = reader.pseudonym.trim();
  if (!pseudonym) throw new InvalidInputError('A reader needs a pseudonym.', { field: 'pseudonym' });
  return {
    id: readerRunId(benchmark.id, pseudonym, sourceRun?.id ?? null),
    benchmarkId: benchmark.id,
    name: `${readerLabel({ ...reader, pseudonym })}${sourceRun ? ` · cases of ${sourceRun.name}` : ''}`,
    status: 'running',
    createdAt: now,
    updatedAt: now,
    config: null,
    provenance: {
      schema: PROVENANCE_SCHEMA,
      app: input.app,
      runtimes: {},
      environment: { userAgent: '', crossOriginIsolated: false, wasmThreads: null, adapter: null },
      models: [{ id: readerModelId(pseudonym), label: readerLabel({ ...reader, pseudonym }), runtime: READER_RUNTIME, quantization: null, files: [], filesHash: '' }],
      engines: {},
      protocol: { id: input.protocol.id, version: input.protocol.version, templateHashes: {} },
      sampling: { temperature: 0, topP: 1, seed: 0, maxTokens: 0 },
      samples: 1,
      variants: ['none'],
      benchmark: { id: benchmark.id, contentHash: benchmark.contentHash, name: benchmark.name, version: benchmark.version },
      // The case set readers answer (a run's cases) is kept as the run's selection, so a revisit shows the same ones.
      selection: sourceRun ? { caseIds: [...new Set(input.items.map((i) => i.caseId))] } : null,
      startedAt: now,
      endedAt: null,
    },
    plan: { cases: new Set(input.items.map((i) => i.caseId)).size, models: 1, variants: 1, samples: 1, items: input.items.length },
  };
}
