/**
 * Run records for unit tests, shaped as the app stores them (schema v3): a
 * real provenance from `buildProvenance` and, when asked, a run configuration.
 * Tests override only the fields they are about.
 */
import type { RunRecord } from '../../src/core/runner/records.ts';
import type { RunConfig } from '../../src/core/runner/config.ts';
import { buildProvenance, type Provenance, type ProvenanceInputs } from '../../src/core/runner/provenance.ts';

/** Provenance of a small test run: one model, protocol `auto`, greedy sampling. */
export function testProvenance(overrides: Partial<ProvenanceInputs> = {}): Provenance {
  return buildProvenance({
    app: { version: '0.1.0', commit: 'test' },
    environment: { userAgent: 'test', crossOriginIsolated: false },
    models: [{ id: 'm', runtime: 'transformers', files: [{ name: 'model.onnx', sha256: 'f1' }] }],
    protocol: { id: 'auto', version: '1', templateHashes: {} },
    sampling: { temperature: 0, topP: 1, seed: 0, maxTokens: 256 },
    samples: 1,
    variants: ['none'],
    benchmark: { id: 'b', contentHash: 'h'.repeat(64) },
    ...overrides,
  });
}

/** The configuration of a small test run on benchmark `benchmarkId`, with one transformers model `m`. */
export function testRunConfig(benchmarkId = 'b', overrides: Partial<RunConfig> = {}): RunConfig {
  return {
    spec: { benchmarkId, models: [{ id: 'm', filesHash: 'f1' }], sampling: { temperature: 0, topP: 1, seed: 0, maxTokens: 256 } },
    protocolId: 'auto',
    fewShot: false,
    engines: [{ kind: 'transformers', id: 'm', label: 'M', location: 'https://app.test/models/m/', device: 'wasm', files: [{ name: 'model.onnx', sha256: 'f1' }] }],
    ...overrides,
  };
}

/** A finished run record; `config` is `null` unless given. */
export function testRun(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    id: 'r1',
    benchmarkId: 'b',
    name: 'Test run',
    status: 'done',
    createdAt: 1,
    updatedAt: 1,
    config: null,
    provenance: testProvenance(),
    plan: { cases: 1, models: 1, variants: 1, samples: 1, items: 1 },
    ...overrides,
  };
}
