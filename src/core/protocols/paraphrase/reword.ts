/**
 * Rewording a template for the paraphrase probe. A paraphrase is written as
 * hand-picked phrase replacements on the original template rather than as a
 * second copy: every byte not named in a replacement (placeholders, field
 * names, allowed values, the JSON shape) stays exactly as the original has
 * it, and a replacement whose phrase has gone from the original (because the
 * original was edited) fails loudly instead of silently rewording nothing.
 */
import type { PromptTemplate } from '../types.ts';

/** One rewording: the original phrase (found exactly once) and what replaces it. */
export type Rewording = readonly [original: string, reworded: string];

/** The template fields a paraphrase may reword. */
export type RewordedField = 'system' | 'user' | 'fewShotHeader' | 'fewShotFooter' | 'fewShotQuery' | 'followUp';

/** Replaces each phrase in `text`; throws when a phrase is absent or ambiguous. */
export function reword(text: string, rewordings: readonly Rewording[], where = 'template'): string {
  let out = text;
  for (const [from, to] of rewordings) {
    const at = out.indexOf(from);
    if (at === -1) throw new Error(`Paraphrase of ${where}: the phrase "${from.slice(0, 60)}" is not in the original.`);
    if (out.indexOf(from, at + 1) !== -1) throw new Error(`Paraphrase of ${where}: the phrase "${from.slice(0, 60)}" occurs more than once.`);
    out = out.slice(0, at) + to + out.slice(at + from.length);
  }
  return out;
}

/** The paraphrased template: the original with each field's rewordings applied, under its own id. */
export function paraphraseTemplate(original: PromptTemplate, rewordings: Partial<Record<RewordedField, readonly Rewording[]>>): PromptTemplate {
  const fields: Partial<Record<RewordedField, string>> = {};
  for (const [field, list] of Object.entries(rewordings) as [RewordedField, readonly Rewording[]][]) {
    const text = original[field];
    if (text === undefined) throw new Error(`Paraphrase of ${original.id}: it has no ${field} text.`);
    fields[field] = reword(text, list, `${original.id}.${field}`);
  }
  return { ...original, id: `${original.id}-paraphrase`, version: '1', ...fields };
}
