/**
 * A benchmark's declared task (protocolDefaults.task) without code: its
 * answer type picks the protocol each case is asked and scored under, its
 * prompt is what the engine receives (with its hash in provenance, a run's
 * own edit over it), the paraphrase probe is refused, and a numeric
 * tolerance decides what counts right. The run goes through the runner with
 * a fake engine that answers every request; scoring is the real scoring.
 */
import { describe, expect, it } from 'vitest';
import type { BenchCase, ProtocolDefaults } from '../../../../src/core/bundle/types.ts';
import { turnText } from '../../../../src/core/chat/turn.ts';
import type { GenerateRequest } from '../../../../src/core/engines/engine.ts';
import { declaredTemplate, protocolFor, PROTOCOLS, templateHash } from '../../../../src/core/protocols/index.ts';
import { memoryRunLock } from '../../../../src/core/runner/control.ts';
import { memoryRunStore } from '../../../../src/core/runner/memory-store.ts';
import { planRun } from '../../../../src/core/runner/plan.ts';
import { AUTO_PROTOCOL, paraphraseRefusal, runProtocol } from '../../../../src/core/runner/protocol-adapter.ts';
import { runRun } from '../../../../src/core/runner/runner.ts';
import { PARAPHRASE_VARIANT } from '../../../../src/core/runner/variants.ts';
import { scoreRun } from '../../../../src/core/scoring/run/index.ts';
import { answer, clock, fakeEngines, loadImage } from './fixtures.ts';

/** A hospital's own benchmark: lesion volumes in mL, no limits in the data, and one case with options. */
const cases: BenchCase[] = [
  { id: 'v1', taskFamily: 'open-question', images: [{ path: 'a.png', sha256: 'a'.repeat(64) }], questions: [{ id: 'q1', text: 'Lesion volume?', reference: { numeric: { value: '12.0' } } }] },
  { id: 'v2', taskFamily: 'open-question', images: [{ path: 'b.png', sha256: 'b'.repeat(64) }], questions: [{ id: 'q1', text: 'Lesion volume?', reference: { numeric: { value: '40' } } }] },
  {
    id: 'mc', taskFamily: 'multiple-choice', images: [{ path: 'c.png', sha256: 'c'.repeat(64) }],
    questions: [{ id: 'q1', text: 'Which sequence?', options: [{ key: 'A', text: 'T1' }, { key: 'B', text: 'FLAIR' }], reference: { answer: 'B' } }],
  },
];
const defaults: ProtocolDefaults = {
  task: {
    answerType: 'numeric',
    prompt: { system: 'You measure lesions on MRI.', user: 'Case question: {{question}}\nAnswer with the volume in mL only.' },
    scorer: { tolerance: { absolute: 0.5, relative: 0.05 } },
  },
};

describe('a declared task', () => {
  it('picks the answer type’s protocol for every case that can be asked so, and leaves the rest their own', () => {
    // A case with options is asked as multiple choice whatever the declaration: options need the choice protocol.
    expect(cases.map((c) => protocolFor(c, defaults).id)).toEqual(['numeric', 'numeric', 'mcq']);
    // A choice task cannot ask a case without options: those keep their own (here by their numeric reference).
    const choice: ProtocolDefaults = { task: { answerType: 'choice' } };
    expect(cases.map((c) => protocolFor(c, choice).id)).toEqual(['numeric', 'numeric', 'mcq']);
    // The declaration wins over a named protocol.
    expect(protocolFor(cases[0]!, { task: { answerType: 'free-text' }, protocol: 'nmb-differential' }).id).toBe('open-question');
  });

  it('asks with its prompt, records its hash, lets a run’s edit go over it, and refuses the paraphrase probe', async () => {
    const declared = declaredTemplate(defaults.task!)!;
    expect(declared.protocolId).toBe('numeric');
    expect(declared.template.version).toBe(`${PROTOCOLS.numeric.templates[0].version}+declared`);
    const seen: GenerateRequest[] = [];
    const engines = fakeEngines((req) => {
      seen.push(req);
      return answer('{"answer": "12.4"}');
    });
    const spec = { benchmarkId: 'b', models: [{ id: 'm', filesHash: '' }], variants: ['none' as const], samples: 1, sampling: { temperature: 0, topP: 1, seed: 1, maxTokens: 32 } };
    const protocol = runProtocol(AUTO_PROTOCOL, { defaults });
    await runRun({ runId: 'r', plan: planRun(spec, cases.slice(0, 1)), engineFor: engines.engineFor, protocol, store: memoryRunStore(), images: loadImage, lock: memoryRunLock(), now: clock() });
    expect(seen).toHaveLength(1);
    expect(turnText(seen[0]!.messages[0]!)).toBe('You measure lesions on MRI.');
    expect(turnText(seen[0]!.messages.at(-1)!)).toBe('Case question: Lesion volume?\nAnswer with the volume in mL only.');
    // The named protocol's provenance hash is the declared template's; a run's own edit replaces it.
    expect(runProtocol('numeric', { defaults }).templateHash).toBe(templateHash(declared.template));
    expect(runProtocol('numeric', { defaults }).templateHash).not.toBe(runProtocol('numeric').templateHash);
    const edited = { ...declared.template, version: `${declared.template.version}+edited`, user: 'Volume? {{question}}' };
    expect(runProtocol('numeric', { defaults, templates: { numeric: edited } }).templateHash).toBe(templateHash(edited));
    expect(paraphraseRefusal([PARAPHRASE_VARIANT], undefined, defaults)).toMatch(/declares its own prompt/);
    expect(paraphraseRefusal(['none'], undefined, defaults)).toBeNull();
  });

  it('scores a numeric answer without limits within the declared tolerance, the larger of the two', async () => {
    const reply = (caseId: string, text: string) => ({
      id: `r/${caseId}`, runId: 'r', itemKey: `${caseId}#q1|m|none|s0`, caseId, questionId: 'q1', cacheKey: '', modelId: 'm', variant: 'none', sample: 0, rawText: text,
      parsed: null, parseError: null, usage: { promptTokens: 1, completionTokens: 1, ttftMs: 1, prefillTps: 1, decodeTps: 1 }, latencyMs: 1, finishReason: 'stop', createdAt: 1,
    });
    // v1: 12.0 ± max(0.5, 0.6) → 12.55 is in; v2: 40 ± max(0.5, 2) → 42.5 is out.
    const responses = [reply('v1', '{"answer": "12.55"}'), reply('v2', '{"answer": "42.5"}')];
    const correct = async (d: ProtocolDefaults | undefined) => {
      const scored = await scoreRun({ protocolId: 'auto', cases: cases.slice(0, 2), responses, ...(d ? { defaults: d } : {}) }, { resamples: 20 });
      return scored.items.map((i) => i.metrics['numeric.match']?.value);
    };
    expect(await correct(defaults)).toEqual([1, 0]);
    // Without the declaration a decimal without limits must equal the reference.
    expect(await correct(undefined)).toEqual([0, 0]);
  });
});
