import { describe, expect, it } from 'vitest';
import { count, plural } from '../../../../src/core/text/plural.ts';
import { formatBytes } from '../../../../src/core/text/units.ts';

describe('counted words', () => {
  it('agrees nouns and verbs with the count', () => {
    expect(count(1, 'run')).toBe('1 run');
    expect(count(0, 'run')).toBe('0 runs');
    expect(count(2, 'run')).toBe('2 runs');
    expect(count(1204, 'answer')).toBe('1,204 answers');
    expect(`${count(1, 'verdict')} ${plural(1, 'differs', 'differ')}`).toBe('1 verdict differs');
    expect(`${count(3, 'verdict')} ${plural(3, 'differs', 'differ')}`).toBe('3 verdicts differ');
    expect(count(2, 'study', 'studies')).toBe('2 studies');
  });
});

describe('byte sizes', () => {
  it('reads in binary units, never as a raw count past 1 KiB', () => {
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(512)).toBe('512 bytes');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(24 * 1024 * 1024)).toBe('24 MiB');
    expect(formatBytes(2 * 1024 ** 3)).toBe('2 GiB');
    expect(formatBytes(undefined)).toBe('—');
  });
});
