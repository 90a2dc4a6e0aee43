/**
 * Turns the protocols of `src/core/protocols` into what the runner drives.
 * A run uses one named protocol, or `auto`: each case gets its default
 * protocol (by task family and the bundle's protocol defaults), so one run
 * can cover a whole mixed benchmark such as the demo.
 */
import type { BenchCase, ProtocolDefaults, Question } from '../bundle/types.ts';
import { canonicalJson } from '../bundle/canonical.ts';
import { sha256Hex } from '../hash/sha256.ts';
import { declaredTemplate, getProtocol, isMultiTurn, protocolFor, PROTOCOLS, templateHash } from '../protocols/index.ts';
import type { PromptTemplate, Protocol } from '../protocols/index.ts';
import { paraphraseOf } from '../protocols/paraphrase/index.ts';
import { asksForJson, type JsonOutputSetting } from '../protocols/json-output.ts';
import { PARAPHRASE_VARIANT } from './variants.ts';
import type { ParseResult } from '../protocols/types.ts';
import type { ProtocolContext, ProtocolFollowUp, ProtocolTurn, RunProtocol } from './types.ts';

export const AUTO_PROTOCOL = 'auto';

interface AdapterOptions {
  /** User-edited templates by protocol id (shown and hashed into provenance). */
  readonly templates?: Readonly<Record<string, PromptTemplate>>;
  /** Few-shot exemplar cases (NeuroVLM-Bench), in order. */
  readonly fewShot?: readonly BenchCase[];
  readonly defaults?: ProtocolDefaults;
  /** Whether requests ask for JSON output (default `benchmark`: as each protocol's benchmark does). */
  readonly jsonOutput?: JsonOutputSetting;
}

/**
 * The templates a run asks with: the benchmark's declared prompt
 * (`protocolDefaults.task.prompt`) under its answer type's protocol, and the
 * user's edits over it.
 */
export function runTemplates(edited: Readonly<Record<string, PromptTemplate>> | undefined, defaults: ProtocolDefaults | undefined): { templates?: Readonly<Record<string, PromptTemplate>> } {
  const declared = defaults?.task ? declaredTemplate(defaults.task) : null;
  const templates = declared ? { [declared.protocolId]: declared.template, ...edited } : edited;
  return templates && Object.keys(templates).length ? { templates } : {};
}

/** The template hashes a run's provenance records, by protocol id. */
function templateHashes(ids: readonly string[], options: AdapterOptions = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const id of ids) {
    const p = getProtocol(id);
    if (p) out[id] = templateHash(options.templates?.[id] ?? p.templates[0]);
  }
  return out;
}

/**
 * The runner's view of a protocol (or of `auto`). Text-only variants ask the
 * protocol for a request without images; follow-up turns of multi-round cases
 * are revealed one by one by the runner.
 */
export function runProtocol(id: string, given: AdapterOptions = {}): RunProtocol {
  const options: AdapterOptions = { ...given, ...runTemplates(given.templates, given.defaults) };
  const fixed = id === AUTO_PROTOCOL ? null : getProtocol(id);
  if (id !== AUTO_PROTOCOL && !fixed) throw new Error(`Unknown protocol "${id}".`);
  const pick = (c: BenchCase): Protocol => fixed ?? protocolFor(c, options.defaults);
  // The paraphrase probe swaps in the protocol's hand-written paraphrase; an edited template has none (see paraphraseRefusal).
  const templateFor = (p: Protocol, ctx: ProtocolContext) => options.templates?.[p.id] ?? (ctx.variant === PARAPHRASE_VARIANT ? paraphraseOf(p.id) : undefined);
  const jsonOutput = options.jsonOutput ?? 'benchmark';
  const ctxFor = (p: Protocol, ctx: ProtocolContext) => {
    const template = templateFor(p, ctx);
    return {
      textOnly: ctx.variant === 'text-only',
      enforceSchema: asksForJson(jsonOutput, p.id),
      ...(template ? { template } : {}),
      ...(options.fewShot?.length ? { fewShot: options.fewShot } : {}),
    };
  };
  const ids = fixed ? [fixed.id] : Object.keys(PROTOCOLS);
  const hashes = templateHashes(ids, options);
  return {
    id,
    version: fixed ? fixed.version : sha256Hex(canonicalJson(ids.map((i) => [i, PROTOCOLS[i as keyof typeof PROTOCOLS].version]))).slice(0, 12),
    templateHash: fixed ? hashes[fixed.id]! : sha256Hex(canonicalJson(hashes)),
    jsonOutput,
    jsonSchemaFor(kase: BenchCase): Readonly<Record<string, unknown>> | undefined {
      // One rule under `auto` and a named protocol: the case's protocol and the run's setting decide.
      const p = pick(kase);
      return p.outputSchema && asksForJson(jsonOutput, p.id) ? p.outputSchema : undefined;
    },
    buildRequest(kase: BenchCase, question: Question, ctx: ProtocolContext): readonly ProtocolTurn[] {
      const p = pick(kase);
      return p.buildRequest(kase, question, ctxFor(p, ctx)).messages;
    },
    turns(kase: BenchCase, question: Question, ctx: ProtocolContext): readonly ProtocolFollowUp[] {
      const p = pick(kase);
      if (!isMultiTurn(p)) return [];
      return p.followUpTurns(kase, question, ctxFor(p, ctx)).map((f) => ({ id: f.id, turn: f.turn, parse: (raw: string) => p.parse(raw, question) }));
    },
    parse(raw: string, kase?: BenchCase, question?: Question): ParseResult {
      const p = fixed ?? (kase ? pick(kase) : null);
      if (!p) return { ok: false, error: 'No protocol for this answer.' };
      return p.parse(raw, question);
    },
  };
}

/**
 * Why a run may not combine the paraphrase probe with an edited template, or
 * null when it may. The paraphrases are hand-written rewordings of the
 * built-in templates; an edited template has none, so the probe would ask
 * the same words twice and report a consistency it never tested.
 */
export function paraphraseRefusal(variants: readonly string[], templates: Readonly<Record<string, PromptTemplate>> | undefined, defaults?: ProtocolDefaults): string | null {
  if (!variants.includes(PARAPHRASE_VARIANT)) return null;
  if (defaults?.task?.prompt) return 'The paraphrased-prompt probe rewords the built-in prompt templates only, and this benchmark declares its own prompt: leave the probe out.';
  if (!templates || Object.keys(templates).length === 0) return null;
  return 'The paraphrased-prompt probe rewords the built-in prompt template only, and this run edits the template: undo the edit or leave the probe out.';
}
