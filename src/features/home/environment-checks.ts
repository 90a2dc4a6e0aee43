/**
 * Turns raw facts about this browser into the checks shown on Home, each with
 * a verdict and, where something is wrong, what a hospital IT person can do.
 * Pure so every verdict can be unit-tested without a browser.
 */
import { wasmThreadsFor } from '../../core/engines/transformers/threads.ts';
import type { GpuFacts } from '../../core/env/gpu.ts';
import { formatBytes } from '../../core/text/units.ts';

export interface EnvironmentFacts {
  readonly secureContext: boolean;
  readonly gpu: GpuFacts;
  /** Result of the compute test inside a worker; null while it runs or if it could not start. */
  readonly workerGpu: { readonly computeOk: boolean; readonly computeMs?: number; readonly reason?: string } | null;
  readonly crossOriginIsolated: boolean;
  readonly sharedArrayBuffer: boolean;
  readonly wasmSimd: boolean;
  readonly hardwareConcurrency: number;
  readonly storage: { readonly quota?: number; readonly usage?: number } | null;
  readonly persisted: 'granted' | 'denied' | 'unknown' | 'unsupported';
  readonly serviceWorker: 'unsupported' | 'dev' | 'installing' | 'ready' | 'error';
  readonly offline: { readonly cached: number; readonly total: number; readonly bytes: number } | null;
}

type Verdict = 'ok' | 'warn' | 'fail' | 'info';

export interface Check {
  readonly id: string;
  readonly label: string;
  readonly verdict: Verdict;
  readonly value: string;
  /** What to do about a warning or failure, in plain words. */
  readonly action?: string;
}

/** WebLLM and large ONNX models want 1 GiB storage buffers; below this, only small models load. */
const GIB = 1024 ** 3;

/** The number of WASM threads the app runs onnxruntime-web with in this context (threads.ts: every core, up to 4; all but one above). */
export function wasmThreads(f: Pick<EnvironmentFacts, 'crossOriginIsolated' | 'sharedArrayBuffer' | 'hardwareConcurrency'>): number {
  return wasmThreadsFor(f.hardwareConcurrency, f.crossOriginIsolated && f.sharedArrayBuffer);
}

export function evaluateEnvironment(f: EnvironmentFacts): Check[] {
  const checks: Check[] = [];
  const g = f.gpu;

  if (!f.secureContext) {
    checks.push({
      id: 'secure-context',
      label: 'Secure context',
      verdict: 'fail',
      value: 'No',
      action: 'Serve NeuroEval over https:// or open it from localhost; browsers disable WebGPU and offline mode on plain http.',
    });
  }

  if (!g.available) {
    checks.push({
      id: 'webgpu',
      label: 'WebGPU adapter',
      verdict: 'fail',
      value: g.reason ?? 'Not available',
      action:
        'Use a current Chrome or Edge with hardware acceleration on (chrome://settings/system) and check chrome://gpu. Models can still run on the CPU (WASM), much more slowly.',
    });
  } else {
    const name = [g.vendor, g.architecture].filter(Boolean).join(' / ') || g.description || 'unknown adapter';
    checks.push(
      g.isFallbackAdapter
        ? {
            id: 'webgpu',
            label: 'WebGPU adapter',
            verdict: 'warn',
            value: `${name} (software fallback)`,
            action: 'This is a CPU emulation of a GPU: correct but very slow. Enable the real GPU (drivers, chrome://gpu) for model runs.',
          }
        : { id: 'webgpu', label: 'WebGPU adapter', verdict: 'ok', value: name },
    );
    const f16 = g.features.includes('shader-f16');
    checks.push(
      f16
        ? { id: 'shader-f16', label: 'shader-f16', verdict: 'ok', value: 'Supported' }
        : {
            id: 'shader-f16',
            label: 'shader-f16',
            verdict: 'warn',
            value: 'Not supported',
            action: 'Half-precision (f16, q4f16) models will not run on this GPU; choose f32 variants (q4f32) instead.',
          },
    );
    const binding = g.limits.maxStorageBufferBindingSize ?? 0;
    const buffer = g.limits.maxBufferSize ?? 0;
    const lim = `buffer ${formatBytes(buffer)}, storage binding ${formatBytes(binding)}, workgroup storage ${formatBytes(g.limits.maxComputeWorkgroupStorageSize)}`;
    checks.push(
      binding >= GIB && buffer >= GIB
        ? { id: 'limits', label: 'GPU limits', verdict: 'ok', value: lim }
        : {
            id: 'limits',
            label: 'GPU limits',
            verdict: 'warn',
            value: lim,
            action: 'Buffers under 1 GB limit this GPU to small models. A discrete or newer integrated GPU lifts this.',
          },
    );
  }

  if (g.available) {
    const w = f.workerGpu;
    checks.push(
      w === null
        ? { id: 'worker-gpu', label: 'GPU compute in a worker', verdict: 'info', value: 'Testing…' }
        : w.computeOk
          ? { id: 'worker-gpu', label: 'GPU compute in a worker', verdict: 'ok', value: `Test shader passed${w.computeMs === undefined ? '' : ` in ${Math.round(w.computeMs)} ms`}` }
          : {
              id: 'worker-gpu',
              label: 'GPU compute in a worker',
              verdict: 'fail',
              value: w.reason ?? 'Test shader failed',
              action: 'Models run in workers; update the GPU driver or browser, or use the CPU (WASM) fallback.',
            },
    );
  }

  const threads = wasmThreads(f);
  const cores = `${f.hardwareConcurrency} CPU core${f.hardwareConcurrency === 1 ? '' : 's'}`;
  checks.push(
    f.crossOriginIsolated && f.sharedArrayBuffer
      ? { id: 'wasm-threads', label: 'WASM threads (CPU fallback)', verdict: 'ok', value: `${threads} thread${threads === 1 ? '' : 's'} (cross-origin isolated, ${cores})` }
      : {
          id: 'wasm-threads',
          label: 'WASM threads (CPU fallback)',
          verdict: 'warn',
          value: f.crossOriginIsolated ? '1 thread (SharedArrayBuffer unavailable)' : '1 thread (not cross-origin isolated)',
          action:
            'Reload once after the first visit (the offline worker adds the isolation headers), or have the web server send Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp.',
        },
  );
  if (!f.wasmSimd) {
    checks.push({ id: 'wasm-simd', label: 'WASM SIMD', verdict: 'fail', value: 'Not supported', action: 'Update the browser: the CPU fallback needs WebAssembly SIMD.' });
  }

  const s = f.storage;
  if (!s || s.quota === undefined) {
    checks.push({ id: 'storage', label: 'Storage', verdict: 'warn', value: 'Quota unknown', action: 'This browser does not report storage quota; large models may fail to save.' });
  } else {
    const free = s.quota - (s.usage ?? 0);
    // The browser counts the offline copy too, but updates its figure late: never show less than the app knows it holds.
    const offline = f.offline && f.offline.cached === f.offline.total ? f.offline.bytes : 0;
    const behind = s.usage !== undefined && s.usage < offline;
    checks.push({
      id: 'storage',
      label: 'Storage',
      verdict: free < 2 * GIB ? 'warn' : 'ok',
      value: behind
        ? `at least ${formatBytes(offline)} used by this site (its offline copy; the browser's estimate, ${formatBytes(s.usage ?? 0)}, has not counted it yet) of ${formatBytes(s.quota)}`
        : `${formatBytes(s.usage ?? 0)} used by this site, the browser's estimate of everything it stores (the app's offline copy, benchmarks, answers, model files), of ${formatBytes(s.quota)} (${formatBytes(free)} free)`,
      ...(free < 2 * GIB ? { action: 'Less than 2 GB free for this site: free disk space before downloading models.' } : {}),
    });
  }

  const persistedValue = { granted: 'Granted', denied: 'Not granted', unknown: 'Not yet asked', unsupported: 'Not supported' }[f.persisted];
  checks.push({
    id: 'persisted',
    label: 'Persistent storage',
    verdict: f.persisted === 'granted' ? 'ok' : f.persisted === 'unknown' ? 'info' : 'warn',
    value: persistedValue,
    ...(f.persisted === 'granted'
      ? {}
      : {
          action:
            f.persisted === 'unknown'
              ? 'NeuroEval asks at the first large write (a benchmark import or a run). You can also ask now in Settings.'
              : 'The browser may delete stored runs under storage pressure. Install the app or bookmark it, then ask again in Settings.',
        }),
  });

  checks.push(offlineCheck(f));
  return checks;
}

function offlineCheck(f: EnvironmentFacts): Check {
  const label = 'Offline-ready';
  switch (f.serviceWorker) {
    case 'unsupported':
      return { id: 'offline', label, verdict: 'fail', value: 'No (service workers unavailable)', action: 'Serve over https:// or localhost, and leave private/incognito mode.' };
    case 'dev':
      return { id: 'offline', label, verdict: 'info', value: 'Not in the development server', action: 'Run the production build (npm start) to test offline use.' };
    case 'error':
      return { id: 'offline', label, verdict: 'fail', value: 'Offline cache failed', action: 'Check that the server returns every file of the build (no missing .wasm files).' };
    case 'installing':
      return { id: 'offline', label, verdict: 'info', value: 'Caching the app…' };
    case 'ready': {
      const o = f.offline;
      if (!o || o.cached < o.total) {
        return { id: 'offline', label, verdict: 'info', value: o ? `Caching… ${o.cached} of ${o.total} files` : 'Caching the app…' };
      }
      return { id: 'offline', label, verdict: 'ok', value: `Yes: the app's ${o.total} files (${formatBytes(o.bytes)}) are cached, part of the storage used above` };
    }
  }
}

/** A plain-text report an IT person can paste into a ticket. */
export function environmentReport(checks: readonly Check[], userAgent: string): string {
  const lines = [`NeuroEval environment check — ${new Date().toISOString()}`, `Browser: ${userAgent}`, ''];
  for (const c of checks) {
    lines.push(`[${c.verdict.toUpperCase()}] ${c.label}: ${c.value}`);
    if (c.action) lines.push(`        → ${c.action}`);
  }
  return lines.join('\n');
}
