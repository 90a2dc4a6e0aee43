/**
 * Plain words for what the stored records say in keys: who decided a score
 * ("JSON rule", "local judge Self-test text model") and how an answer ended
 * ("64 tokens: reached the answer budget, cut off"). Pure, for the answer
 * cards of the drill-down and review pages.
 */
import { modelDisplayName } from '../../core/results/model-names.ts';

const RULES: Readonly<Record<string, string>> = {
  json: 'JSON rule (the answer parsed as one JSON object)',
  exact: 'exact-match rule',
  alias: 'alias rule (matched a listed synonym)',
  none: 'no rule matched',
  rouge: 'ROUGE (word overlap)',
  'squad-f1': 'token F1 (SQuAD rules)',
  'neurovlm-normalise': 'NeuroVLM-Bench normalisation rule',
  invalid: 'no answer letter found',
  sequence: 'sequence-name rule',
  boxed: 'answer-letter rule: \\boxed{X}',
  'answer-marker': 'answer-letter rule: after "Answer:"',
  parenthesis: 'answer-letter rule: (X)',
  'line-start': 'answer-letter rule: "X." at a line start',
  'option-text': "answer-letter rule: the option's text",
  'last-letter': 'answer-letter rule: the last letter named',
};

/** Who decided a value, in words: a rule by name, the local judge or encoder by model name, or the reviewers. */
export function decidedByLabel(source: string, sourceId: string): string {
  if (source === 'rule') {
    const key = sourceId.replace(/^rule:/, '');
    if (key.startsWith('lesion-')) return `lesion rule (${key.slice('lesion-'.length)})`;
    return RULES[key] ?? `${key} rule`;
  }
  if (source === 'judge') return sourceId ? `local judge ${modelDisplayName(sourceId)}` : 'local judge';
  if (source === 'encoder') return `encoder ${modelDisplayName(sourceId)}`;
  if (source === 'reviewer') return sourceId ? `reviewer ${sourceId}` : 'reviewer';
  return sourceId ? `${source} ${sourceId}` : source;
}

/** How many tokens the answer took and why it ended. */
export function lengthLabel(tokens: number | null | undefined, finishReason: string, truncated: boolean): string {
  const n = tokens === null || tokens === undefined ? 'unknown number of' : String(tokens);
  const noun = tokens === 1 ? 'token' : 'tokens';
  if (truncated) return `${n} ${noun}: reached the answer budget, so the answer is cut off`;
  const why = ({ stop: 'the model finished on its own', abort: 'stopped (the run was paused or cancelled)', error: 'the call failed' } as Record<string, string>)[finishReason] ?? `ended: ${finishReason}`;
  return `${n} ${noun}, ${why}`;
}
