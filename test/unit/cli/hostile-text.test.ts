/**
 * The CLI on the hostile inputs the app meets too (test/browser/hostile-text.spec.ts):
 * each gets the message a user reads, naming the file, line or field, and the
 * same text decoding as the app (UTF-16 imports here as it does there).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { badDicomBenchmark, duplicateHeaderCsv, encodeAs, encodedBenchmark, hostileRunExports, hugeFile } from '../../support/hostile-files.ts';
import { makeTempDir, removeTempDirs } from '../../support/temp-dir.ts';

function capture() {
  let out = '';
  let err = '';
  return { io: { out: { write: (t: string) => (out += t) }, err: { write: (t: string) => (err += t) } }, out: () => out, err: () => err };
}

async function validate(...args: string[]) {
  const c = capture();
  const code = await main(['validate', ...args], c.io);
  return { code, out: c.out(), err: c.err() };
}

afterEach(removeTempDirs);

describe('neuroeval validate on text in other encodings', () => {
  it('reads a Latin-1 CSV as Windows-1252 and warns, naming the file and the line with how it now reads', async () => {
    const r = await validate(encodedBenchmark('latin1').dir);
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      `warning: index.csv:2: index.csv is not UTF-8 (line 2 is the first with other bytes), so it was read as Windows-1252 (Latin-1): line 2 now reads "ent,a.png,stroke,Ménière's disease,MRI,FLAIR,axi…". If that looks wrong, save the file as UTF-8 and import it again.`,
    );
    expect(r.out).not.toContain('\uFFFD');
  });

  it('imports UTF-16 (with or without a byte-order mark) to the same content as UTF-8, with no warning', async () => {
    const hash = (out: string) => /Content hash: ([0-9a-f]{64})/.exec(out)?.[1];
    const utf8 = await validate(encodedBenchmark('utf-8').dir);
    expect(utf8.code).toBe(0);
    for (const encoding of ['utf-16le', 'utf-16be'] as const) {
      const r = await validate(encodedBenchmark(encoding).dir);
      expect(r.code).toBe(0);
      expect(r.out).toContain('Would store 2 cases');
      expect(r.out).not.toContain('warning:');
      expect(hash(r.out)).toBe(hash(utf8.out));
    }
  });
});

describe('neuroeval validate names the user\'s file, line and field', () => {
  it('a header that names a column twice', async () => {
    const r = await validate(duplicateHeaderCsv(), '--mapping', '{"id":"id","question":"question"}');
    expect(r.code).toBe(1);
    expect(r.out).toContain('error: cases.csv:1, field "question": The header names column "question" twice (columns 2 and 4).');
  });

  it('a DICOM file that cannot be read: its name as the index wrote it, and no second "not in the input" error', async () => {
    const r = await validate(badDicomBenchmark());
    expect(r.code).toBe(1);
    const errors = r.out.split('\n').filter((l) => l.startsWith('error:'));
    expect(errors).toEqual([expect.stringMatching(/^error: bad\.dcm: This DICOM file /)]);
    expect(r.out).not.toContain('images/bad.dcm');
    expect(r.out).toContain('FAILED: 1 error(s); nothing would be stored.');
  });

  it('a file too large to read is refused by its size before a byte is read', async () => {
    const csv = hugeFile('huge.csv');
    const started = Date.now();
    const r = await validate(csv);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`neuroeval validate: huge.csv is 2.0 GB, larger than the 512 MB a text file can be (it is read whole, in this browser or by the CLI); nothing was read. Split it into smaller files.\n`);
    // Reading 2 GB would take far longer; the refusal comes from the size alone.
    expect(Date.now() - started).toBeLessThan(5_000);
    const zip = await validate(hugeFile('huge.zip'));
    expect(zip.err).toContain('huge.zip is 2.0 GB, larger than the 2.0 GB a file can be');
  });
});

describe('neuroeval score and export on hostile run exports', () => {
  const benchmark = { id: 'b', contentHash: 'h'.repeat(64) };
  const cases = Array.from({ length: 11 }, (_, i) => ({ id: `c${i}`, questions: [{ id: 'q1' }] }));

  it('refuses an export that answers an item twice, naming the item and both places', async () => {
    const c = capture();
    const file = hostileRunExports(benchmark, cases).duplicate;
    expect(await main(['score', file], c.io)).toBe(1);
    expect(c.err()).toContain(`${file}: responses[11].itemKey: item "c0#q1|m|none|s0" (case "c0") is answered twice, at responses[0] and responses[11]`);
    const e = capture();
    expect(await main(['export', '--format', 'neurovlm-jsonl', file], e.io)).toBe(1);
    expect(e.err()).toContain('is answered twice');
  });

  it('refuses an export that is not UTF-8, naming the line, instead of scoring replacement characters', async () => {
    const file = join(makeTempDir('latin1-run'), 'run.json');
    writeFileSync(file, encodeAs('{\n"format": "neuroeval-run", "run": {"name": "Ménière"}\n}', 'latin1'));
    const c = capture();
    expect(await main(['score', file], c.io)).toBe(1);
    expect(c.err()).toBe(`neuroeval score: ${file}: line 2: the file is not UTF-8 (bytes there are not); save it again as UTF-8 and import it again.\n`);
  });
});
