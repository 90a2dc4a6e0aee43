/**
 * Speed records from stored runs: every model of a run has a load (the wait
 * before its first request) and slow first answers, priced once per load and
 * left out of its steady time per answer, whether it ran first or after
 * another model.
 */
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import { createRepositories, openDatabase, type NeuroEvalDB } from '../../../../src/core/db/index.ts';
import type { ResponseRecord } from '../../../../src/core/model/answer.ts';
import { WARMUP_ANSWERS, estimateRun } from '../../../../src/core/runner/estimate.ts';
import { speedRecords } from '../../../../src/features/runs/speed-records.ts';
import { testProvenance, testRun } from '../../../support/run-record.ts';

const opened: NeuroEvalDB[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

const engine = (modelId: string) => [{ runtime: 'transformers' as const, runtimeVersion: '4', modelId, device: 'wasm' }];

/**
 * A run of `slow` (5 s an answer) then `fast` (0.2 s an answer), `n` answers
 * each: each model loads first (slow 8 s, fast 3 s) and its first answers
 * take 2 s more (WASM compilation).
 */
function twoModelRun(id: string, startedAt: number, n: number): { run: ReturnType<typeof testRun>; answers: ResponseRecord[] } {
  const answers: ResponseRecord[] = [];
  let t = startedAt;
  for (const [modelId, loadMs, answerMs] of [['slow', 8000, 5000], ['fast', 3000, 200]] as const) {
    t += loadMs;
    for (let i = 0; i < n; i++) {
      const latencyMs = answerMs + (i < 3 ? 2000 : 0);
      t += latencyMs;
      answers.push({
        id: `${id}/${modelId}/${i}`, runId: id, itemKey: `c${i}#q|${modelId}|none|s0`, caseId: `c${i}`, questionId: 'q', cacheKey: '', modelId, variant: 'none', sample: 0,
        rawText: 'x', parsed: null, parseError: null, finishReason: 'stop', createdAt: t, latencyMs,
        // 11 tokens: 10 decoded in a tenth of the answer, the rest is image and prefill.
        usage: { promptTokens: 100, completionTokens: 11, ttftMs: latencyMs * 0.9, prefillTps: null, decodeTps: 10 / ((latencyMs * 0.1) / 1000) },
      });
      t += 10;
    }
  }
  const provenance = { ...testProvenance(), engines: { slow: engine('slow'), fast: engine('fast') }, startedAt, endedAt: t };
  return { run: testRun({ id, createdAt: startedAt, provenance }), answers };
}

describe('speed records of runs of several models', () => {
  it('price the second model\'s load and first answers once, not in every answer', async () => {
    const db = await openDatabase({ name: `speed-${Date.now()}`, indexedDB, IDBKeyRange });
    opened.push(db);
    const repos = createRepositories(db);
    const n = WARMUP_ANSWERS + 20;
    const { run, answers } = twoModelRun('r1', 1_000_000, n);
    await repos.runs.put(run);
    for (const a of answers) await repos.responses.put(a);

    const records = await speedRecords(repos, ['slow', 'fast'], 'wasm');
    const fast = records.fast!;
    // Steady answers of the fast model: 0.2 s each plus the 10 ms between answers, nothing of its slow start.
    const workloads = Array.from({ length: 30 }, () => ({ modelId: 'fast', protocolKey: '', textChars: 10, images: 1, turns: 1 }));
    const alone = estimateRun(workloads, { budget: 64, records: { fast } });
    expect(alone.perModel[0]!.perItemS).toBeCloseTo(0.21, 2);
    // Its load: the 3 s wait after the slow model's last answer, and the first answers' 6 s over the usual.
    expect(fast.loadS).toBeCloseTo(3 + 3 * 2, 1);
    // The first model is priced the same way.
    expect(records.slow!.loadS).toBeCloseTo(8 + 3 * 2, 1);
    // A run of the fast model alone: about 30 × 0.21 s and one load, not 30 × its first run's mean.
    expect(alone.seconds).toBeCloseTo(30 * 0.21 + 9, 0);
  });
});
