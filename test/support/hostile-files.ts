/**
 * Hostile inputs for the import tests of the app and the CLI, written into
 * folders from makeTempDir (deleted when the test ends): a benchmark CSV in
 * Latin-1 and in UTF-16, a CSV whose header names a column twice, an index
 * that names a DICOM file that cannot be read, a file past the size limit
 * (sparse: no disk is used), and run exports with an answer for a case the
 * benchmark does not have, an item answered twice, or other benchmark content.
 */
import { mkdirSync, openSync, closeSync, ftruncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchCase } from '../../src/core/bundle/types.ts';
import { encodePng } from '../../src/core/imaging/png-encode.ts';
import { itemKeyOf } from '../../src/core/runner/plan.ts';
import type { ResponseRecord } from '../../src/core/model/answer.ts';
import { serializeRunExport, toRunExport } from '../../src/core/scoring/io/run-export.ts';
import { testProvenance, testRun } from './run-record.ts';
import { makeTempDir } from './temp-dir.ts';

/** A word that survives only a right decoding: é and è are one byte each in Latin-1, two in UTF-8. */
export const MENIERE = "Ménière's disease";

export type CsvEncoding = 'utf-8' | 'latin1' | 'utf-16le' | 'utf-16be';

/** Text as a file in this encoding: UTF-16LE with its byte-order mark, UTF-16BE without one (found by its zero bytes). */
export function encodeAs(text: string, encoding: CsvEncoding): Uint8Array {
  if (encoding === 'utf-8') return new TextEncoder().encode(text);
  if (encoding === 'latin1') return Uint8Array.from(text, (c) => c.charCodeAt(0));
  const le = Buffer.from(text, 'utf16le');
  if (encoding === 'utf-16le') return Uint8Array.from([0xff, 0xfe, ...le]);
  return Uint8Array.from(le, (_, i) => le[i ^ 1]!);
}

function png(seed: number): Uint8Array {
  return encodePng(Uint8Array.from({ length: 32 * 32 }, (_, i) => (i * seed) & 0xff), 32, 32);
}

/** The NeuroVLM-Bench index of {@link encodedBenchmark}: line 2 holds {@link MENIERE}. */
export const INDEX_CSV = ['dataset,file_path,class,original_class,modality,modality_subtype,plane', `ent,a.png,stroke,${MENIERE},MRI,FLAIR,axial`, 'ent,b.png,tumor,glioma,MRI,T1,axial', ''].join('\n');

/** A NeuroVLM-Bench folder (index.csv in `encoding`, two PNGs); `dir` is the folder to pick. */
export function encodedBenchmark(encoding: CsvEncoding): { dir: string; csv: string } {
  const dir = join(makeTempDir('encoding'), `bench-${encoding}`);
  mkdirSync(dir, { recursive: true });
  const csv = join(dir, 'index.csv');
  writeFileSync(csv, encodeAs(INDEX_CSV, encoding));
  writeFileSync(join(dir, 'a.png'), png(3));
  writeFileSync(join(dir, 'b.png'), png(5));
  return { dir, csv };
}

/** cases.csv whose header names "question" twice (columns 2 and 4). */
export function duplicateHeaderCsv(): string {
  const path = join(makeTempDir('dup-header'), 'cases.csv');
  writeFileSync(path, 'id,question,answer,question\nc1,Which lobe?,frontal,Which side?\n');
  return path;
}

/** A NeuroVLM-Bench folder whose index names `bad.dcm`: a DICOM preamble and magic, then bytes no reader can use. */
export function badDicomBenchmark(): string {
  const dir = join(makeTempDir('bad-dicom'), 'bench');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'index.csv'), 'dataset,file_path,class,modality,plane\nd,a.png,stroke,MRI,axial\nd,bad.dcm,stroke,MRI,axial\n');
  writeFileSync(join(dir, 'a.png'), png(7));
  const bad = new Uint8Array(200);
  bad.set([0x44, 0x49, 0x43, 0x4d], 128);
  bad.set([2, 0, 0x10, 0, 0x55, 0x49, 4, 0, 1, 2, 3, 4], 132);
  writeFileSync(join(dir, 'bad.dcm'), bad);
  return dir;
}

/** A file of `bytes` bytes (default 2 GiB + 1) that takes no disk space: nothing in it is ever read. */
export function hugeFile(name: string, bytes = 2 ** 31 + 1): string {
  const path = join(makeTempDir('huge'), name);
  const fd = openSync(path, 'w');
  try {
    ftruncateSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
  return path;
}

type CaseIds = Pick<BenchCase, 'id'> & { questions: readonly { id: string }[] };

function answer(runId: string, caseId: string, questionId: string): ResponseRecord {
  const itemKey = itemKeyOf({ caseId, questionId, modelId: 'm', variant: 'none', sample: 0 });
  return {
    id: `${runId}/${itemKey}`, runId, itemKey, caseId, questionId, cacheKey: '', modelId: 'm', variant: 'none', sample: 0, rawText: 'Glioblastoma',
    parsed: null, parseError: null, usage: { promptTokens: 10, completionTokens: 5, ttftMs: 1, prefillTps: 100, decodeTps: 10 }, latencyMs: 100, finishReason: 'stop', createdAt: 1,
  };
}

/**
 * Run exports made on `benchmark` answering the first question of each of
 * `cases`: `ghost` adds an answer for case "ghost-case" (n + 1 answers on an
 * n-item plan), `duplicate` answers the first item twice, `otherContent`
 * claims another content hash. Written as files in a temp folder.
 */
export function hostileRunExports(benchmark: { id: string; contentHash: string }, cases: readonly CaseIds[]): { ghost: string; duplicate: string; otherContent: string; items: number } {
  const dir = makeTempDir('run-exports');
  const make = (runId: string, contentHash: string, extra: (rs: ResponseRecord[]) => ResponseRecord[]): string => {
    const answers = cases.map((c) => answer(runId, c.id, c.questions[0]!.id));
    const run = testRun({
      id: runId, name: `Run ${runId}`, benchmarkId: benchmark.id,
      provenance: testProvenance({ benchmark: { id: benchmark.id, contentHash } }),
      plan: { cases: cases.length, models: 1, variants: 1, samples: 1, items: cases.length },
    });
    const path = join(dir, `${runId}.json`);
    writeFileSync(path, serializeRunExport(toRunExport(run, extra(answers))));
    return path;
  };
  return {
    ghost: make('ghost', benchmark.contentHash, (rs) => [...rs, answer('ghost', 'ghost-case', cases[0]!.questions[0]!.id)]),
    duplicate: make('duplicate', benchmark.contentHash, (rs) => [...rs, { ...rs[0]!, rawText: 'Meningioma' }]),
    otherContent: make('other-content', 'e'.repeat(64), (rs) => rs),
    items: cases.length,
  };
}
