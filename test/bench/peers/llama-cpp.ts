/**
 * llama.cpp, native, as the bench's peer: node-llama-cpp with its prebuilt
 * CPU binaries, installed by the bench on demand into .cache/peers/ from the
 * npm registry (never a dependency of the app: not in package.json, not in
 * `npm ci`), decoding a GGUF of the real-size model's decoder
 * (make-gguf.py: same dimensions, random weights).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The version installed: a release with prebuilt Linux, macOS and Windows CPU binaries. */
export const NODE_LLAMA_CPP_VERSION = '3.22.1';

/** node-llama-cpp's entry module, installed into `<root>/.cache/peers/node-llama-cpp/` when missing. */
export function ensureNodeLlamaCpp(root: string, log: (m: string) => void): string {
  const dir = join(root, '.cache', 'peers', 'node-llama-cpp');
  const entry = join(dir, 'node_modules', 'node-llama-cpp', 'dist', 'index.js');
  if (existsSync(entry)) return entry;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'neuroeval-bench-peer', private: true }));
  log(`  installing node-llama-cpp@${NODE_LLAMA_CPP_VERSION} into ${dir} (a peer reference for the bench, not an app dependency)`);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', `node-llama-cpp@${NODE_LLAMA_CPP_VERSION}`], { cwd: dir, stdio: 'inherit' });
  return entry;
}

/** Writes the GGUF with the Python `gguf` package (from the local index when missing); reuses one already written. */
export function ensureGguf(root: string, modelDir: string, out: string, kind: 'Q8_0' | 'Q4_0', log: (m: string) => void): string {
  if (existsSync(out)) return out;
  try {
    execFileSync('python3', ['-c', 'import gguf, numpy'], { stdio: 'ignore' });
  } catch {
    log('  installing the gguf and numpy Python packages');
    execFileSync('python3', ['-m', 'pip', 'install', '--quiet', 'gguf', 'numpy'], { stdio: 'inherit' });
  }
  log(`  writing ${out} (${kind})`);
  execFileSync('python3', [join(root, 'test', 'bench', 'peers', 'make-gguf.py'), modelDir, out, kind], { stdio: 'inherit' });
  return out;
}

export interface LlamaCppRun {
  readonly promptTokens: number;
  /** Prompt evaluation and the first token, ms. */
  readonly ttftMs: number;
  readonly prefillTps: number;
  /** (tokens − 1) ÷ time from the first to the last token. */
  readonly decodeTps: number;
  readonly tokens: number;
  readonly threads: number;
}

interface NodeLlamaCpp {
  getLlama(o: object): Promise<{ loadModel(o: object): Promise<LlamaModelLike> }>;
  LlamaLogLevel: Record<string, unknown>;
}
interface LlamaModelLike {
  createContext(o: object): Promise<LlamaContextLike>;
  dispose(): Promise<void>;
  readonly size: number;
}
interface LlamaContextLike {
  getSequence(): { evaluate(tokens: number[], o: object): AsyncIterable<number> };
  dispose(): Promise<void>;
  readonly currentThreads: number;
}

export interface LlamaCppPeer {
  /** Bytes of the model's tensors. */
  readonly modelBytes: number;
  /** One greedy generation of `tokens` after a prompt of `promptTokens` tokens, on `threads` threads, in a fresh context. */
  run(promptTokens: number, tokens: number, threads: number): Promise<LlamaCppRun>;
  dispose(): Promise<void>;
}

export async function loadLlamaCpp(entry: string, gguf: string): Promise<LlamaCppPeer> {
  const lib = (await import(pathToFileURL(entry).href)) as NodeLlamaCpp;
  const llama = await lib.getLlama({ gpu: false, build: 'never', logLevel: lib.LlamaLogLevel['error'] });
  const model = await llama.loadModel({ modelPath: gguf, gpuLayers: 0 });
  return {
    modelBytes: model.size,
    async run(promptTokens, tokens, threads) {
      const context = await model.createContext({ contextSize: promptTokens + tokens + 64, threads, batchSize: 512 });
      try {
        // Ordinary token ids spread over the vocabulary (the weights are random: only the count matters).
        const prompt = Array.from({ length: promptTokens }, (_, i) => 300 + ((i * 7919) % 40000));
        const t0 = performance.now();
        let first: number | null = null;
        let last = t0;
        let n = 0;
        for await (const _token of context.getSequence().evaluate(prompt, { temperature: 0 })) {
          last = performance.now();
          first ??= last;
          if (++n >= tokens) break;
        }
        const ttftMs = (first ?? last) - t0;
        return {
          promptTokens,
          ttftMs,
          prefillTps: promptTokens / (ttftMs / 1000),
          decodeTps: n > 1 && first !== null ? (n - 1) / ((last - first) / 1000) : 0,
          tokens: n,
          threads: context.currentThreads,
        };
      } finally {
        await context.dispose();
      }
    },
    dispose: () => model.dispose(),
  };
}
