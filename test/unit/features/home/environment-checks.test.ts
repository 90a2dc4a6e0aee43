import { describe, expect, it } from 'vitest';
import { environmentReport, evaluateEnvironment, wasmThreads, type EnvironmentFacts } from '../../../../src/features/home/environment-checks.ts';

const GIB = 1024 ** 3;

/** A healthy laptop with a real GPU, fully cached offline. */
function facts(over: Partial<EnvironmentFacts> = {}): EnvironmentFacts {
  return {
    secureContext: true,
    gpu: {
      available: true,
      vendor: 'intel',
      architecture: 'xe',
      isFallbackAdapter: false,
      features: ['shader-f16', 'subgroups'],
      limits: { maxBufferSize: 2 * GIB, maxStorageBufferBindingSize: 2 * GIB, maxComputeWorkgroupStorageSize: 32768 },
    },
    workerGpu: { computeOk: true, computeMs: 12 },
    crossOriginIsolated: true,
    sharedArrayBuffer: true,
    wasmSimd: true,
    hardwareConcurrency: 8,
    storage: { quota: 100 * GIB, usage: GIB },
    persisted: 'granted',
    serviceWorker: 'ready',
    offline: { cached: 12, total: 12, bytes: 500_000 },
    ...over,
  };
}

const byId = (f: EnvironmentFacts) => new Map(evaluateEnvironment(f).map((c) => [c.id, c]));

describe('environment check', () => {
  it('passes every check on a healthy machine', () => {
    const checks = evaluateEnvironment(facts());
    expect(checks.filter((c) => c.verdict !== 'ok')).toEqual([]);
    expect(byId(facts()).get('wasm-threads')?.value).toBe('7 threads (cross-origin isolated, 8 CPU cores)');
    expect(byId(facts({ hardwareConcurrency: 2 })).get('wasm-threads')).toMatchObject({ verdict: 'ok', value: '2 threads (cross-origin isolated, 2 CPU cores)' });
    expect(byId(facts({ sharedArrayBuffer: false })).get('wasm-threads')).toMatchObject({ verdict: 'warn', value: '1 thread (SharedArrayBuffer unavailable)' });
    expect(byId(facts()).get('offline')?.value).toMatch(/^Yes: the app's 12 files \(488\.3 KiB\) are cached, part of the storage used above$/);
  });

  it('flags a software fallback adapter without f16 as warnings with actions (headless SwiftShader)', () => {
    const c = byId(
      facts({ gpu: { available: true, vendor: 'google', architecture: 'swiftshader', isFallbackAdapter: true, features: ['subgroups'], limits: { maxBufferSize: GIB, maxStorageBufferBindingSize: GIB } } }),
    );
    expect(c.get('webgpu')).toMatchObject({ verdict: 'warn', value: 'google / swiftshader (software fallback)' });
    expect(c.get('shader-f16')).toMatchObject({ verdict: 'warn', value: 'Not supported' });
    expect(c.get('shader-f16')?.action).toMatch(/q4f32/);
  });

  it('fails WebGPU with a reason and still reports the CPU path', () => {
    const c = byId(facts({ gpu: { available: false, reason: 'No WebGPU adapter', features: [], limits: {} }, workerGpu: null }));
    expect(c.get('webgpu')).toMatchObject({ verdict: 'fail', value: 'No WebGPU adapter' });
    expect(c.get('webgpu')?.action).toMatch(/WASM/);
    expect(c.has('shader-f16')).toBe(false);
    expect(c.has('worker-gpu')).toBe(false);
    expect(c.get('wasm-threads')?.verdict).toBe('ok');
  });

  it('warns about small GPU buffers', () => {
    const c = byId(facts({ gpu: { ...facts().gpu, limits: { maxBufferSize: 256 * 1024 ** 2, maxStorageBufferBindingSize: 128 * 1024 ** 2 } } }));
    expect(c.get('limits')?.verdict).toBe('warn');
    expect(c.get('limits')?.value).toContain('128 MiB');
  });

  it('reports one WASM thread without cross-origin isolation and says how to fix it', () => {
    const f = facts({ crossOriginIsolated: false });
    expect(wasmThreads(f)).toBe(1);
    expect(byId(f).get('wasm-threads')).toMatchObject({ verdict: 'warn', value: '1 thread (not cross-origin isolated)' });
    expect(byId(f).get('wasm-threads')?.action).toMatch(/Cross-Origin-Embedder-Policy/);
    expect(wasmThreads(facts({ hardwareConcurrency: 2 }))).toBe(2);
    expect(wasmThreads(facts({ hardwareConcurrency: 3 }))).toBe(3);
    expect(wasmThreads(facts({ hardwareConcurrency: 8 }))).toBe(7);
    expect(wasmThreads(facts({ hardwareConcurrency: 64 }))).toBe(16);
  });

  it('shows the worker compute test while running and when it fails', () => {
    expect(byId(facts({ workerGpu: null })).get('worker-gpu')?.verdict).toBe('info');
    expect(byId(facts({ workerGpu: { computeOk: false, reason: 'device lost' } })).get('worker-gpu')).toMatchObject({ verdict: 'fail', value: 'device lost' });
  });

  it('explains storage, persistence and offline states', () => {
    expect(byId(facts({ storage: { quota: GIB, usage: 0 } })).get('storage')?.verdict).toBe('warn');
    expect(byId(facts({ storage: null })).get('storage')?.value).toBe('Quota unknown');
    expect(byId(facts({ persisted: 'unknown' })).get('persisted')).toMatchObject({ verdict: 'info', value: 'Not yet asked' });
    expect(byId(facts({ persisted: 'denied' })).get('persisted')?.verdict).toBe('warn');
    expect(byId(facts({ offline: { cached: 3, total: 12, bytes: 1 } })).get('offline')?.value).toBe('Caching… 3 of 12 files');
    expect(byId(facts({ serviceWorker: 'unsupported' })).get('offline')?.verdict).toBe('fail');
    expect(byId(facts({ secureContext: false })).get('secure-context')?.verdict).toBe('fail');
  });

  it('never says less storage is used than the offline copy the app just cached', () => {
    // A first visit: the estimate was read before the service worker wrote the app's 42.5 MiB.
    const offline = { cached: 105, total: 105, bytes: 42.5 * 1024 ** 2 };
    const early = byId(facts({ storage: { quota: 10 * GIB, usage: 0 }, offline })).get('storage')!.value;
    expect(early).not.toMatch(/^0 bytes used/);
    expect(early).toBe("at least 42.5 MiB used by this site (its offline copy; the browser's estimate, 0 bytes, has not counted it yet) of 10 GiB");
    // Once the browser has counted it, its estimate is shown, with what it covers.
    const later = byId(facts({ storage: { quota: 10 * GIB, usage: 46.5 * 1024 ** 2 }, offline })).get('storage')!.value;
    expect(later).toMatch(/^46\.5 MiB used by this site, the browser's estimate of everything it stores \(the app's offline copy, benchmarks, answers, model files\), of 10 GiB/);
  });

  it('writes a plain-text report with every check and action', () => {
    const text = environmentReport(evaluateEnvironment(facts({ crossOriginIsolated: false })), 'TestBrowser/1.0');
    expect(text).toContain('Browser: TestBrowser/1.0');
    expect(text).toContain('[WARN] WASM threads (CPU fallback): 1 thread (not cross-origin isolated)');
    expect(text).toContain('→ Reload once');
  });
});
