/**
 * The model host decides what is resident: sessions that need different
 * models swap them, a session's judge and encoder stay together, and two
 * tabs (two hosts sharing Web Locks and a broadcast channel) never hold the
 * same model at once. Engines are stand-ins that log loads and unloads; the
 * locks are an in-memory LockManager with Web Locks' exclusive semantics.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { textTurn } from '../../../../src/core/chat/turn.ts';
import type { Engine, EngineInfo, GenerateRequest } from '../../../../src/core/engines/engine.ts';
import type { EngineSpec, TransformersSpec, WebLlmSpec } from '../../../../src/core/engines/spec.ts';
import { ModelHost } from '../../../../src/lib/engines/model-host.ts';

/** Exclusive locks by name, granted in request order (what the app uses of `navigator.locks`). */
class MemoryLocks {
  readonly #held = new Set<string>();
  readonly #queues = new Map<string, (() => void)[]>();

  async query(): Promise<LockManagerSnapshot> {
    return { held: [...this.#held].map((name) => ({ name, mode: 'exclusive' as const, clientId: 'test' })), pending: [] };
  }

  async request(name: string, _options: LockOptions, callback: () => Promise<unknown>): Promise<unknown> {
    while (this.#held.has(name)) await new Promise<void>((resolve) => (this.#queues.get(name) ?? this.#queues.set(name, []).get(name)!).push(resolve));
    this.#held.add(name);
    try {
      return await callback();
    } finally {
      this.#held.delete(name);
      this.#queues.get(name)?.shift()?.();
    }
  }
}

interface World {
  readonly log: string[];
  /** Host name → model keys loaded there now. */
  readonly loaded: Map<string, Set<string>>;
  /** The most hosts that held one model at the same moment. */
  maxHolders: number;
}

function standInEngine(world: World, hostName: string, spec: EngineSpec): Engine {
  const mine = () => world.loaded.get(hostName) ?? world.loaded.set(hostName, new Set()).get(hostName)!;
  return {
    async load(): Promise<EngineInfo> {
      mine().add(spec.id);
      world.log.push(`${hostName} load ${spec.id}`);
      const holders = [...world.loaded.values()].filter((s) => s.has(spec.id)).length;
      world.maxHolders = Math.max(world.maxHolders, holders);
      return { runtime: spec.kind === 'openai' ? 'openai-compatible' : spec.kind, runtimeVersion: 'test', modelId: spec.id, device: 'wasm' };
    },
    async generate(request: GenerateRequest) {
      world.log.push(`${hostName} generate ${spec.id}`);
      return { text: `${spec.id}:${request.messages.length}`, finishReason: 'stop', usage: { promptTokens: 1, completionTokens: 1, ttftMs: null, prefillTps: null, decodeTps: null, totalMs: 0 } };
    },
    async unload() {
      mine().delete(spec.id);
      world.log.push(`${hostName} unload ${spec.id}`);
    },
  };
}

const vlm: TransformersSpec = { kind: 'transformers', id: 'vlm', label: 'VLM', location: 'http://127.0.0.1/models/vlm/', device: 'wasm', files: [] };
const judge: WebLlmSpec = { kind: 'webllm', id: 'judge', label: 'Judge', entryId: 'smollm2-360m-q4f32', task: 'text-generation', files: [] };
const textJudge: TransformersSpec = { ...vlm, id: 'text-judge', label: 'Text judge', location: 'http://127.0.0.1/models/text/', task: 'text-generation' };
const encoder: TransformersSpec = { ...vlm, id: 'encoder', label: 'Encoder', location: 'http://127.0.0.1/models/enc/', task: 'feature-extraction' };
const request: GenerateRequest = { messages: [textTurn('user', 'hello')], sampling: { temperature: 0, topP: 1, seed: 1, maxTokens: 4 } };

const channels: BroadcastChannel[] = [];
afterEach(() => {
  for (const c of channels.splice(0)) c.close();
});

function host(world: World, name: string, locks: MemoryLocks, channelName: string | null = null, idleMs = 0): ModelHost {
  const channel = channelName ? new BroadcastChannel(channelName) : null;
  if (channel) channels.push(channel);
  return new ModelHost({ endpointSecrets: async () => undefined, locks: locks as unknown as LockManager, channel, idleMs, createEngine: (spec) => standInEngine(world, name, spec) });
}

const newWorld = (): World => ({ log: [], loaded: new Map(), maxHolders: 0 });

describe('ModelHost residency', () => {
  it('swaps models between a run and a scoring pass instead of holding both', async () => {
    const world = newWorld();
    const h = host(world, 'tab', new MemoryLocks());
    const run = h.engine(vlm, 'run:1');
    const scoring = h.engine(judge, 'score:1');
    await run.load();
    expect((await run.generate(request)).text).toBe('vlm:1');
    await scoring.load();
    await scoring.generate(request);
    await run.generate(request);
    expect(world.log).toEqual([
      'tab load vlm',
      'tab generate vlm',
      'tab unload vlm',
      'tab load judge',
      'tab generate judge',
      'tab unload judge',
      'tab load vlm',
      'tab generate vlm',
    ]);
    expect(h.resident().map((r) => r.label)).toEqual(['VLM']);
  });

  it("keeps one session's judge and encoder together, and swaps two generating models of one worker", async () => {
    const world = newWorld();
    const h = host(world, 'tab', new MemoryLocks());
    await h.engine(textJudge, 'score:1').load();
    await h.load(encoder, 'score:1');
    expect(h.resident().map((r) => r.label).sort()).toEqual(['Encoder', 'Text judge']);
    // A second generating transformers.js model takes the judge's slot in the worker: the judge goes first.
    await h.engine(vlm, 'score:1').load();
    expect(world.log.slice(-2)).toEqual(['tab unload text-judge', 'tab load vlm']);
    expect(h.resident().map((r) => r.label).sort()).toEqual(['Encoder', 'VLM']);
  });

  it('unloads a model when its session is done with it', async () => {
    const world = newWorld();
    const h = host(world, 'tab', new MemoryLocks());
    const e = h.engine(vlm, 'run:1');
    await e.load();
    await e.unload();
    expect(h.resident()).toEqual([]);
    expect(world.loaded.get('tab')?.size).toBe(0);
  });

  it('never lets two tabs hold the same model: the holder lets it go when the other asks', async () => {
    const world = newWorld();
    const locks = new MemoryLocks();
    const name = `models-${Math.random()}`;
    const tabA = host(world, 'A', locks, name);
    const tabB = host(world, 'B', locks, name);
    await tabA.engine(vlm, 'run:1').load();
    await tabB.engine(vlm, 'models').load();
    expect(world.log).toEqual(['A load vlm', 'A unload vlm', 'B load vlm']);
    expect(world.maxHolders).toBe(1);
    expect(tabA.resident()).toEqual([]);
    // Tab A needs it again: B lets it go in turn.
    expect((await tabA.engine(vlm, 'run:1').generate(request)).text).toBe('vlm:1');
    expect(world.log.slice(3)).toEqual(['B unload vlm', 'A load vlm', 'A generate vlm']);
    expect(world.maxHolders).toBe(1);
  });

  it('lets a model go once the tab has been idle, also when it was loaded and never asked', async () => {
    vi.useFakeTimers();
    try {
      const world = newWorld();
      const h = host(world, 'tab', new MemoryLocks(), null, 60_000);
      await h.engine(vlm, 'models').load();
      await vi.advanceTimersByTimeAsync(59_000);
      expect(h.resident().map((r) => r.label)).toEqual(['VLM']);
      await vi.advanceTimersByTimeAsync(2_000);
      expect(h.resident()).toEqual([]);
      expect(world.log).toEqual(['tab load vlm', 'tab unload vlm']);
    } finally {
      vi.useRealTimers();
    }
  });
});
