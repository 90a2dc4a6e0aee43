/**
 * The one decoder the app and the CLI share: byte-order marks, UTF-16 without
 * one, strict UTF-8, and bytes that are not UTF-8 read as Windows-1252 with a
 * notice naming the file and line; never a silent U+FFFD.
 */
import { describe, expect, it } from 'vitest';
import { decodeBytes, decodeUnicode, firstInvalidUtf8 } from '../../../../src/core/text/decode.ts';
import { encodeAs, INDEX_CSV, MENIERE } from '../../../support/hostile-files.ts';

describe('decodeBytes', () => {
  it('reads UTF-8, UTF-16LE with a byte-order mark and UTF-16BE without one as the same text', () => {
    for (const encoding of ['utf-8', 'utf-16le', 'utf-16be'] as const) {
      const decoded = decodeBytes(encodeAs(INDEX_CSV, encoding), 'index.csv');
      expect(decoded.text).toBe(INDEX_CSV);
      expect(decoded.encoding).toBe(encoding);
      expect(decoded.notice).toBeUndefined();
    }
    expect(decodeBytes(Uint8Array.from([0xef, 0xbb, 0xbf, 0x61]), 'a.csv').text).toBe('a');
  });

  it('reads Latin-1 bytes as Windows-1252 and says so, naming the file, the first line and how it now reads', () => {
    const decoded = decodeBytes(encodeAs(INDEX_CSV, 'latin1'), 'index.csv');
    expect(decoded.encoding).toBe('windows-1252');
    expect(decoded.text).toBe(INDEX_CSV);
    expect(decoded.text).not.toContain('\uFFFD');
    expect(decoded.notice).toEqual({
      line: 2,
      message: `index.csv is not UTF-8 (line 2 is the first with other bytes), so it was read as Windows-1252 (Latin-1): line 2 now reads "ent,a.png,stroke,Ménière's disease,MRI,FLAIR,axi…". If that looks wrong, save the file as UTF-8 and import it again.`,
    });
  });

  it('does not count a character cut by the end of a peek as an error', () => {
    const bytes = new TextEncoder().encode(`id,label\n1,${MENIERE}`);
    const cut = bytes.subarray(0, bytes.indexOf(0xc3) + 1);
    expect(firstInvalidUtf8(cut)).toBe(cut.length - 1);
    expect(firstInvalidUtf8(cut, true)).toBe(-1);
    expect(decodeBytes(cut, 'head.csv', { partial: true })).toEqual({ text: 'id,label\n1,M', encoding: 'utf-8' });
  });

  it('refuses broken UTF-16 with the file and line', () => {
    const bytes = encodeAs('a,b\nc,\uD800d\n', 'utf-16le');
    bytes[bytes.length - 6] = 0x00;
    bytes[bytes.length - 5] = 0xd8;
    expect(() => decodeBytes(bytes, 'broken.csv')).toThrow(expect.objectContaining({ code: 'INVALID_INPUT', location: { file: 'broken.csv', line: 2 } }));
  });

  it('rejects overlong forms and surrogates as UTF-8', () => {
    expect(firstInvalidUtf8(Uint8Array.from([0x41, 0xc0, 0xaf]))).toBe(1);
    expect(firstInvalidUtf8(Uint8Array.from([0xed, 0xa0, 0x80]))).toBe(0);
    expect(firstInvalidUtf8(new TextEncoder().encode('ok 🧠 é'))).toBe(-1);
  });
});

describe('decodeUnicode', () => {
  it('refuses bytes that are not UTF-8 or UTF-16, naming the file and line', () => {
    expect(() => decodeUnicode(encodeAs('{\n"name": "Ménière"\n}', 'latin1'), 'run.json')).toThrow(
      'run.json: line 2: the file is not UTF-8 (bytes there are not); save it again as UTF-8 and import it again.',
    );
    expect(decodeUnicode(encodeAs('{"name": "Ménière"}', 'utf-16le'), 'run.json')).toBe('{"name": "Ménière"}');
  });
});
