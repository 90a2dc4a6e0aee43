/** A benchmark's name and licence set at import: stored as typed (trimmed), checked, and part of the content hash. */
import { describe, expect, it } from 'vitest';
import { checkBenchmarkName, checkLicence } from '../../../../src/core/bundle/identity.ts';
import { prepareImport } from '../../../../src/core/importers/import-pipeline.ts';
import { memoryFile } from '../../../../src/core/bundle/importer.ts';
import { base64, png } from '../importers/fixtures.ts';

const TSV = ['index\timage\tquestion\tA\tB\tanswer', `1\t${base64(png(1))}\tWhich sequence?\tT1\tT2\tA`, `2\t${base64(png(2))}\tWhich plane?\tAxial\tSagittal\tB`].join('\n') + '\n';
const file = () => memoryFile('bench.tsv', TSV);

describe('name and licence at import', () => {
  it('keeps the format’s guess when none is given, and the user’s words when given', async () => {
    const guessed = await prepareImport([file()], { kind: 'vlmevalkit' });
    expect(guessed.manifest).toMatchObject({ license: 'unknown' });
    const named = await prepareImport([file()], { kind: 'vlmevalkit', options: { name: '  Sequence quiz (ward 7) ', license: 'CC-BY-4.0' } });
    expect(named.ok).toBe(true);
    expect(named.manifest).toMatchObject({ name: 'Sequence quiz (ward 7)', license: 'CC-BY-4.0' });
    // Name and licence are part of what the content hash covers.
    expect(named.manifest!.contentHash).not.toBe(guessed.manifest!.contentHash);
  });

  it('refuses an empty name or licence, naming the field, and stores nothing', async () => {
    const p = await prepareImport([file()], { kind: 'vlmevalkit', options: { name: '   ', license: '' } });
    expect(p.ok).toBe(false);
    expect(p.errors.map((e) => e.location?.field)).toEqual(['name', 'license']);
    expect(p.errors[0]!.message).toBe('The benchmark needs a name.');
  });

  it('takes an SPDX id, an expression or the licence in words', () => {
    for (const l of ['MIT', 'CC-BY-NC-SA-4.0', 'Apache-2.0 OR MIT', 'Hospital data-use agreement 2024/17', 'unknown']) expect(checkLicence(l)).toBeNull();
    expect(checkLicence('x'.repeat(201))).toMatch(/at most 200/);
    expect(checkBenchmarkName('x'.repeat(201))).toMatch(/keep it to 200/);
  });
});
