/**
 * The exact prompt a run sent for one question: rebuilt from the run's stored
 * configuration (protocol, edited templates) with the same protocol code the
 * runner used, so it is what the model saw, text for text. Few-shot
 * exemplars (NeuroVLM-Bench few-shot runs) are named, not re-rendered.
 */
import type { BenchCase, ProtocolDefaults, Question } from '../../core/bundle/types.ts';
import type { RunRecord } from '../../core/runner/records.ts';
import { runProtocol } from '../../core/runner/protocol-adapter.ts';
import type { ProtocolTurn, Variant } from '../../core/runner/types.ts';

interface SentPrompt {
  readonly turns: readonly ProtocolTurn[];
  readonly followUps: readonly { readonly id: string; readonly turn: ProtocolTurn }[];
  readonly note?: string;
}

/** The prompt a run sent for one case, rebuilt from its configuration and the benchmark's protocol defaults (its declared task's prompt). */
export function sentPrompt(run: RunRecord, kase: BenchCase, question: Question, variant: string, defaults?: ProtocolDefaults): SentPrompt | { error: string } {
  const config = run.config;
  const protocolId = config?.protocolId ?? run.provenance.protocol.id;
  if (!protocolId) return { error: 'This run does not record its protocol, so its prompt cannot be shown.' };
  try {
    const p = runProtocol(protocolId, { ...(config?.templates ? { templates: config.templates } : {}), ...(defaults ? { defaults } : {}) });
    const ctx = { modelId: '', variant: variant as Variant, sample: 0 };
    return {
      turns: p.buildRequest(kase, question, ctx),
      followUps: p.turns?.(kase, question, ctx) ?? [],
      ...(config?.fewShot ? { note: 'This run used few-shot exemplars; they preceded this turn as in the benchmark (image and class label each).' } : {}),
    };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}
