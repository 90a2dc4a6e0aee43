/**
 * What makes two CLI sessions (a resume) or two shard outputs (a merge) parts
 * of the same run: the benchmark content, the case selection, the models'
 * weights, the protocol and its templates, variants, samples and sampling,
 * and the number of planned items. Where the model folders are and which
 * machine ran them are not part of it (provenance records the engines each
 * part ran on). The run id is derived from it, so every shard of a run, run
 * anywhere, carries the same id and the app's import stores them as one run.
 */
import { canonicalJson } from '../../core/bundle/canonical.ts';
import type { RunRecord } from '../../core/runner/records.ts';
import { sha256Hex } from '../../core/hash/sha256.ts';
import type { RunConfig } from '../../core/runner/config.ts';
import type { Provenance } from '../../core/runner/provenance.ts';

export interface RunIdentity {
  readonly benchmark: { readonly id: string; readonly contentHash: string };
  readonly selection: unknown;
  readonly models: readonly { readonly id: string; readonly filesHash: string }[];
  readonly protocol: { readonly id: string; readonly version: string; readonly templateHashes: Readonly<Record<string, string>> };
  readonly templates: unknown;
  readonly fewShot: boolean;
  readonly variants: readonly string[];
  readonly samples: number;
  readonly sampling: unknown;
  readonly interleave: boolean;
  /** Planned items of the whole run (every shard). */
  readonly items: number;
}

/** The identity of a run from its configuration, provenance and plan size (what a journal header and a run export both hold). */
export function identityOf(config: RunConfig, provenance: Provenance, plan: RunRecord['plan']): RunIdentity {
  const spec = config.spec;
  return {
    benchmark: { id: provenance.benchmark.id, contentHash: provenance.benchmark.contentHash },
    selection: spec.filters ?? null,
    models: provenance.models.map((m) => ({ id: m.id, filesHash: m.filesHash })),
    protocol: { id: provenance.protocol.id, version: provenance.protocol.version, templateHashes: provenance.protocol.templateHashes },
    templates: config.templates ?? null,
    fewShot: config.fewShot,
    variants: [...(spec.variants ?? ['none'])],
    samples: spec.samples ?? 1,
    sampling: spec.sampling,
    interleave: spec.interleave ?? false,
    items: plan.items,
  };
}

/** `cli-` and 16 hex digits of the identity's hash: the same run (and each of its shards) gets the same id anywhere. */
export function runIdOf(identity: RunIdentity): string {
  return `cli-${sha256Hex(canonicalJson(identity)).slice(0, 16)}`;
}

export interface Difference {
  /** Dotted path, e.g. `sampling.temperature`, `models[0].filesHash`. */
  readonly field: string;
  readonly was: string;
  readonly now: string;
}

const show = (v: unknown): string => (v === undefined ? 'nothing' : JSON.stringify(v) ?? String(v));

/** The first field in which `b` differs from `a`, depth first in `a`'s key order; `null` when equal. */
export function firstDifference(a: unknown, b: unknown, path = ''): Difference | null {
  if (Object.is(a, b)) return null;
  const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object';
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return { field: path || '(top level)', was: show(a), now: show(b) };
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (isObj(a) && isObj(b) && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const k of keys) {
      const d = firstDifference(a[k], b[k], path ? `${path}.${k}` : k);
      if (d) return d;
    }
    return null;
  }
  return { field: path || '(top level)', was: show(a), now: show(b) };
}
