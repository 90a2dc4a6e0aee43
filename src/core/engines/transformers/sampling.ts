/**
 * Sampling pieces transformers.js 4.3.1 lacks: its `TopPLogitsWarper` is a
 * stub without `_call`, and `generate()` never applies `top_p`. This nucleus
 * filter runs after the temperature warper (user processors come last).
 */
import type { Tensor } from '@huggingface/transformers';
import type { TransformersLib } from './runtime.ts';

/** Keeps the smallest set of most likely tokens whose probabilities sum to at least `topP`; masks the rest. */
export function topPFilter(row: Float32Array, topP: number): void {
  if (topP >= 1) return;
  const order = Array.from(row.keys()).sort((a, b) => row[b]! - row[a]! || a - b);
  const max = row[order[0]!]!;
  let sum = 0;
  const weights = order.map((i) => {
    const w = Math.exp(row[i]! - max);
    sum += w;
    return w;
  });
  let cumulative = 0;
  let keep = 0;
  while (keep < order.length) {
    cumulative += weights[keep]! / sum;
    keep++;
    if (cumulative >= topP) break;
  }
  for (let k = keep; k < order.length; k++) row[order[k]!] = -Infinity;
}

/** A transformers.js logits processor applying {@link topPFilter} to every row of a [batch, vocab] logits tensor. */
export function createTopPProcessor(lib: TransformersLib, topP: number): InstanceType<TransformersLib['LogitsProcessor']> {
  class TopPProcessor extends lib.LogitsProcessor {
    override _call(_inputIds: bigint[][], logits: Tensor): Tensor {
      const vocab = logits.dims.at(-1)!;
      const data = logits.data as Float32Array;
      for (let start = 0; start < data.length; start += vocab) topPFilter(data.subarray(start, start + vocab), topP);
      return logits;
    }
  }
  return new TopPProcessor();
}
