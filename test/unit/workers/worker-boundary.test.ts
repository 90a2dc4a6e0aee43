/**
 * The worker boundary, end to end over a real MessageChannel: the client half
 * (src/lib/workers) talks to the worker half (workers/runtime) exactly as in
 * the browser, only without a separate thread.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AbortedError, EngineError, InvalidInputError, isDeviceLost, NeuroEvalError, StorageError, throwIfAborted } from '../../../src/core/errors.ts';
import type { CallContext } from '../../../src/core/rpc/protocol.ts';
import { runReport, runReportOf } from '../../../src/core/runner/report.ts';
import type { Progress } from '../../../src/core/model/progress.ts';
import type { ResponseRecord } from '../../../src/core/model/answer.ts';
import { createWorkerClient, type WorkerClient } from '../../../src/core/rpc/worker-client.ts';
import { exposeApi } from '../../../workers/runtime/expose.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const testApi = {
  async add(input: { a: number; b: number }): Promise<number> {
    return input.a + input.b;
  },
  async steps(input: { n: number; ms: number }, ctx: CallContext): Promise<number> {
    for (let i = 1; i <= input.n; i++) {
      await sleep(input.ms);
      throwIfAborted(ctx.signal);
      ctx.progress({ phase: 'step', done: i, total: input.n });
    }
    return input.n;
  },
  async invalid(): Promise<never> {
    throw new InvalidInputError('Row 3 has no case id.', { file: 'cases.jsonl', line: 3, field: 'id' });
  },
  async plainError(): Promise<never> {
    throw new TypeError('something broke');
  },
  async hang(_input: void, ctx: CallContext): Promise<string> {
    await new Promise((_r, reject) => ctx.signal.addEventListener('abort', () => reject(new AbortedError())));
    return 'never';
  },
  async bytes(input: { buf: ArrayBuffer }): Promise<number> {
    return input.buf.byteLength;
  },
  async deviceLost(): Promise<never> {
    throw new EngineError('ENGINE_DEVICE_LOST', 'The GPU stopped while running the model.');
  },
  async quota(): Promise<never> {
    throw new StorageError('QUOTA_EXCEEDED', 'The disk is full.');
  },
  /** Reports every token at once, far faster than the progress interval: the pieces must all arrive, in order. */
  async tokens(input: { pieces: string[] }, ctx: CallContext): Promise<string> {
    input.pieces.forEach((piece, i) => ctx.progress({ phase: 'token', done: i + 1, total: 1000, detail: { kind: 'tokens', piece } }));
    return input.pieces.join('');
  },
  /** A batch stores its answers back to back, each with its own report: every stored answer must reach the page. */
  async batchStored(input: { keys: string[] }, ctx: CallContext): Promise<number> {
    input.keys.forEach((itemKey, i) => {
      const latest = { itemKey } as unknown as ResponseRecord;
      const run = { runId: 'r', phase: 'running', modelId: 'm', overall: { done: i + 1, total: input.keys.length + 1 }, model: null, decodeTps: null, latest } as const;
      ctx.progress({ phase: 'run', done: i + 1, total: input.keys.length + 1, detail: runReport(run) });
    });
    return input.keys.length;
  },
  /** Stores answers back to back, then fails (a full disk refused the next one): the stored ones' reports must still arrive. */
  async storedThenFailed(input: { keys: string[] }, ctx: CallContext): Promise<never> {
    await testApi.batchStored(input, ctx);
    throw new StorageError('QUOTA_EXCEEDED', 'The disk is full.');
  },
};
type TestApi = typeof testApi;

interface Fake {
  worker: Worker;
  terminated: boolean;
}

function fakeWorkerFactory(created: Fake[]): () => Worker {
  return () => {
    const { port1, port2 } = new MessageChannel();
    exposeApi(testApi, port2 as unknown as Parameters<typeof exposeApi>[1]);
    const fake: Fake = { worker: port1 as unknown as Worker, terminated: false };
    Object.assign(port1, {
      terminate: () => {
        fake.terminated = true;
        port1.close();
        port2.close();
      },
    });
    created.push(fake);
    return fake.worker;
  };
}

let client: WorkerClient<TestApi> | null = null;
afterEach(() => client?.terminate());

function makeClient(idleMs = 0) {
  const created: Fake[] = [];
  client = createWorkerClient<TestApi>('test', fakeWorkerFactory(created), { idleMs });
  return { client, created };
}

describe('worker client', () => {
  it('starts the worker lazily and returns results', async () => {
    const { client, created } = makeClient();
    expect(client.running).toBe(false);
    expect(await client.api.add({ a: 2, b: 3 })).toBe(5);
    expect(client.running).toBe(true);
    expect(created).toHaveLength(1);
  });

  it('forwards progress in order, ending at the total', async () => {
    const { client } = makeClient();
    const seen: Progress[] = [];
    const result = await client.api.steps({ n: 5, ms: 60 }, { onProgress: (p) => seen.push(p) });
    expect(result).toBe(5);
    const done = seen.map((p) => p.done);
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(seen.at(-1)).toEqual({ phase: 'step', done: 5, total: 5 });
  });

  it('rejects at once with AbortedError when the signal fires, and the worker stops the work', async () => {
    const { client } = makeClient();
    const controller = new AbortController();
    const pending = client.api.hang(undefined, { signal: controller.signal });
    await sleep(20);
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortedError);
    expect(client.pending).toBe(0);
    // The worker is still usable afterwards.
    expect(await client.api.add({ a: 1, b: 1 })).toBe(2);
  });

  it('rejects without starting work when the signal already fired', async () => {
    const { client, created } = makeClient();
    const controller = new AbortController();
    controller.abort();
    await expect(client.api.add({ a: 1, b: 2 }, { signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED' });
    expect(created).toHaveLength(0);
  });

  it('carries typed errors across with code and location', async () => {
    const { client } = makeClient();
    const error = await client.api.invalid().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ code: 'INVALID_INPUT', message: 'Row 3 has no case id.', location: { file: 'cases.jsonl', line: 3, field: 'id' } });
  });

  it('turns unexpected errors into INTERNAL errors that keep their message', async () => {
    const { client } = makeClient();
    const error = await client.api.plainError().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NeuroEvalError);
    expect(error).toMatchObject({ code: 'INTERNAL', name: 'TypeError', message: 'something broke' });
  });

  it('moves transferred buffers instead of copying them', async () => {
    const { client } = makeClient();
    const buf = new ArrayBuffer(1024);
    expect(await client.api.bytes({ buf }, { transfer: [buf] })).toBe(1024);
    expect(buf.byteLength).toBe(0);
  });

  it('fails every call in flight when the worker crashes, then restarts on the next call', async () => {
    const { client, created } = makeClient();
    const a = client.api.hang();
    const b = client.api.hang();
    await sleep(20);
    const crash = new Event('error');
    created[0]!.worker.dispatchEvent(crash);
    await expect(a).rejects.toMatchObject({ code: 'WORKER_CRASHED' });
    await expect(b).rejects.toMatchObject({ code: 'WORKER_CRASHED' });
    expect(created[0]!.terminated).toBe(true);
    expect(await client.api.add({ a: 4, b: 4 })).toBe(8);
    expect(created).toHaveLength(2);
  });

  it('terminates an idle worker and starts a new one when needed', async () => {
    const { client, created } = makeClient(80);
    await client.api.add({ a: 1, b: 1 });
    expect(client.running).toBe(true);
    await sleep(200);
    expect(client.running).toBe(false);
    expect(created[0]!.terminated).toBe(true);
    await client.api.add({ a: 1, b: 1 });
    expect(created).toHaveLength(2);
  });

  it('does not terminate a worker while a call is in flight', async () => {
    const { client, created } = makeClient(50);
    const result = client.api.steps({ n: 4, ms: 50 });
    await sleep(120);
    expect(created[0]!.terminated).toBe(false);
    expect(await result).toBe(4);
  });

  it('reports an unknown method as an error instead of hanging', async () => {
    const { client } = makeClient();
    const api = client.api as unknown as Record<string, (i?: unknown) => Promise<unknown>>;
    await expect(api.nope!()).rejects.toMatchObject({ code: 'INTERNAL', message: 'Unknown worker method "nope".' });
  });
});

describe('engine errors across the boundary', () => {
  it('keep their engine code', async () => {
    const { EngineError } = await import('../../../src/core/engines/errors.ts');
    const { serializeError, fromSerialized } = await import('../../../src/core/errors.ts');
    const back = fromSerialized(serializeError(new EngineError('ENGINE_DEVICE_LOST', 'The GPU stopped.')));
    expect(back).toMatchObject({ name: 'EngineError', engineCode: 'ENGINE_DEVICE_LOST', message: 'The GPU stopped.' });
  });
});

describe('storage errors across the boundary', () => {
  it('keep each storage code, so the page knows the browser closed the database', async () => {
    const { serializeError, fromSerialized } = await import('../../../src/core/errors.ts');
    for (const code of ['STORAGE_FAILED', 'STORAGE_VERSION', 'STORAGE_CLOSED', 'QUOTA_EXCEEDED'] as const) {
      const back = fromSerialized(serializeError(new StorageError(code, `${code} message`)));
      expect(back).toBeInstanceOf(StorageError);
      expect(back).toMatchObject({ code, message: `${code} message` });
    }
  });
});

describe('typed errors and progress across the boundary', () => {
  it('rebuilds an engine error with its class and code: a lost device is a code, not a message', async () => {
    const { client } = makeClient();
    const error = await client.api.deviceLost().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).engineCode).toBe('ENGINE_DEVICE_LOST');
    expect(isDeviceLost(error)).toBe(true);
    expect(isDeviceLost(new Error('(device lost)'))).toBe(false);
  });

  it('rebuilds a storage error with its class and code', async () => {
    const { client } = makeClient();
    const error = await client.api.quota().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).code).toBe('QUOTA_EXCEEDED');
  });

  it('batches token reports without losing a piece, and carries no text in the message', async () => {
    const { client } = makeClient();
    const pieces = Array.from({ length: 300 }, (_, i) => `t${i} `);
    const reports: Progress[] = [];
    const result = await client.api.tokens({ pieces }, { onProgress: (p) => reports.push(p) });
    const streamed = reports.map((p) => (p.detail?.kind === 'tokens' ? p.detail.piece : '')).join('');
    expect(streamed).toBe(result);
    expect(reports.length).toBeLessThan(pieces.length);
    expect(reports.every((p) => p.message === undefined)).toBe(true);
    expect(reports.at(-1)?.done).toBe(pieces.length);
  });

  it('merges the reports of answers stored back to back without dropping one (the backup folder keeps them all)', async () => {
    const { client } = makeClient();
    const keys = Array.from({ length: 4 }, (_, i) => `case-${i}#q1|m|none|s0`);
    const reports: Progress[] = [];
    await client.api.batchStored({ keys }, { onProgress: (p) => reports.push(p) });
    const stored = reports.flatMap((p) => (runReportOf(p)?.rows ?? []).map((r) => r.itemKey));
    expect(stored).toEqual(keys);
    expect(reports.length).toBeLessThan(keys.length);
    expect(runReportOf(reports.at(-1)!)?.run.overall.done).toBe(keys.length);
  });

  it('sends the reports a failing call still held before its error (answers stored before a full disk stopped the run)', async () => {
    const { client } = makeClient();
    const keys = Array.from({ length: 4 }, (_, i) => `case-${i}#q1|m|none|s0`);
    const reports: Progress[] = [];
    await expect(client.api.storedThenFailed({ keys }, { onProgress: (p) => reports.push(p) })).rejects.toThrow('The disk is full.');
    expect(reports.flatMap((p) => (runReportOf(p)?.rows ?? []).map((r) => r.itemKey))).toEqual(keys);
  });
});
