/**
 * When and how long the endpoint engine waits before asking again. A busy
 * vLLM or TGI server answers 429 (queue full) or 503 (warming up) and expects
 * the client to come back later; a 400 means the request itself is wrong and
 * asking again cannot help.
 */
import { AbortedError } from '../../errors.ts';

export interface RetryPolicy {
  /** Attempts after the first one (0: never retry). */
  readonly retries: number;
  /** First back-off; each retry doubles it, with full jitter. */
  readonly baseDelayMs: number;
  /** Ceiling of one wait (a server's Retry-After above it is cut to it). */
  readonly maxDelayMs: number;
  /** Limit of one attempt, from sending to the last streamed token; null: none. */
  readonly timeoutMs: number | null;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { retries: 4, baseDelayMs: 500, maxDelayMs: 30_000, timeoutMs: 600_000 };

/** 429 and 5xx are the server's load or health, not the request: worth another attempt. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** Milliseconds a `Retry-After` header asks for (seconds or an HTTP date), or null when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * The wait before retry number `attempt` (1 for the first retry): the
 * server's Retry-After when it sent one, else exponential back-off with full
 * jitter (a random wait up to base·2^(attempt−1)), so clients that failed
 * together do not come back together. Never above `maxDelayMs`.
 */
export function backoffMs(attempt: number, policy: RetryPolicy, retryAfter: number | null, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  const wait = retryAfter ?? random() * ceiling;
  return Math.min(policy.maxDelayMs, Math.max(0, wait));
}

/** Resolves after `ms`, or rejects with AbortedError as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new AbortedError());
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortedError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** One attempt's signal: aborts when the caller aborts or when the attempt runs past its limit. */
export interface AttemptSignal {
  readonly signal: AbortSignal;
  /** True when the limit, not the caller, aborted the attempt. */
  readonly timedOut: () => boolean;
  readonly dispose: () => void;
}

export function attemptSignal(caller: AbortSignal | undefined, timeoutMs: number | null): AttemptSignal {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(caller?.reason);
  if (caller?.aborted) controller.abort(caller.reason);
  else caller?.addEventListener('abort', onAbort, { once: true });
  const timer =
    timeoutMs === null
      ? null
      : setTimeout(() => {
          timedOut = true;
          controller.abort(new Error(`timed out after ${timeoutMs} ms`));
        }, timeoutMs);
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose: () => {
      if (timer !== null) clearTimeout(timer);
      caller?.removeEventListener('abort', onAbort);
    },
  };
}
