/** VLMEvalKit TSV import: base64 images, image lists, index references, options and answers. */
import { describe, expect, it } from 'vitest';
import { memoryFile } from '../../../../src/core/bundle/importer.ts';
import { splitImageCell, vlmEvalKitImporter } from '../../../../src/core/importers/vlmevalkit.ts';
import { AbortedError } from '../../../../src/core/errors.ts';
import { base64, errors, png, warnings } from './fixtures.ts';

const HEADER = ['index', 'image', 'question', 'A', 'B', 'C', 'D', 'E', 'answer', 'category', 'l2-category', 'hint'];
const tsv = (rows: string[][], header = HEADER) => [header, ...rows].map((r) => r.join('\t')).join('\n') + '\n';
const OPTS = ['Glioma', 'Meningioma', 'Metastasis', 'Abscess', 'Lymphoma'];

const ROWS = [
  ['10', base64(png(1)), 'Which diagnosis fits the MRI?', ...OPTS, 'B', 'Neurology', 'Tumor', 'Axial T1 post-contrast.'],
  ['11', JSON.stringify([base64(png(2)), base64(png(3))]), 'Compare the two scans.', 'Stable', 'Progression', '', '', '', 'A', 'Neurology', 'Follow-up', ''],
  ['12', '10', 'Is the lesion extra-axial?', 'Yes', 'No', '', '', '', 'A', 'Neurology', 'Tumor', ''],
  ['13', `['${base64(png(4))}', '${base64(png(5))}', '${base64(png(6))}']`, '这些图像显示什么?', 'A1', 'B1', 'C1', '', '', 'C', 'Radiology', 'Multi', ''],
];

describe('VLMEvalKit importer', () => {
  it('reads options, answers, categories and hints', async () => {
    const draft = await vlmEvalKitImporter.read([memoryFile('GMAI-MMBench_VAL.tsv', tsv(ROWS))], {});
    expect(errors(draft)).toEqual([]);
    expect(draft.cases.map((c) => c.id)).toEqual(['10', '11', '12', '13']);
    const first = draft.cases[0]!;
    expect(first).toMatchObject({
      taskFamily: 'multiple-choice',
      split: 'GMAI-MMBench_VAL',
      diseaseGroup: 'Neurology',
      notes: 'Axial T1 post-contrast.',
      meta: { 'l2-category': 'Tumor' },
      images: [{ path: 'images/10.png', mime: 'image/png' }],
    });
    expect(first.questions).toEqual([
      {
        id: 'q1',
        text: 'Which diagnosis fits the MRI?',
        options: OPTS.map((text, i) => ({ key: 'ABCDE'[i], text })),
        reference: { answer: 'B' },
      },
    ]);
    expect(draft.cases[1]!.questions[0]!.options).toEqual([
      { key: 'A', text: 'Stable' },
      { key: 'B', text: 'Progression' },
    ]);
    expect(draft.cases[1]!.notes).toBeUndefined();
    expect(draft.cases[3]!.questions[0]!.lang).toBe('zh');
  });

  it('keeps multi-image rows in order (JSON list or Python list)', async () => {
    const draft = await vlmEvalKitImporter.read([memoryFile('bench.tsv', tsv(ROWS))], {});
    expect(draft.cases[1]!.images.map((i) => i.path)).toEqual(['images/11-1.png', 'images/11-2.png']);
    expect(draft.images.get('images/11-2.png')).toEqual(png(3));
    expect(draft.cases[3]!.images.map((i) => i.path)).toEqual(['images/13-1.png', 'images/13-2.png', 'images/13-3.png']);
    expect(draft.images.get('images/13-3.png')).toEqual(png(6));
    expect(splitImageCell("['a', 'b']")).toEqual(['a', 'b']);
    expect(splitImageCell('["a","b"]')).toEqual(['a', 'b']);
  });

  it("reuses another row's image when the image cell is that row's index", async () => {
    const draft = await vlmEvalKitImporter.read([memoryFile('bench.tsv', tsv(ROWS))], {});
    expect(draft.cases[2]!.images).toEqual(draft.cases[0]!.images);
    expect(draft.images.size).toBe(1 + 2 + 3);
  });

  it('reports a base64 cell that is not an image with its line', async () => {
    const rows = [...ROWS, ['14', base64(new TextEncoder().encode('hello, not a picture')), 'Q?', 'x', 'y', '', '', '', 'A', 'c', 'l', '']];
    const draft = await vlmEvalKitImporter.read([memoryFile('bench.tsv', tsv(rows))], {});
    expect(errors(draft)).toEqual([
      { severity: 'error', message: 'The image of row 14 is not an image (the bytes are not PNG, JPEG, WebP, GIF, DICOM or NIfTI).', location: { file: 'bench.tsv', line: 6, field: 'image' } },
    ]);
    expect(draft.cases).toHaveLength(4);
  });

  it('reports a reference to a missing row and invalid base64', async () => {
    const rows = [ROWS[0]!, ['20', '99', 'Q?', 'x', 'y', '', '', '', 'A', 'c', 'l', ''], ['21', 'not*base64*at*all*but*longer*than*sixty*four*characters*so*not*an*index', 'Q?', 'x', 'y', '', '', '', 'A', 'c', 'l', '']];
    const draft = await vlmEvalKitImporter.read([memoryFile('bench.tsv', tsv(rows))], {});
    expect(errors(draft).map((e) => [e.message, e.location?.line])).toEqual([
      ['The image cell refers to row index 99, which has no image of its own.', 3],
      ['The image of row 21 is not valid base64.', 4],
    ]);
  });

  it('imports a test split without answers, with one warning', async () => {
    const header = HEADER.filter((h) => h !== 'answer');
    const rows = ROWS.map((r) => r.filter((_, i) => HEADER[i] !== 'answer'));
    const draft = await vlmEvalKitImporter.read([memoryFile('GMAI-MMBench_TEST.tsv', tsv(rows, header))], {});
    expect(errors(draft)).toEqual([]);
    expect(draft.cases.every((c) => c.questions[0]!.reference === undefined)).toBe(true);
    expect(warnings(draft)).toHaveLength(1);
    expect(warnings(draft)[0]!.message).toContain('no "answer" column');
  });

  it('reports duplicate indexes naming both lines', async () => {
    const draft = await vlmEvalKitImporter.read([memoryFile('bench.tsv', tsv([ROWS[0]!, ROWS[1]!, ROWS[0]!]))], {});
    expect(errors(draft).map((e) => e.message)).toEqual(['Case id "10" appears twice: first at bench.tsv line 2, again at bench.tsv line 4.']);
  });

  it('names missing required columns', async () => {
    const draft = await vlmEvalKitImporter.read([memoryFile('bench.tsv', 'index\tquestion\n1\tQ\n')], {});
    expect(errors(draft)).toEqual([{ severity: 'error', message: 'The TSV has no "image" column (required).', location: { file: 'bench.tsv', line: 1, field: 'image' } }]);
  });

  it('reads image files named by image_path when there is no image column', async () => {
    const text = tsv([['1', 'pics/a.png', 'Q?', 'x', 'y', 'A']], ['index', 'image_path', 'question', 'A', 'B', 'answer']);
    const draft = await vlmEvalKitImporter.read([memoryFile('set/b.tsv', text), memoryFile('set/pics/a.png', png(1))], {});
    expect(errors(draft)).toEqual([]);
    expect(draft.cases[0]!.images).toEqual([{ path: 'images/pics/a.png', mime: 'image/png' }]);
  });

  it('honours an aborted signal', async () => {
    await expect(vlmEvalKitImporter.read([memoryFile('bench.tsv', tsv(ROWS))], { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(AbortedError);
  });
});
