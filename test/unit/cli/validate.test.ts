/**
 * `neuroeval validate` on real NeuroVLM-Bench index files (with generated
 * stand-in images) and on bad input: the CLI shares the app's import code.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { parseDelimited } from '../../../src/core/text/delimited.ts';
import { encodePng } from '../../../src/core/imaging/png-encode.ts';
import { makeTempDir, removeTempDirs } from '../../support/temp-dir.ts';

/** Files of the public ChatMED/neurovlm-bench repository, kept beside this repository (never copied into it). */
const REFERENCE = new URL('../../../../shared/reference/neurovlm-bench/', import.meta.url);

function capture() {
  let out = '';
  let err = '';
  return { io: { out: { write: (t: string) => (out += t) }, err: { write: (t: string) => (err += t) } }, out: () => out, err: () => err };
}

/** A folder with the reference CSV and a stand-in PNG for every listed image. */
function standInFolder(csvName: string, every = 1): { dir: string; rows: Record<string, string>[] } {
  const dir = makeTempDir('validate');
  copyFileSync(new URL(csvName, REFERENCE), join(dir, csvName));
  const table = parseDelimited(readFileSync(new URL(csvName, REFERENCE), 'utf8'), ',', csvName);
  const rows = table.rows.map((r) => r.values as Record<string, string>);
  const img = encodePng(new Uint8Array(32 * 32).fill(90), 32, 32);
  rows.forEach((r, i) => {
    if (i % every !== 0) return;
    const p = join(dir, 'images', r.file_path!);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, img);
  });
  return { dir, rows };
}

afterEach(removeTempDirs);

describe('neuroeval validate', () => {
  it('reports what the real subset_sample.csv would import, per class', async () => {
    const { dir } = standInFolder('subset_sample.csv');
    const c = capture();
    const code = await main(['validate', dir], c.io);
    expect(c.err()).toBe('');
    expect(code).toBe(0);
    expect(c.out()).toContain('Format: NeuroVLM-Bench');
    expect(c.out()).toContain('Would store 25 cases, 25 questions');
    expect(c.out()).toMatch(/Disease group: .*multiple sclerosis 5/);
    expect(c.out()).toContain('OK: the import would succeed.');
  });

  it('prints JSON with per-group counts and reports rows whose image is missing', async () => {
    const { dir, rows } = standInFolder('image_mapping.csv', 100);
    const c = capture();
    expect(await main(['validate', dir, '--json'], c.io)).toBe(0);
    const result = JSON.parse(c.out()) as { summary: { cases: number; byDiseaseGroup: Record<string, number> }; skipped: { reason: string; location?: { line?: number } }[] };
    const present = rows.filter((_, i) => i % 100 === 0);
    expect(rows).toHaveLength(29_504);
    expect(result.summary.cases).toBe(present.length);
    const expectedTumor = present.filter((r) => r.class === 'tumor').length;
    expect(result.summary.byDiseaseGroup.tumor).toBe(expectedTumor);
    expect(result.skipped).toHaveLength(29_504 - present.length);
    expect(result.skipped[0]).toMatchObject({ reason: expect.stringMatching(/image not found/), location: { line: 3 } });
  });

  it('exits 1 and names file, line and field for a bad bundle', async () => {
    const dir = makeTempDir('bad');
    const zip = zipSync({
      'manifest.json': strToU8(JSON.stringify({ format: 'neuroeval-bundle', formatVersion: 1, id: 'bad', name: 'Bad', version: '1', license: 'MIT' })),
      'cases.jsonl': strToU8('{"id":"a","taskFamily":"classification","images":[],"questions":[{"id":"1","text":"ok"}]}\n{"id":"b","taskFamily":"guess","images":[],"questions":[{"id":"1","text":"x"}]}\n'),
    });
    writeFileSync(join(dir, 'bad.zip'), zip);
    const c = capture();
    expect(await main(['validate', join(dir, 'bad.zip')], c.io)).toBe(1);
    expect(c.out()).toContain('error: cases.jsonl:2, field "taskFamily": "taskFamily" must be one of');
    expect(c.out()).toContain('FAILED: 1 error(s); nothing would be stored.');
  });

  it('refuses a path that does not exist with a usage error', async () => {
    const c = capture();
    expect(await main(['validate', '/nonexistent/bench.zip'], c.io)).toBe(2);
    expect(c.err()).toContain('no such file or folder');
  });
});

describe('neuroeval validate with DICOM and NIfTI', () => {
  it('renders the chosen slices and lists the dropped tags', async () => {
    const { makeDicom, makeNifti } = await import('../../support/fixtures-imaging/index.ts');
    const dir = makeTempDir('med');
    writeFileSync(join(dir, 'cases.csv'), 'case,prompt,file\nct,Q,head.dcm\nmr,Q,brain.nii.gz\n');
    writeFileSync(join(dir, 'head.dcm'), makeDicom({ modality: 'CT' }));
    writeFileSync(join(dir, 'brain.nii.gz'), makeNifti({ dims: [8, 8, 6], gzip: true }));
    const c = capture();
    const code = await main(['validate', dir, '--format', 'generic', '--mapping', '{"id":"case","question":"prompt","image":"file"}', '--nifti-slices', '1,2,3', '--window', 'brain'], c.io);
    expect(c.out()).toContain('OK: the import would succeed.');
    expect(code).toBe(0);
    expect(c.out()).toContain('Would store 2 cases, 2 questions, 4 images');
    expect(c.out()).toMatch(/DICOM tags dropped \(never stored\): .*PatientName/);
  });
});

describe('neuroeval validate with a declared task', () => {
  it('checks the task as the import form does: a task it can follow passes, one it cannot is refused with its field', async () => {
    const dir = makeTempDir('task');
    writeFileSync(join(dir, 'volumes.csv'), 'case,prompt,volume\nv1,Volume?,12.5\nv2,Volume?,40\n');
    const mapping = '{"id":"case","question":"prompt","numericAnswer":"volume"}';
    const ok = capture();
    expect(await main(['validate', dir, '--format', 'generic', '--mapping', mapping, '--declared-task', '{"answerType":"numeric","prompt":{"user":"{{question}} In mL."}}'], ok.io)).toBe(0);
    expect(ok.out()).toContain('OK: the import would succeed.');
    const bad = capture();
    expect(await main(['validate', dir, '--format', 'generic', '--mapping', mapping, '--declared-task', '{"answerType":"essay"}'], bad.io)).not.toBe(0);
    expect(bad.out() + bad.err()).toContain('task.answerType');
    expect(bad.out() + bad.err()).toContain('"answerType" must be one of: choice, short, numeric, boxes, rubric, diagnosis, class, free-text.');
    const notJson = capture();
    expect(await main(['validate', dir, '--format', 'generic', '--mapping', mapping, '--declared-task', '{answerType'], notJson.io)).toBe(2);
    expect(notJson.err()).toContain('--declared-task must be JSON');
  });
});
