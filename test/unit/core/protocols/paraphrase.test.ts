import { describe, expect, it } from 'vitest';
import type { BenchCase } from '../../../../src/core/bundle/types.ts';
import { turnImages, turnText } from '../../../../src/core/chat/turn.ts';
import { PROTOCOL_IDS, type PromptTemplate } from '../../../../src/core/protocols/index.ts';
import { PARAPHRASES, paraphraseOf, reword } from '../../../../src/core/protocols/paraphrase/index.ts';
import { promptHash } from '../../../../src/core/runner/cache-key.ts';
import { paraphraseRefusal, runProtocol } from '../../../../src/core/runner/protocol-adapter.ts';
import type { ProtocolTurn, Variant } from '../../../../src/core/runner/types.ts';
import { PROTOCOLS } from '../../../../src/core/protocols/registry.ts';
import { MCQ_CASE, MULTI_ROUND_CASE, NMB_CASE, RUBRIC_CASE, fewShotCase, nvbCase } from './fixtures.ts';

const FIELDS = ['system', 'user', 'fewShotHeader', 'fewShotExample', 'fewShotFooter', 'fewShotQuery', 'followUp'] as const;

/**
 * What a paraphrase must not touch, as a multiset per field: placeholders and
 * sections, quoted strings, JSON shapes, "a | b" value lists, snake_case field
 * names and the fixed format phrases.
 */
function formatTokens(text: string | undefined): string[] {
  if (!text) return [];
  const patterns = [
    /\{\{[^}]+\}\}/g,
    /"[^"\n]*"/g,
    /^[ \t]*(?:\{"|\{$|\})[^\n]*$/gm,
    /[\w+.-]+(?: \| [\w+.-]+)+/g,
    /\b[a-z0-9]+_[a-z0-9_]+\b/g,
    /Choose exactly one[^\n]*/g,
    /A number in \[0, 1\]/g,
    /\b(?:else|use|set it to) null\b/g,
    /output ONLY the JSON(?: as)? per the schema\./g,
    /Answer with one JSON object only:/g,
    /plain text/g,
    /up to \d+/g,
  ];
  return patterns.flatMap((re) => text.match(re) ?? []).sort();
}

// A case the protocol is asked with, and the variables it shows (so the test covers clinical text, options and follow-ups).
const CASES: Record<string, BenchCase> = {
  'neurovlm-structured': nvbCase(),
  'nmb-differential': NMB_CASE,
  'nmb-lesion': NMB_CASE,
  'nmb-rationale': NMB_CASE,
  'nmb-multi-round': MULTI_ROUND_CASE,
  'structured-review': NMB_CASE,
  mcq: MCQ_CASE,
  rubric: RUBRIC_CASE,
  'open-question': NMB_CASE,
  'short-answer': NMB_CASE,
  numeric: NMB_CASE,
  box: NMB_CASE,
};

function ask(protocolId: string, variant: Variant, options: Parameters<typeof runProtocol>[1] = {}) {
  const kase = CASES[protocolId]!;
  const q = kase.questions[0]!;
  const p = runProtocol(protocolId, options);
  const ctx = { modelId: 'm', variant, sample: 0 };
  const opening = p.buildRequest(kase, q, ctx);
  const followUps = p.turns?.(kase, q, ctx) ?? [];
  return { opening, followUps, hash: promptHash(opening, followUps) };
}

const shape = (turns: readonly ProtocolTurn[]) => turns.map((t) => ({ role: t.role, images: turnImages(t), parts: t.parts.map((x) => x.type) }));

describe('paraphrased prompts', () => {
  it('every protocol has one, under its own id, rewording text but no placeholder or format instruction', () => {
    expect(Object.keys(PARAPHRASES).sort()).toEqual([...PROTOCOL_IDS].sort());
    for (const id of PROTOCOL_IDS) {
      const original: PromptTemplate = PROTOCOLS[id].templates[0];
      const para = paraphraseOf(id)!;
      expect(para.id, id).toBe(`${original.id}-paraphrase`);
      let reworded = 0;
      for (const f of FIELDS) {
        expect(formatTokens(para[f]), `${id}.${f}`).toEqual(formatTokens(original[f]));
        if (para[f] !== original[f]) reworded++;
      }
      expect(reworded, id).toBeGreaterThan(0);
    }
    expect(paraphraseOf('no-such-protocol')).toBeUndefined();
  });

  it('NeuroVLM-Bench keeps every allowed value, the schema and both examples word for word', () => {
    const original = PROTOCOLS['neurovlm-structured'].templates[0].system!;
    const para = PARAPHRASES['neurovlm-structured'].system!;
    expect(para).not.toBe(original);
    // Everything from the schema heading on (schema, examples, closing line) is the benchmark's, byte for byte.
    const tail = original.slice(original.indexOf('OUTPUT (strict JSON schema)'));
    expect(para.endsWith(tail)).toBe(true);
    for (const line of original.split('\n').filter((l) => /If diagnosis_name =|"/.test(l))) expect(para).toContain(line);
    for (const [choice] of original.matchAll(/Choose exactly one[^\n]*/g)) expect(para).toContain(choice);
  });

  it('asks the same case with the same images in the same places, only in other words, under another prompt hash', () => {
    for (const id of PROTOCOL_IDS) {
      const plain = ask(id, 'none');
      const para = ask(id, 'probe:paraphrase');
      expect(shape(para.opening), id).toEqual(shape(plain.opening));
      expect(para.followUps.map((f) => [f.id, shape([f.turn])]), id).toEqual(plain.followUps.map((f) => [f.id, shape([f.turn])]));
      expect(para.opening.map(turnText), id).not.toEqual(plain.opening.map(turnText));
      // The question itself is sent as the benchmark gives it.
      if (id !== 'neurovlm-structured') expect(para.opening.map(turnText).join('\n'), id).toContain(CASES[id]!.questions[0]!.text);
      expect(para.hash, id).not.toBe(plain.hash);
      // Other variants keep the original wording.
      expect(ask(id, 'probe:mirror').hash, id).toBe(plain.hash);
    }
    const mr = [ask('nmb-multi-round', 'none'), ask('nmb-multi-round', 'probe:paraphrase')];
    expect(turnText(mr[1]!.followUps[0]!.turn)).toContain('Further images: 1.');
    expect(turnText(mr[0]!.followUps[0]!.turn)).toContain('New images: 1.');
  });

  it('rewords the few-shot turns of NeuroVLM-Bench too, keeping the exemplars and their labels', () => {
    const fewShot = [fewShotCase(1, 'tumor', 'a.png'), fewShotCase(2, 'stroke', 'b.png')];
    const plain = ask('neurovlm-structured', 'none', { fewShot });
    const para = ask('neurovlm-structured', 'probe:paraphrase', { fewShot });
    expect(shape(para.opening)).toEqual(shape(plain.opening));
    const text = turnText(para.opening[1]!);
    expect(text).toContain('Example 1 — class: tumor');
    expect(text).toContain('Allowed classes: tumor | stroke | multiple sclerosis | normal | other abnormalities');
    expect(text).not.toBe(turnText(plain.opening[1]!));
  });

  it('an edited template has no paraphrase: the run is refused, and the adapter would reword nothing', () => {
    const edited = { mcq: { ...PROTOCOLS.mcq.templates[0], version: '1+edited', user: 'Q: {{question}}\n{{options}}\nAnswer: X, X in {{optionKeys}}.' } };
    expect(paraphraseRefusal(['none', 'probe:paraphrase'], edited)).toMatch(/edits the template/);
    expect(paraphraseRefusal(['none', 'probe:mirror'], edited)).toBeNull();
    expect(paraphraseRefusal(['none', 'probe:paraphrase'], undefined)).toBeNull();
    expect(ask('mcq', 'probe:paraphrase', { templates: edited }).hash).toBe(ask('mcq', 'none', { templates: edited }).hash);
  });

  it('fails loudly when a reworded phrase is not in the original, or is ambiguous', () => {
    expect(reword('Give a diagnosis.', [['Give', 'Name']])).toBe('Name a diagnosis.');
    expect(() => reword('Give a diagnosis.', [['State', 'Name']])).toThrow(/not in the original/);
    expect(() => reword('a a', [['a', 'b']])).toThrow(/more than once/);
  });
});
