/**
 * Bench page (served by the Vite dev server that test/bench/suites/idb-write.ts
 * starts): writes realistic model responses through the app's own responses
 * repository into a fresh IndexedDB database, and puts the timing on
 * `window.__benchResult`. Parameters come from the query string:
 * `?rows=100000&batch=1000`. Only the `putBatch` calls are timed; generating
 * the rows is not.
 */
import Dexie from 'dexie';
import { createRepositories, openDatabase, SCHEMA, SCHEMA_VERSION } from '../../../src/core/db/index.ts';
import type { ResponseRecord } from '../../../src/core/model/answer.ts';
import { mulberry32 } from '../../../src/core/random/mulberry32.ts';
import { dexieRunStore } from '../../../src/core/stored/run-store.ts';

export interface IdbWriteResult {
  rows: number;
  batchSize: number;
  batches: number;
  /** Sum of `JSON.stringify(row).length` over all rows (≈ bytes for this ASCII text). */
  jsonBytes: number;
  /** Mean `rawText` length per row, in characters. */
  rawTextChars: number;
  /** Time spent inside `putBatch`, summed over batches. */
  writeMs: number;
  /** Wall time of the whole write loop, row generation included. */
  loopMs: number;
  rowsPerSec: number;
  /** 10^6 JSON bytes per second of `writeMs`. */
  mbPerSec: number;
  /** Slowest single batch. */
  maxBatchMs: number;
  /** Rows counted back from the table after writing. */
  counted: number;
  /** The database was deleted afterwards and is no longer listed. */
  deleted: boolean;
}

/**
 * `?mode=compare`: the runner's own answer writes (`dexieRunStore(repos).saveResponse`,
 * each batch's answers saved together) against a bare Dexie `bulkPut` of the same
 * rows into a table with the same indexes, batch by batch in the same page, the
 * order alternating. Then a few answers saved one at a time, each awaited, as the
 * runner does with one request in flight.
 */
export interface IdbCompareResult {
  rows: number;
  batchSize: number;
  /** Time inside the app's saves (summed over batches). */
  appMs: number;
  /** Time inside the bare `bulkPut`s. */
  bareMs: number;
  /**
   * App throughput ÷ bare throughput: the median, over pairs of batches (one
   * written app first, the other bare first, so the order evens out), of the
   * bare writes' time ÷ the app's; a load spike on the machine moves one
   * pair, not the figure.
   */
  ratio: number;
  /** The same from the summed times (bareMs ÷ appMs). */
  totalRatio: number;
  appRowsPerSec: number;
  bareRowsPerSec: number;
  /** Answers saved one at a time, each awaited before the next. */
  sequentialRows: number;
  sequentialRowsPerSec: number;
  counted: { app: number; bare: number };
  deleted: boolean;
}

declare global {
  interface Window {
    __benchResult?: IdbWriteResult;
    __benchCompare?: IdbCompareResult;
    __benchError?: string;
  }
}


const FINDINGS = [
  'a T2/FLAIR hyperintense lesion in the left periventricular white matter',
  'restricted diffusion in the right MCA territory with low ADC values',
  'no midline shift or effacement of the basal cisterns',
  'ring-enhancing lesion with surrounding vasogenic oedema in the right frontal lobe',
  'symmetric T2 hyperintensity of the bilateral thalami',
  'a dural-based extra-axial mass with a dural tail and homogeneous enhancement',
  'susceptibility artefact consistent with microhaemorrhages at the grey-white junction',
  'ovoid lesions perpendicular to the lateral ventricles (Dawson fingers)',
  'hippocampal volume loss, more marked on the left',
  'ventricular enlargement out of proportion to sulcal widening',
  'a hyperdense basilar artery on the non-contrast CT',
  'cortical ribboning on diffusion-weighted images',
];
const DIAGNOSES = [
  'multiple sclerosis',
  'acute ischaemic stroke',
  'glioblastoma',
  'meningioma',
  'cerebral abscess',
  'normal pressure hydrocephalus',
  'Creutzfeldt-Jakob disease',
  'diffuse axonal injury',
  'Alzheimer disease',
  'basilar artery thrombosis',
];
const CLAUSES = [
  'The distribution of the signal abnormality favours',
  'Taken together with the clinical history, this pattern is most consistent with',
  'The absence of enhancement argues against',
  'Given the patient age and the acute onset, the leading consideration is',
  'Although the appearance can overlap with',
  'The diffusion characteristics help to distinguish this from',
  'Follow-up imaging would be expected to show evolution typical of',
  'A demyelinating process remains possible, but the morphology suggests',
];
const MODELS = ['qwen2.5-vl-3b-instruct-q4f16', 'smolvlm-2.2b-instruct-q4f16', 'phi-3.5-vision-instruct-q4f16', 'gemma-3-4b-it-q4f16'];
const VARIANTS = ['direct', 'chain-of-thought', 'few-shot'];
const TARGET_RAW_CHARS = 1500;

function pick<T>(rand: () => number, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)]!;
}

function hex(rand: () => number, chars: number): string {
  let s = '';
  while (s.length < chars) s += Math.floor(rand() * 0x100000000).toString(16).padStart(8, '0');
  return s.slice(0, chars);
}

/** One response as a model run would store it: ~1.5 KB of fenced JSON, its parse, usage figures. */
function makeRow(rand: () => number, runId: string, index: number, createdAt: number): ResponseRecord {
  const model = pick(rand, MODELS);
  const variant = pick(rand, VARIANTS);
  const caseId = `case-${String(Math.floor(index / 4)).padStart(6, '0')}`;
  const answer: { answer: string; diagnosis: string; confidence: number; findings: string[]; differential: string[]; rationale: string } = {
    answer: pick(rand, ['A', 'B', 'C', 'D', 'E']),
    diagnosis: pick(rand, DIAGNOSES),
    confidence: Math.round(rand() * 100) / 100,
    findings: [pick(rand, FINDINGS), pick(rand, FINDINGS), pick(rand, FINDINGS)],
    differential: [pick(rand, DIAGNOSES), pick(rand, DIAGNOSES)],
    rationale: '',
  };
  let rawText: string;
  for (;;) {
    rawText = `\`\`\`json\n${JSON.stringify(answer, null, 2)}\n\`\`\``;
    if (rawText.length >= TARGET_RAW_CHARS) break;
    answer.rationale += `${answer.rationale ? ' ' : ''}${pick(rand, CLAUSES)} ${pick(rand, DIAGNOSES)}, given ${pick(rand, FINDINGS)}.`;
  }
  const promptTokens = 600 + Math.floor(rand() * 900);
  const completionTokens = Math.round(rawText.length / 3.6);
  const decodeTps = 8 + rand() * 30;
  const ttftMs = 300 + rand() * 2500;
  const finishReason = rand() < 0.97 ? 'stop' : 'length';
  return {
    id: `${runId}:${index.toString(36).padStart(6, '0')}`,
    runId,
    itemKey: `${caseId}|${model}|${variant}|0`,
    caseId,
    questionId: 'q1',
    cacheKey: hex(rand, 64),
    modelId: model,
    variant,
    sample: 0,
    rawText,
    parsed: answer,
    parseError: null,
    usage: {
      promptTokens,
      completionTokens,
      ttftMs: Math.round(ttftMs),
      prefillTps: Math.round((promptTokens / ttftMs) * 1000 * 10) / 10,
      decodeTps: Math.round(decodeTps * 10) / 10,
    },
    latencyMs: Math.round(ttftMs + (completionTokens / decodeTps) * 1000),
    finishReason,
    createdAt: createdAt + index,
  };
}

function intParam(params: URLSearchParams, name: string, fallback: number): number {
  const raw = params.get(name);
  const value = raw === null ? fallback : Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`?${name}= must be a positive integer, got "${raw}"`);
  return value;
}

async function run(): Promise<IdbWriteResult> {
  const params = new URLSearchParams(location.search);
  const rows = intParam(params, 'rows', 100_000);
  const batchSize = intParam(params, 'batch', 1000);
  const name = `neuroeval-bench-${Date.now()}-${Math.floor(Math.random() * 1e9)}`;
  const db = await openDatabase({ name });
  let deleted = false;
  try {
    const repos = createRepositories(db);
    // Seeded, so every run writes the same data.
    const rand = mulberry32(0x5eed);
    const runId = `bench-${batchSize}`;
    const createdAt = Date.UTC(2025, 0, 1);
    let jsonBytes = 0;
    let rawChars = 0;
    let writeMs = 0;
    let maxBatchMs = 0;
    let batches = 0;
    const loopStart = performance.now();
    for (let start = 0; start < rows; start += batchSize) {
      const batch: ResponseRecord[] = [];
      for (let i = start; i < Math.min(rows, start + batchSize); i++) {
        const row = makeRow(rand, runId, i, createdAt);
        jsonBytes += JSON.stringify(row).length;
        rawChars += row.rawText.length;
        batch.push(row);
      }
      const t0 = performance.now();
      await repos.responses.putBatch(batch);
      const ms = performance.now() - t0;
      writeMs += ms;
      maxBatchMs = Math.max(maxBatchMs, ms);
      batches++;
    }
    const loopMs = performance.now() - loopStart;
    const counted = await repos.responses.count();
    await db.delete(); // closes the connection, then deletes the database
    deleted = !(await indexedDB.databases()).some((d) => d.name === name);
    return {
      rows,
      batchSize,
      batches,
      jsonBytes,
      rawTextChars: rawChars / rows,
      writeMs,
      loopMs,
      rowsPerSec: rows / (writeMs / 1000),
      mbPerSec: jsonBytes / 1e6 / (writeMs / 1000),
      maxBatchMs,
      counted,
      deleted,
    };
  } finally {
    if (!deleted) {
      db.close();
      indexedDB.deleteDatabase(name);
    }
  }
}

async function compare(): Promise<IdbCompareResult> {
  const params = new URLSearchParams(location.search);
  const rows = intParam(params, 'rows', 100_000);
  const batchSize = intParam(params, 'batch', 1000);
  const sequentialRows = intParam(params, 'sequential', 1000);
  const stamp = `${Date.now()}-${Math.floor(Math.random() * 1e9)}`;
  const appName = `neuroeval-bench-app-${stamp}`;
  const bareName = `neuroeval-bench-bare-${stamp}`;
  const appDb = await openDatabase({ name: appName });
  const bare = new Dexie(bareName);
  bare.version(1).stores({ responses: SCHEMA[SCHEMA_VERSION]!.responses! });
  await bare.open();
  const bareTable = bare.table<ResponseRecord, string>('responses');
  let deleted = false;
  try {
    const repos = createRepositories(appDb);
    const store = dexieRunStore(repos);
    const rand = mulberry32(0x5eed);
    const createdAt = Date.UTC(2025, 0, 1);
    let appMs = 0;
    let bareMs = 0;
    const pairs: number[] = [];
    let pending: { a: number; p: number } | null = null;
    let b = 0;
    for (let start = 0; start < rows; start += batchSize, b++) {
      const batch: ResponseRecord[] = [];
      for (let i = start; i < Math.min(rows, start + batchSize); i++) batch.push(makeRow(rand, 'bench', i, createdAt) as ResponseRecord);
      let a = 0;
      let p = 0;
      const app = async () => {
        const t0 = performance.now();
        await Promise.all(batch.map((row) => store.saveResponse(row)));
        a = performance.now() - t0;
      };
      const plain = async () => {
        const t0 = performance.now();
        await bareTable.bulkPut(batch);
        p = performance.now() - t0;
      };
      if (b % 2 === 0) {
        await app();
        await plain();
      } else {
        await plain();
        await app();
      }
      appMs += a;
      bareMs += p;
      if (pending) {
        pairs.push((pending.p + p) / (pending.a + a));
        pending = null;
      } else pending = { a, p };
    }
    pairs.sort((x, y) => x - y);
    const mid = pairs.length >> 1;
    const ratio = pairs.length % 2 ? pairs[mid]! : (pairs[mid - 1]! + pairs[mid]!) / 2;
    const sequential: ResponseRecord[] = [];
    for (let i = 0; i < sequentialRows; i++) sequential.push(makeRow(rand, 'bench-seq', i, createdAt) as ResponseRecord);
    const t0 = performance.now();
    for (const row of sequential) await store.saveResponse(row);
    const sequentialMs = performance.now() - t0;
    const counted = { app: await repos.responses.countByRun('bench'), bare: await bareTable.count() };
    await appDb.delete();
    await bare.delete();
    const names = (await indexedDB.databases()).map((d) => d.name);
    deleted = !names.includes(appName) && !names.includes(bareName);
    return {
      rows, batchSize, appMs, bareMs, ratio, totalRatio: bareMs / appMs, appRowsPerSec: rows / (appMs / 1000), bareRowsPerSec: rows / (bareMs / 1000),
      sequentialRows, sequentialRowsPerSec: sequentialRows / (sequentialMs / 1000), counted, deleted,
    };
  } finally {
    if (!deleted) {
      appDb.close();
      bare.close();
      indexedDB.deleteDatabase(appName);
      indexedDB.deleteDatabase(bareName);
    }
  }
}

const out = document.getElementById('out');
const mode = new URLSearchParams(location.search).get('mode');
(mode === 'compare' ? compare() : run()).then(
  (result) => {
    if (mode === 'compare') window.__benchCompare = result as IdbCompareResult;
    else window.__benchResult = result as IdbWriteResult;
    if (out) out.textContent = JSON.stringify(result, null, 2);
  },
  (err: unknown) => {
    const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    window.__benchError = message;
    if (out) out.textContent = message;
  },
);
