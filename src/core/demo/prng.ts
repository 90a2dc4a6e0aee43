/**
 * Seeded pseudo-random numbers for the synthetic demo benchmark. The demo's
 * content hash must be the same on every run and every JavaScript engine, so
 * everything here uses 32-bit integer arithmetic (Math.imul, shifts), never
 * Math.random, dates or transcendental functions.
 */

/** A 32-bit hash of a string (FNV-1a), to derive stable seeds from case ids. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Mixes up to three integers into one well-scrambled 32-bit value (lowbias32 finaliser). */
export function hash3(a: number, b: number, c: number): number {
  let h = (Math.imul(a | 0, 0x27d4eb2d) ^ Math.imul(b | 0, 0x165667b1) ^ Math.imul(c | 0, 0x9e3779b1)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

/** mulberry32: a tiny, fast generator with a 32-bit state; good enough for pictures and shuffles. */
export class Prng {
  private state: number;

  constructor(seed: number | string) {
    this.state = (typeof seed === 'string' ? hashString(seed) : seed) >>> 0;
  }

  /** Next raw 32-bit unsigned integer. */
  nextUint32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform in [0, 1), a multiple of 2^-32 (exact in every engine). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Uniform in [min, max). */
  range(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Integer in [min, max] inclusive. */
  int(min: number, max: number): number {
    return min + (this.nextUint32() % (max - min + 1));
  }

  /** Approximately normal (mean 0, sd 1): the sum of four uniforms, rescaled. Bounded, cheap, exact. */
  gauss(): number {
    return (this.next() + this.next() + this.next() + this.next() - 2) * 1.7320508075688772;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('Prng.pick: empty list');
    return items[this.nextUint32() % items.length]!;
  }

  /** A new generator derived from this one's current state and a label. */
  fork(label: string): Prng {
    return new Prng(hash3(this.state, hashString(label), 0x5eed));
  }
}
