/**
 * Whether a request asks the engine for JSON output (an OpenAI-compatible
 * `response_format` with the protocol's schema; WebLLM's grammar): one
 * setting per run, resolved per protocol the same way whether the run names
 * a protocol or uses `auto`, and recorded in the run's provenance.
 *
 * - `benchmark` (the default): as each protocol's benchmark does.
 *   NeuroVLM-Bench's harness (`run_async.py`) sends no `response_format`,
 *   so its JSON-valid rate is a measured figure: off. Neural-MedBench
 *   publishes no harness; NeuroEval's JSON protocols for it (differential,
 *   lesion, multi-round) and the structured review constrain their answers
 *   to their schema: on.
 * - `on`: every protocol with a schema asks for it.
 * - `off`: no request asks for JSON.
 */
import type { ProtocolId } from './types.ts';

export const JSON_OUTPUT_SETTINGS = ['benchmark', 'on', 'off'] as const;
export type JsonOutputSetting = (typeof JSON_OUTPUT_SETTINGS)[number];

/** What `benchmark` means per protocol that has an output schema (protocols without one never ask for JSON). */
export const BENCHMARK_JSON_OUTPUT: Readonly<Partial<Record<ProtocolId, boolean>>> = {
  'neurovlm-structured': false,
  'nmb-differential': true,
  'nmb-lesion': true,
  'nmb-multi-round': true,
  'structured-review': true,
};

export function isJsonOutputSetting(x: unknown): x is JsonOutputSetting {
  return (JSON_OUTPUT_SETTINGS as readonly unknown[]).includes(x);
}

/** Whether requests of `protocolId` carry its schema under `setting` (false for a protocol with no schema). */
export function asksForJson(setting: JsonOutputSetting, protocolId: string): boolean {
  const hasSchema = protocolId in BENCHMARK_JSON_OUTPUT;
  if (!hasSchema || setting === 'off') return false;
  return setting === 'on' || BENCHMARK_JSON_OUTPUT[protocolId as ProtocolId] === true;
}

/** The provenance record of the setting: the setting and, per protocol the run can use, whether its requests ask for JSON. */
export interface JsonOutputRecord {
  readonly setting: JsonOutputSetting;
  readonly byProtocol: Readonly<Record<string, boolean>>;
}

export function jsonOutputRecord(setting: JsonOutputSetting, protocolIds: readonly string[]): JsonOutputRecord {
  return { setting, byProtocol: Object.fromEntries(protocolIds.map((id) => [id, asksForJson(setting, id)])) };
}

/** For people: what the setting does, naming the protocols that ask for JSON. */
export function describeJsonOutput(r: JsonOutputRecord): string {
  const on = Object.entries(r.byProtocol).filter(([, v]) => v).map(([k]) => k);
  const what = on.length ? `JSON output requested for ${on.join(', ')}` : 'no request asks for JSON output';
  return `${r.setting === 'benchmark' ? 'as each benchmark does' : r.setting}: ${what}`;
}
