/**
 * Joining the outputs of a sharded run (`neuroeval run --shard i/n`) into one
 * run export, equal answer for answer to the run done in one piece: the files
 * must be parts of the same run (same identity, identity.ts), their shards
 * must be 1…n of one n, and together they must answer every planned item
 * exactly once, each in the shard it belongs to. The merge is recorded in the
 * provenance: each file's name, SHA-256, shard and answer count.
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { BenchCase } from '../../core/bundle/types.ts';
import type { EngineInfo } from '../../core/engines/engine.ts';
import { InvalidInputError } from '../../core/errors.ts';
import { canonicalJson } from '../../core/bundle/canonical.ts';
import { planRun } from '../../core/runner/plan.ts';
import type { Provenance, ProvenanceMerge } from '../../core/runner/provenance.ts';
import type { ResponseRecord } from '../../core/model/answer.ts';
import { toRunExport, type RunExport } from '../../core/scoring/io/run-export.ts';
import { firstDifference, identityOf } from './identity.ts';
import { inPlanOrder } from './output.ts';
import { shardOfCases } from './shard.ts';

/** One input of a merge: the parsed export, and the file it came from. */
export interface MergeInput {
  readonly file: string;
  /** The file's bytes as read (hashed into the provenance). */
  readonly bytes: Uint8Array;
  readonly run: RunExport;
}

export interface MergeResult {
  readonly merged: RunExport;
  readonly answers: number;
  readonly files: readonly { readonly file: string; readonly shard: string; readonly answers: number }[];
}

const fail = (file: string, field: string, message: string): never => {
  throw new InvalidInputError(`${file}: ${message}`, { file, field });
};

const shardName = (s: Provenance['shard'] | null) => (s ? `shard ${s.index}/${s.count}` : 'the whole run');

/**
 * Merges shard outputs.
 * @throws InvalidInputError naming the file (and item) that breaks a rule.
 */
export function mergeRunExports(inputs: readonly MergeInput[], now: number = Date.now()): MergeResult {
  if (inputs.length === 0) throw new InvalidInputError('give the shard outputs to merge');
  const [first] = inputs as [MergeInput, ...MergeInput[]];
  for (const { file, run } of inputs) {
    if (!run.provenance) fail(file, 'provenance', 'has no provenance: only outputs of `neuroeval run` can be merged.');
    if (!run.run.config) fail(file, 'run.config', 'has no run configuration: only outputs of `neuroeval run` can be merged.');
    if (!run.cases?.length) fail(file, 'cases', 'holds no cases, so its plan cannot be checked: only outputs of `neuroeval run` can be merged.');
  }
  const identity = (i: MergeInput) => identityOf(i.run.run.config!, i.run.provenance!, i.run.run.plan);
  const base = identity(first);
  for (const input of inputs.slice(1)) {
    const d = firstDifference(base, identity(input));
    if (d) fail(input.file, d.field, `is not part of the same run as ${first.file}: ${d.field} is ${d.now} there, ${d.was} in ${first.file}.`);
    if (input.run.run.id !== first.run.run.id) fail(input.file, 'run.id', `is run "${input.run.run.id}", ${first.file} is run "${first.run.run.id}".`);
  }

  // Shards: all of one count, each once, none missing. Whole-run parts (no shard) may be merged with each other.
  const shards = inputs.map((i) => i.run.provenance!.shard ?? null);
  const count = shards[0]?.count ?? null;
  const byIndex = new Map<number, string>();
  inputs.forEach((input, k) => {
    const s = shards[k] ?? null;
    if ((s?.count ?? null) !== count) {
      fail(input.file, 'provenance.shard', `is ${shardName(s)}, but ${first.file} is ${shardName(shards[0])}; merge the shards of one split.`);
    }
    if (s) {
      const seen = byIndex.get(s.index);
      if (seen) fail(input.file, 'provenance.shard', `is shard ${s.index}/${s.count} again (${seen} is too); give each shard once.`);
      byIndex.set(s.index, input.file);
    }
  });
  if (count !== null) {
    const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
    if (missing.length) throw new InvalidInputError(`shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')} missing: give the outputs of all ${count} shards.`, { field: 'shards' });
  }

  // The plan, from the cases the files carry: every item answered once, in the shard it belongs to.
  const cases = first.run.cases as readonly BenchCase[];
  const plan = planRun(first.run.run.config!.spec, cases);
  if (plan.items.length !== first.run.run.plan.items) {
    fail(first.file, 'run.plan.items', `plans ${first.run.run.plan.items} item(s), but its cases and configuration give ${plan.items.length}; the file was edited.`);
  }
  const planned = new Map(plan.items.map((i) => [i.itemKey, i]));
  const shardOf = count === null ? null : shardOfCases(plan, count);
  const answeredIn = new Map<string, string>();
  const answers: ResponseRecord[] = [];
  inputs.forEach((input, k) => {
    const s = shards[k] ?? null;
    input.run.responses.forEach((r, i) => {
      const item = planned.get(r.itemKey);
      if (!item) fail(input.file, `responses[${i}].itemKey`, `responses[${i}] answers item "${r.itemKey}", which the run's plan does not have.`);
      if (s && shardOf!.get(item!.caseId) !== s.index) {
        fail(input.file, `responses[${i}].itemKey`, `responses[${i}] answers item "${r.itemKey}" of shard ${shardOf!.get(item!.caseId)}/${count}, but the file is shard ${s.index}/${s.count}.`);
      }
      const before = answeredIn.get(r.itemKey);
      if (before) fail(input.file, `responses[${i}].itemKey`, `item "${r.itemKey}" is answered here and in ${before}; each item must be answered once.`);
      answeredIn.set(r.itemKey, input.file);
      answers.push(r);
    });
  });
  const missing = plan.items.filter((i) => !answeredIn.has(i.itemKey));
  if (missing.length) {
    const item = missing[0]!;
    const owner = shardOf ? inputs[shards.findIndex((s) => s?.index === shardOf.get(item.caseId))]!.file : null;
    throw new InvalidInputError(
      `${missing.length} planned item(s) have no answer (first: "${item.itemKey}"${owner ? `, of shard ${shardOf!.get(item.caseId)}/${count} in ${owner}` : ''}): resume ${owner ? 'that shard' : 'the run'} with the same \`neuroeval run\` command, then merge again.`,
      { ...(owner ? { file: owner } : {}), field: 'responses' },
    );
  }

  const provenance = mergedProvenance(inputs);
  const times = inputs.map((i) => i.run.run);
  const merged = toRunExport(
    {
      ...first.run.run,
      config: first.run.run.config!,
      status: 'done',
      error: null,
      createdAt: Math.min(...times.map((r) => r.createdAt)),
      updatedAt: Math.max(...times.map((r) => r.updatedAt)),
      provenance,
    },
    inPlanOrder(answers, plan.items.map((i) => i.itemKey)),
    cases,
    { exportedAt: now },
  );
  return {
    merged,
    answers: answers.length,
    files: inputs.map((input, k) => ({ file: input.file, shard: shardName(shards[k] ?? null), answers: input.run.responses.length })),
  };
}

/** The first file's provenance without its shard; sessions' times and engines from all; the merge recorded. */
function mergedProvenance(inputs: readonly MergeInput[]): Provenance {
  const all = inputs.map((i) => i.run.provenance!);
  const { shard: _shard, ...base } = all[0]!;
  const engines: Record<string, EngineInfo[]> = {};
  for (const p of all) {
    for (const [modelId, infos] of Object.entries(p.engines)) {
      const list = (engines[modelId] ??= []);
      for (const info of infos) if (!list.some((e) => canonicalJson(e) === canonicalJson(info))) list.push(info);
    }
  }
  const starts = all.map((p) => p.startedAt).filter((t): t is number => t !== null);
  const ends = all.map((p) => p.endedAt).filter((t): t is number => t !== null);
  const runtimes: Record<string, string> = {};
  for (const p of all) {
    for (const [name, version] of Object.entries(p.runtimes)) {
      const seen = runtimes[name];
      runtimes[name] = seen === undefined || seen === version ? version : seen.split(', ').includes(version) ? seen : `${seen}, ${version}`;
    }
  }
  const merged: ProvenanceMerge[] = inputs.map((i) => ({
    runId: i.run.run.id,
    name: i.run.run.name,
    exportedAt: i.run.exportedAt ?? null,
    answers: i.run.responses.length,
    file: basename(i.file),
    sha256: createHash('sha256').update(i.bytes).digest('hex'),
    ...(i.run.provenance!.shard ? { shard: { index: i.run.provenance!.shard.index, count: i.run.provenance!.shard.count } } : {}),
  }));
  return {
    ...base,
    runtimes,
    engines,
    startedAt: starts.length ? Math.min(...starts) : null,
    endedAt: ends.length ? Math.max(...ends) : null,
    merged: [...(base.merged ?? []), ...merged],
  };
}
