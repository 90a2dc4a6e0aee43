/**
 * A list of strings stored as one UTF-8 byte array and each string's end
 * offset. IndexedDB reads a record back by deserialising it, and an array
 * of strings deserialises one string at a time: the 100,000 answer ids of a
 * large score set took longer to read back than everything else the results
 * page opens with. Two typed arrays come back as two buffer copies; a string
 * is decoded only when it is asked for.
 */
export interface PackedStrings {
  readonly bytes: Uint8Array;
  /** Where each string ends in `bytes` (it starts where the one before ends). */
  readonly ends: Uint32Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function packStrings(values: readonly string[]): PackedStrings {
  const parts = values.map((v) => encoder.encode(v));
  const ends = new Uint32Array(parts.length);
  let at = 0;
  parts.forEach((p, i) => (ends[i] = at += p.length));
  const bytes = new Uint8Array(at);
  parts.forEach((p, i) => bytes.set(p, i === 0 ? 0 : ends[i - 1]!));
  return { bytes, ends };
}

/** The i-th string. */
export function packedAt(p: PackedStrings, i: number): string {
  if (i < 0 || i >= p.ends.length) throw new RangeError(`No string ${i} in a list of ${p.ends.length}`);
  return decoder.decode(p.bytes.subarray(i === 0 ? 0 : p.ends[i - 1]!, p.ends[i]!));
}

/** Lists already unpacked: a digest's case ids are asked for by the answer index, each metric's light rows and each answer id. */
const unpacked = new WeakMap<PackedStrings, readonly string[]>();

/**
 * Every string, unpacked once per list (the list is never changed). Text
 * that is all ASCII (ids almost always are) is decoded once and cut at the
 * offsets, which are then character offsets too; other text is decoded
 * string by string.
 */
export function unpackStrings(p: PackedStrings): readonly string[] {
  let out = unpacked.get(p);
  if (!out) unpacked.set(p, (out = unpack(p)));
  return out;
}

/** The i-th string, from the unpacked list when there is one: a page of the answers table needs 100 case ids, not 25,000. */
export function stringAt(p: PackedStrings, i: number): string {
  return unpacked.get(p)?.[i] ?? packedAt(p, i);
}

function unpack(p: PackedStrings): string[] {
  const n = p.ends.length;
  const out = new Array<string>(n);
  const text = decoder.decode(p.bytes);
  if (text.length === p.bytes.length) {
    for (let i = 0, start = 0; i < n; start = p.ends[i]!, i++) out[i] = text.slice(start, p.ends[i]!);
    return out;
  }
  for (let i = 0; i < n; i++) out[i] = packedAt(p, i);
  return out;
}
