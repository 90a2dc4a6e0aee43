/**
 * How many greedy requests the cached decoder decodes together on this
 * machine: chosen from the decoder's weight format, the memory a batch's
 * caches take, and the decode step's measured time at each size.
 *
 * - 8-bit decoders (transformers.js `q8`, `int8`, `uint8`) decode alone:
 *   their dynamic quantisation scales each call's activations by one factor
 *   for the whole batch, so a request's answer would depend on the requests
 *   beside it.
 * - Otherwise the decode step is timed with 1, 2, 4 and 8 rows on a
 *   synthetic cache, and a size is taken while it answers at least
 *   {@link GAIN} times as many rows per second as the size before it (on a
 *   GPU a step reads the weights once for every row; on a CPU the rows share
 *   the arithmetic units, so batching pays less) and its caches fit the
 *   memory budget.
 */

/** Batch sizes tried, smallest first. */
export const BATCH_SIZES = [1, 2, 4, 8] as const;

/** A larger batch must answer this many times more rows per second than the size before it. */
export const GAIN = 1.2;

/** Bytes the caches of one batch may take: a quarter of a 4 GiB wasm heap, and a modest share of a GPU's memory. */
export const BATCH_CACHE_BUDGET = 1024 ** 3;

/** Positions a request's cache is planned for when its size is not known yet (a long prompt with images and an answer). */
export const PLANNED_POSITIONS = 2048;

/** Weight formats whose activations are quantised per call (one scale for the whole batch). */
const PER_CALL_QUANTISED = new Set(['q8', 'int8', 'uint8']);

export interface BatchFacts {
  /** The decoder's weight format as loaded (`q8`, `q4`, `fp32`, …), or null when unknown. */
  readonly decoderDtype: string | null;
  /** Cache bytes one request holds per position. */
  readonly cacheBytesPerPosition: number;
  /** Positions one request's cache is planned for. */
  readonly positions: number;
  /** Measured decode-step time by batch size (ms); null when not measured. */
  readonly stepMs: ReadonlyMap<number, number> | null;
}

export interface BatchChoice {
  readonly size: number;
  /** Why, in a sentence (shown in diagnostics and provenance). */
  readonly reason: string;
}

/** Whether a decoder of this weight format quantises each call's activations with one scale for all rows. */
export function quantisedPerCall(dtype: string | null): boolean {
  return dtype !== null && PER_CALL_QUANTISED.has(dtype);
}

/** The batch size for these facts ({@link BatchFacts}); see the file comment for the rules. */
export function chooseBatchSize(f: BatchFacts): BatchChoice {
  if (quantisedPerCall(f.decoderDtype)) {
    return { size: 1, reason: `the ${f.decoderDtype} decoder quantises each call's activations with one scale for all rows, so requests decoded together would change each other's answers` };
  }
  const perRequest = f.cacheBytesPerPosition * f.positions;
  const fits = (size: number) => perRequest * size <= BATCH_CACHE_BUDGET;
  if (!f.stepMs || f.stepMs.size === 0) return { size: 1, reason: 'the decode step was not measured' };
  let size = 1;
  for (const next of BATCH_SIZES.slice(1)) {
    const now = f.stepMs.get(size);
    const then = f.stepMs.get(next);
    if (now === undefined || then === undefined || !fits(next)) break;
    const gain = next / then / (size / now);
    if (gain < GAIN) break;
    size = next;
  }
  const mib = Math.round((perRequest * size) / 1024 ** 2);
  return {
    size,
    reason: size === 1 ? 'decoding rows together was not measurably faster here' : `${size} rows per step decode ${(size / f.stepMs.get(size)! / (1 / f.stepMs.get(1)!)).toFixed(1)}× as many tokens per second as one; their caches take about ${mib} MiB`,
  };
}
