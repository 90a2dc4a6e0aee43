/**
 * Bounded decompression for `.nii.gz` and Deflated DICOM. A few megabytes of
 * gzip can expand to many gigabytes, so output is produced in steps and
 * checked against a cap, and callers can stop as soon as they have the bytes
 * they need (the first volume of a long fMRI series, for example).
 */
import { formatBytes } from '../text/units.ts';
import { type FlateStreamHandler, Gunzip, Inflate, Unzlib } from 'fflate';
import { InvalidInputError } from '../errors.ts';

/** Most bytes any single medical file may decompress to (2 GiB). */
export const MAX_DECOMPRESSED_BYTES = 2 * 1024 ** 3;

/**
 * Input is fed in slices this big so output arrives in bounded steps: deflate
 * expands at most ~1000×, so one step yields at most ~16 MiB.
 */
const INPUT_STEP = 16 * 1024;

type CompressionFormat = 'gzip' | 'deflate' | 'zlib';

interface Stream {
  ondata: FlateStreamHandler;
  push(chunk: Uint8Array, final?: boolean): void;
}

/**
 * Incremental decompressor with an output cap. {@link take} decompresses
 * only as far as needed.
 */
export class BoundedInflater {
  private readonly stream: Stream;
  private out: Uint8Array = new Uint8Array(0);
  private size = 0;
  private inputPos = 0;
  private ended = false;
  /** Output went past the cap; what fits was kept, the rest discarded. */
  private overflowed = false;
  /** Why decompression stopped early, if the data is damaged. */
  private failure: InvalidInputError | undefined;

  constructor(
    private readonly input: Uint8Array,
    format: CompressionFormat,
    private readonly maxBytes: number = MAX_DECOMPRESSED_BYTES,
    private readonly file?: string,
  ) {
    this.stream = format === 'gzip' ? new Gunzip() : format === 'zlib' ? new Unzlib() : new Inflate();
    this.stream.ondata = (data, final) => {
      this.append(data);
      if (final) this.ended = true;
    };
  }

  /** True once the compressed stream has been fully read. */
  get done(): boolean {
    return this.ended;
  }

  /** Decompressed bytes available so far. */
  get available(): number {
    return this.size;
  }

  /**
   * Returns the first `count` decompressed bytes, or fewer if the stream ends
   * first (callers compare the length to detect truncated files). Damage
   * beyond the bytes asked for (such as junk after a gzip stream, which some
   * tools append) does not matter and is not reported.
   */
  take(count: number): Uint8Array {
    if (count > this.maxBytes) this.tooBig(count);
    while (this.size < count && !this.ended) this.step();
    if (this.size < count && this.overflowed) this.tooBig(this.maxBytes + 1);
    if (this.size < count && this.failure) throw this.failure;
    return this.out.subarray(0, Math.min(count, this.size));
  }

  /** Decompresses everything and returns it; throws if it exceeds the cap or is damaged. */
  takeAll(): Uint8Array {
    while (!this.ended) this.step();
    if (this.overflowed) this.tooBig(this.maxBytes + 1);
    if (this.failure) throw this.failure;
    return this.out.subarray(0, this.size);
  }

  private step(): void {
    if (this.inputPos >= this.input.length) {
      this.ended = true;
      return;
    }
    const end = Math.min(this.input.length, this.inputPos + INPUT_STEP);
    const chunk = this.input.subarray(this.inputPos, end);
    this.inputPos = end;
    try {
      this.stream.push(chunk, end === this.input.length);
    } catch (error) {
      if (error instanceof InvalidInputError) throw error;
      // Remember the damage and stop; the caller decides whether it reached the bytes it needs.
      const detail = error instanceof Error ? error.message : String(error);
      this.failure = new InvalidInputError(
        /unexpected EOF/i.test(detail)
          ? 'This compressed file ends early: it may have been cut short during download or copying.'
          : `The compressed data in this file is corrupt (${detail}).`,
        this.file ? { file: this.file } : undefined,
      );
      this.ended = true;
    }
  }

  private append(chunk: Uint8Array): void {
    if (this.overflowed) return;
    let data = chunk;
    if (this.size + data.length > this.maxBytes) {
      // Keep what fits: a caller that needs only the start of the stream can still be served.
      data = data.subarray(0, this.maxBytes - this.size);
      this.overflowed = true;
      this.ended = true;
    }
    const needed = this.size + data.length;
    if (needed > this.out.length) {
      // Doubling keeps copies amortised; never allocate past the cap.
      const grown = new Uint8Array(Math.min(this.maxBytes, Math.max(needed, this.out.length * 2, 64 * 1024)));
      grown.set(this.out.subarray(0, this.size));
      this.out = grown;
    }
    this.out.set(data, this.size);
    this.size = needed;
  }

  private tooBig(bytes: number): never {
    throw new InvalidInputError(
      `This file expands to more than ${formatBytes(this.maxBytes)} when decompressed${bytes > this.maxBytes + 1 ? ` (at least ${formatBytes(bytes)})` : ''}, which is more than the app can hold in memory.`,
      this.file ? { file: this.file } : undefined,
    );
  }
}
