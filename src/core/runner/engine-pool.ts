/**
 * Loads engines lazily, one model at a time unless told to keep several.
 * Without `keepLoaded`, the resident engine is unloaded before the next model
 * is created, so two models never share memory.
 */
import type { Engine, EngineInfo } from '../engines/engine.ts';

export type EngineFactory = (modelId: string) => Engine | Promise<Engine>;

export interface LoadedEngine {
  readonly engine: Engine;
  readonly info: EngineInfo;
}

export class EnginePool {
  private readonly loaded = new Map<string, LoadedEngine>();

  constructor(
    private readonly engineFor: EngineFactory,
    private readonly keepLoaded: boolean,
  ) {}

  /** The loaded engine of `modelId`, loading it (and unloading others first) when needed. */
  async get(modelId: string, signal: AbortSignal, onLoading?: () => void): Promise<LoadedEngine> {
    const existing = this.loaded.get(modelId);
    if (existing) return existing;
    if (!this.keepLoaded) await this.unloadAll();
    onLoading?.();
    const engine = await this.engineFor(modelId);
    try {
      const info = await engine.load({ signal });
      const entry = { engine, info };
      this.loaded.set(modelId, entry);
      return entry;
    } catch (err) {
      await quietly(() => engine.unload());
      throw err;
    }
  }

  /** Unloads and forgets one model (after its device was lost, so a later call reloads it). */
  async drop(modelId: string): Promise<void> {
    const entry = this.loaded.get(modelId);
    if (!entry) return;
    this.loaded.delete(modelId);
    await quietly(() => entry.engine.unload());
  }

  /** Unloads every engine. Unload failures are ignored: the run is over or moving on either way. */
  async unloadAll(): Promise<void> {
    for (const modelId of [...this.loaded.keys()]) await this.drop(modelId);
  }
}

async function quietly(fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch {
    // Best effort: a failed unload must not hide the outcome of the run.
  }
}
