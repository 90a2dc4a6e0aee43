/**
 * The generation loop the VLM and the text LLM share: streams tokens with
 * timings, stops on abort, seeds the sampler, applies our top-p (transformers.js
 * 4.3.1 ignores its own), and decides the finish reason.
 */
import type { PreTrainedModel, PreTrainedTokenizer, Tensor } from '@huggingface/transformers';
import type { GenerateResult } from '../engine.ts';
import type { GenerationMeter } from './generation-meter.ts';
import type { TransformersLib } from './runtime.ts';
import { createTopPProcessor } from './sampling.ts';
import type { TokenEvent, VlmSampling } from './generation.ts';

interface DecodeLoopInput {
  readonly lib: TransformersLib;
  readonly model: PreTrainedModel;
  readonly tokenizer: PreTrainedTokenizer;
  /** Encoded prompt (and pixel values for a VLM). */
  readonly inputs: { readonly input_ids: Tensor } & Readonly<Record<string, unknown>>;
  readonly sampling: VlmSampling;
  readonly eosIds: ReadonlySet<number>;
  readonly meter: GenerationMeter;
  readonly onToken?: (event: TokenEvent) => void;
}

/** Runs `model.generate` once. Never throws for an abort: returns the text so far with `finishReason: 'abort'`. */
export async function runDecodeLoop({ lib, model, tokenizer, inputs, sampling, eosIds, meter, onToken }: DecodeLoopInput): Promise<GenerateResult> {
  const signal = sampling.signal;
  const stop = new lib.InterruptableStoppingCriteria();
  const onAbort = () => stop.interrupt();
  signal?.addEventListener('abort', onAbort, { once: true });
  const generated: number[] = [];
  let emitted = '';
  const streamer = new lib.TextStreamer(tokenizer, {
    skip_prompt: true,
    callback_function: () => {},
    token_callback_function: (tokens: bigint[]) => {
      const elapsedMs = meter.token();
      const tokenId = Number(tokens[0]);
      generated.push(tokenId);
      if (signal?.aborted) stop.interrupt();
      if (!onToken) return;
      const decoded = tokenizer.decode(generated, { skip_special_tokens: true });
      // Hold back a trailing replacement character: the next byte token may complete it.
      const stable = decoded.replace(/\uFFFD+$/, '');
      const piece = stable.startsWith(emitted) ? stable.slice(emitted.length) : '';
      emitted += piece;
      onToken({ index: generated.length - 1, tokenId, text: piece, elapsedMs });
    },
  });

  const stoppingCriteria = new lib.StoppingCriteriaList();
  stoppingCriteria.push(stop);
  const sample = sampling.temperature > 0;
  const logitsProcessor = new lib.LogitsProcessorList();
  if (sample && sampling.topP < 1) logitsProcessor.push(createTopPProcessor(lib, sampling.topP));

  meter.modelStarted(inputs.input_ids.dims.at(-1) ?? 0);
  lib.random.seed(sampling.seed);
  try {
    await model.generate({
      ...inputs,
      max_new_tokens: sampling.maxTokens,
      do_sample: sample,
      ...(sample ? { temperature: sampling.temperature, top_k: 0 } : {}),
      streamer,
      stopping_criteria: stoppingCriteria,
      logits_processor: logitsProcessor,
    });
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }

  const last = generated.at(-1);
  const endedOnEos = last !== undefined && eosIds.has(last);
  const finishReason = endedOnEos ? 'stop' : stop.interrupted ? 'abort' : generated.length >= sampling.maxTokens ? 'length' : 'stop';
  const text = generated.length ? tokenizer.decode(generated, { skip_special_tokens: true }) : '';
  return { text, finishReason, usage: meter.usage() };
}
