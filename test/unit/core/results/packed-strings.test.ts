import { describe, expect, it } from 'vitest';
import { packStrings, packedAt, stringAt, unpackStrings } from '../../../../src/core/results/packed-strings.ts';

describe('packed strings', () => {
  it('gives back every string, in order, ASCII ids and all', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `run-7/case-${i}#q|model-${i % 4}|none|s0`);
    const p = packStrings(ids);
    expect(unpackStrings(p)).toEqual(ids);
    // Unpacked once: a second ask gives the same list.
    expect(unpackStrings(p)).toBe(unpackStrings(p));
    expect(packedAt(p, 0)).toBe(ids[0]);
    expect(packedAt(p, 999)).toBe(ids[999]);
  });

  it('keeps text that is not ASCII, empty strings and astral characters', () => {
    const values = ['', 'Pat. Müller', '病例-12', '', 'emoji 🧠 case', 'a'];
    const p = packStrings(values);
    expect(unpackStrings(p)).toEqual(values);
    values.forEach((v, i) => expect(packedAt(p, i)).toBe(v));
  });

  it('survives a structured clone as two typed arrays (what IndexedDB stores)', () => {
    const values = ['x', 'yz', 'Ünïcode'];
    const copy = structuredClone(packStrings(values));
    expect(copy.bytes).toBeInstanceOf(Uint8Array);
    expect(copy.ends).toBeInstanceOf(Uint32Array);
    expect(unpackStrings(copy)).toEqual(values);
  });

  it('gives one string without unpacking the list, and from the list once it is unpacked', () => {
    const values = ['case-1', 'Fall-Ä', 'case-3'];
    const p = packStrings(values);
    values.forEach((v, i) => expect(stringAt(p, i)).toBe(v));
    const list = unpackStrings(p);
    values.forEach((v, i) => expect(stringAt(p, i)).toBe(list[i]));
    expect(() => stringAt(packStrings(['a']), 1)).toThrow(/No string 1/);
  });

  it('says which string is missing when asked past the end', () => {
    expect(() => packedAt(packStrings(['a', 'b']), 2)).toThrow(/No string 2 in a list of 2/);
    expect(unpackStrings(packStrings([]))).toEqual([]);
  });
});
