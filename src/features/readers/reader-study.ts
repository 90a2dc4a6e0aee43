/**
 * Reader-study actions: start (or resume) a reader's run, save one answer,
 * and mark the run done once every question is answered. Each answer is
 * stored as it is given, so a reader can stop at any point and come back.
 */
import type { CaseRecord } from '../../core/bundle/records.ts';
import type { ResponseRecord } from '../../core/model/answer.ts';
import type { RunRecord } from '../../core/runner/records.ts';
import { InvalidInputError } from '../../core/errors.ts';
import { readerForm, readerResponse, type ReaderAnswer } from '../../core/readers/answer.ts';
import { readerCaseLabels, readerItems, readerOf, readerProtocol, readerRunId, readerRunRecord, type ReaderItem } from '../../core/readers/study.ts';
import { getProtocol } from '../../core/protocols/registry.ts';
import { repos } from '../../lib/storage/app-db.ts';

export interface StartReading {
  readonly benchmarkId: string;
  readonly sourceRunId: string | null;
  readonly pseudonym: string;
  readonly role: string | null;
}

/** The reader's run id: an existing one is resumed, else a new one is stored. */
export async function startReading(input: StartReading): Promise<string> {
  const db = await repos();
  const benchmark = await db.benchmarks.require(input.benchmarkId);
  const id = readerRunId(benchmark.id, input.pseudonym, input.sourceRunId);
  if (await db.runs.get(id)) return id;
  const source = input.sourceRunId ? await db.runs.require(input.sourceRunId) : null;
  const cases = await db.cases.listByBenchmark(benchmark.id);
  const caseIds = source ? [...(await db.responses.caseIdsByRun(source.id))] : null;
  const items = readerItems(cases, caseIds);
  if (items.length === 0) throw new InvalidInputError('There is no case to read: the chosen run has no answers yet.', { field: 'source' });
  const protocolId = source ? (source.provenance.protocol.id ?? 'auto') : 'auto';
  const protocol = { id: protocolId, version: protocolId === 'auto' ? 'auto' : (getProtocol(protocolId)?.version ?? '') };
  await db.runs.put(readerRunRecord({
    benchmark, reader: { pseudonym: input.pseudonym, role: input.role }, sourceRun: source, protocol, items,
    app: { version: __APP_VERSION__, commit: __APP_COMMIT__ }, now: Date.now(),
  }));
  return id;
}

export interface ReaderWork {
  readonly run: RunRecord;
  readonly cases: ReadonlyMap<string, CaseRecord>;
  readonly items: readonly ReaderItem[];
  readonly defaults: Parameters<typeof readerProtocol>[2];
  /** The neutral label each case is shown under (never its stored id). */
  readonly labels: ReadonlyMap<string, string>;
}

/** What a reader works through: the run, its cases and questions. */
export async function loadReaderWork(runId: string): Promise<ReaderWork | null> {
  const db = await repos();
  const run = await db.runs.get(runId);
  if (!run || !readerOf(run)) return null;
  const benchmark = await db.benchmarks.get(run.benchmarkId);
  const cases = await db.cases.listByBenchmark(run.benchmarkId);
  const items = readerItems(cases, run.provenance.selection?.caseIds ?? null);
  return {
    run, cases: new Map(cases.map((c) => [c.id, c])), items,
    defaults: benchmark?.manifest.protocolDefaults,
    labels: readerCaseLabels(run.benchmarkId, items.map((i) => i.caseId)),
  };
}

/** Stores one answer (a dialogue's every turn); when it is the last missing one, the run is marked done. */
export async function saveAnswer(work: ReaderWork, item: ReaderItem, answers: readonly ReaderAnswer[], latencyMs: readonly number[]): Promise<ResponseRecord> {
  const db = await repos();
  const kase = work.cases.get(item.caseId);
  const question = kase?.questions.find((q) => q.id === item.questionId);
  if (!kase || !question) throw new InvalidInputError('This case is no longer in the benchmark.', { field: 'case' });
  const who = readerOf(work.run)!;
  const protocol = readerProtocol(work.run.provenance.protocol.id, kase, work.defaults);
  const row = readerResponse({
    runId: work.run.id, modelId: work.run.provenance.models[0]!.id, caseId: item.caseId, question,
    protocol, form: readerForm(protocol.id, question), answers, latencyMs, now: Date.now(),
  });
  await db.responses.put(row);
  const answered = await db.responses.countByRun(work.run.id);
  if (answered >= work.items.length && who) await db.runs.updateStatus(work.run.id, 'done');
  return row;
}
