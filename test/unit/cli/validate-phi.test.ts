/**
 * `neuroeval validate` on the hostile bundles (test/support/hostile-bundles.ts),
 * written to disk as a user would have them: the one that can be
 * de-identified says what was kept and succeeds; every other one fails
 * naming the file and why, and `--accept-burned-in` is the documented way
 * past burned-in annotation.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { phiBundle, PLANTED, refusedInputs } from '../../support/hostile-bundles.ts';
import { makeTempDir, removeTempDirs } from '../../support/temp-dir.ts';

function capture() {
  let out = '';
  let err = '';
  return { io: { out: { write: (t: string) => (out += t) }, err: { write: (t: string) => (err += t) } }, out: () => out, err: () => err };
}

function onDisk(name: string, bytes: Uint8Array): string {
  const path = join(makeTempDir('phi'), name);
  writeFileSync(path, bytes);
  return path;
}

afterEach(removeTempDirs);

describe('neuroeval validate on hostile bundles', () => {
  it('de-identifies DICOM in sources/ and says so, and prints no tag value', async () => {
    const c = capture();
    const code = await main(['validate', onDisk('phi-probe.zip', phiBundle())], c.io);
    const out = c.out();
    expect(out).toContain('OK: the import would succeed.');
    expect(code).toBe(0);
    expect(out).toMatch(/warning: sources\/ZZTOPNAME_QUENTIN_MRN77441122_series2\.dcm: "sources\/ZZTOPNAME_QUENTIN_MRN77441122_series2\.dcm" is a DICOM file: only a de-identified copy of its pixels and rendering fields is kept/);
    expect(out).toMatch(/warning: sources\/export-0001: "sources\/export-0001" is a DICOM file: only a de-identified copy/);
    expect(out).toMatch(/DICOM tags dropped \(never stored\): .*PatientName.*PatientAddress/);
    // File names are the user's own and are shown back to them; the values inside the files never are.
    for (const value of [PLANTED.name, PLANTED.birthDate, PLANTED.institution, PLANTED.accession, PLANTED.referring, PLANTED.address, PLANTED.privateValue, PLANTED.nestedName]) {
      expect(out).not.toContain(value);
    }
  });

  it.each(refusedInputs().map((r) => [r.name, r] as const))('fails on %s, naming the file and the reason', async (_name, r) => {
    const c = capture();
    const code = await main(['validate', onDisk('hostile.zip', r.zip)], c.io);
    expect(code).toBe(1);
    const line = c.out().split('\n').find((l) => l.startsWith(`error: ${r.file}`) && r.message.test(l));
    expect(line, c.out()).toBeDefined();
    expect(c.out()).toMatch(/FAILED: \d+ error\(s\); nothing would be stored\./);
  });

  it('accepts burned-in annotation only with --accept-burned-in, with a warning', async () => {
    const [burned] = refusedInputs();
    const path = onDisk('burned.zip', burned!.zip);
    const c = capture();
    expect(await main(['validate', path, '--accept-burned-in'], c.io)).toBe(0);
    expect(c.out()).toContain('warning: images/scan.dcm, field "BurnedInAnnotation": "images/scan.dcm" has burned-in annotation (BurnedInAnnotation YES); imported because you accepted burned-in annotation.');
  });
});
