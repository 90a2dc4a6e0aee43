/** NeuroVLM-Bench import on the benchmark's real index files, with generated stand-in images. */
import { describe, expect, it } from 'vitest';
import { FEW_SHOT_ID_PREFIX, neuroVlmBenchImporter } from '../../../../src/core/importers/neurovlm-bench.ts';
import { decodeText, memoryFile, type InputFile } from '../../../../src/core/bundle/importer.ts';
import { AbortedError } from '../../../../src/core/errors.ts';
import type { Progress } from '../../../../src/core/model/progress.ts';
import { parseDelimited } from '../../../../src/core/text/delimited.ts';
import { errors, png, reference, referenceFile, warnings } from './fixtures.ts';

function table(name: string) {
  return parseDelimited(decodeText(reference(name)), ',', name);
}

/** Stand-in PNGs for the given CSV paths, optionally under a folder prefix. */
function images(paths: readonly string[], prefix = ''): InputFile[] {
  return paths.map((p, i) => memoryFile(prefix + p, png(i)));
}

const SAMPLE = table('subset_sample.csv');
const FEW_SHOT = table('few_shot_examples.csv');
const samplePaths = SAMPLE.rows.map((r) => r.values.file_path!);
const fewShotPaths = FEW_SHOT.rows.map((r) => r.values.file_path!);

describe('NeuroVLM-Bench importer: subset_sample.csv with the few-shot list and prompt', () => {
  const inputs = () => [
    referenceFile('subset_sample.csv'),
    referenceFile('few_shot_examples.csv'),
    referenceFile('prompt_5classes_refined.txt'),
    ...images([...samplePaths, ...fewShotPaths]),
  ];

  it('imports every row as a classification case, whatever the column order (few_shot_examples.csv has its own)', async () => {
    const draft = await neuroVlmBenchImporter.read(inputs(), {});
    expect(errors(draft)).toEqual([]);
    const evalCases = draft.cases.filter((c) => c.split === 'subset_sample');
    expect(evalCases).toHaveLength(25);
    expect(evalCases.map((c) => c.id)).toEqual(samplePaths);
    const byClass: Record<string, number> = {};
    for (const c of evalCases) byClass[c.diseaseGroup!] = (byClass[c.diseaseGroup!] ?? 0) + 1;
    expect(byClass).toEqual({ 'multiple sclerosis': 5, normal: 5, 'other abnormalities': 5, stroke: 5, tumor: 5 });
    expect(draft.skipped).toEqual([]);
    expect(draft.manifest.source?.kind).toBe('neurovlm-bench');
  });

  it('keeps the labels, with empty ground truth as null and spellings verbatim', async () => {
    const draft = await neuroVlmBenchImporter.read(inputs(), {});
    const byId = new Map(draft.cases.map((c) => [c.id, c]));
    const neuro = byId.get('images-17/Neurocitoma (Central - Intraventricular, Extraventricular) T1/neurocitoma (49).jpeg')!;
    expect(neuro).toMatchObject({
      split: 'subset_sample',
      taskFamily: 'classification',
      diseaseGroup: 'tumor',
      modality: 'MRI',
      sequences: ['T1'],
      meta: { dataset: 'images-17', original_class: 'Neurocitoma (Central - Intraventricular, Extraventricular) T1' },
    });
    expect(neuro.images).toHaveLength(1);
    expect(neuro.images[0]).toMatchObject({ sequence: 'T1', plane: 'axial', mime: 'image/png' });
    expect(neuro.questions[0]!.reference!.labels).toEqual({
      diagnosis_name: 'tumor',
      diagnosis_detailed: 'neurocitoma',
      modality: 'MRI',
      specialized_sequence: 'T1',
      plane: 'axial',
    });
    // Empty plane (images-44c has none).
    const carcinoma = byId.get('images-44c/Carcinoma T1C+/2022-06-09 14_09_52-Window.jpg')!;
    expect(carcinoma.questions[0]!.reference!.labels).toEqual({
      diagnosis_name: 'tumor',
      diagnosis_detailed: 'carcinoma',
      modality: 'MRI',
      specialized_sequence: 'T1C+',
      plane: null,
    });
    expect(carcinoma.images[0]!.plane).toBeUndefined();
    // Br35H: no subtype, no sequence, no original class.
    const br35h = byId.get('Br35H/yes/y864.jpg')!;
    expect(br35h.questions[0]!.reference!.labels).toEqual({
      diagnosis_name: 'tumor',
      diagnosis_detailed: null,
      modality: 'MRI',
      specialized_sequence: null,
      plane: 'axial',
    });
    expect(br35h.sequences).toBeUndefined();
    expect(br35h.meta).toEqual({ dataset: 'Br35H', file_path: 'Br35H/yes/y864.jpg' });
    // The few-shot file (columns in another order) reads the same way.
    const normalT2 = byId.get(`${FEW_SHOT_ID_PREFIX}images-44c/_NORMAL T2/85b1503c56b1cb7b1ef8f2f7ecf25b_big_gallery.jpeg`)!;
    expect(normalT2.split).toBe('few-shot');
    expect(normalT2.questions[0]!.reference!.labels).toEqual({
      diagnosis_name: 'normal',
      diagnosis_detailed: null,
      modality: 'MRI',
      specialized_sequence: 'T2',
      plane: null,
    });
    const neuroFew = byId.get(`${FEW_SHOT_ID_PREFIX}images-17/Neurocitoma (Central - Intraventricular, Extraventricular) T2/neurocitoma (9).jpeg`)!;
    expect(neuroFew.questions[0]!.reference!.labels!.diagnosis_detailed).toBe('neurocitoma');
    expect(neuroFew.meta!.file_path).toBe('images-17/Neurocitoma (Central - Intraventricular, Extraventricular) T2/neurocitoma (9).jpeg');
  });

  it('attaches the prompt and the few-shot exemplars in file order', async () => {
    const draft = await neuroVlmBenchImporter.read(inputs(), {});
    const defaults = draft.manifest.protocolDefaults!;
    expect(defaults.protocol).toBe('neurovlm-structured');
    expect(defaults.prompt).toBe('prompts/prompt_5classes_refined.txt');
    expect(decodeText(draft.files.get(defaults.prompt!)!)).toContain('OUTPUT (strict JSON schema)');
    expect(defaults.fewShotCaseIds).toEqual(fewShotPaths.map((p) => FEW_SHOT_ID_PREFIX + p));
    const fewShot = draft.cases.filter((c) => c.split === 'few-shot');
    expect(fewShot).toHaveLength(20);
    expect(fewShot[0]!.questions[0]!.reference!.labels!.diagnosis_name).toBe(FEW_SHOT.rows[0]!.values.class);
  });

  it('warns once that .jpg/.jpeg files hold other data, and stores the real type', async () => {
    const draft = await neuroVlmBenchImporter.read(inputs(), {});
    const jpegNamed = [...samplePaths, ...fewShotPaths].filter((p) => /\.jpe?g$/i.test(p)).length;
    const w = warnings(draft).find((i) => i.message.includes('extension'));
    expect(w?.message).toContain(`${jpegNamed} images`);
    expect(draft.cases.every((c) => c.images[0]!.mime === 'image/png')).toBe(true);
  });

  it('finds images when the folder above or below the CSV root was picked', async () => {
    const above = await neuroVlmBenchImporter.read([referenceFile('subset_sample.csv'), ...images(samplePaths, 'downloads/neurovlm/')], {});
    expect(above.cases).toHaveLength(25);
    // Picking only sclerosis/: inputs lack the first segment; other datasets are missing.
    const sclerosis = samplePaths.filter((p) => p.startsWith('sclerosis/'));
    const below = await neuroVlmBenchImporter.read([referenceFile('subset_sample.csv'), ...images(sclerosis.map((p) => p.slice('sclerosis/'.length)))], {});
    expect(below.cases.map((c) => c.id)).toEqual(sclerosis);
    expect(below.skipped).toHaveLength(25 - sclerosis.length);
  });

  it('does not match a same-named file from another folder', async () => {
    // Only the T1 "outros (48)" image is given under the T2 folder name: the T2 row must not take it.
    const csv = 'file_path,class\nx/T1/a.png,tumor\nx/T2/a.png,normal\nx/T2/b.png,normal\n';
    const draft = await neuroVlmBenchImporter.read([memoryFile('s.csv', csv), memoryFile('T2/a.png', png(1)), memoryFile('T2/b.png', png(2))], {});
    expect(draft.cases.map((c) => c.id)).toEqual(['x/T2/a.png', 'x/T2/b.png']);
    expect(draft.skipped).toEqual([{ id: 'x/T1/a.png', reason: 'image not found: x/T1/a.png', location: { file: 's.csv', line: 2, field: 'file_path' } }]);
  });
});

describe('NeuroVLM-Bench importer: the full image_mapping.csv', () => {
  const MAPPING = table('image_mapping.csv');
  const present = MAPPING.rows.filter((_, i) => i % 50 === 0);

  it('sees all 29,504 rows, imports those with images and reports the rest with line numbers', async () => {
    const progress: Progress[] = [];
    const draft = await neuroVlmBenchImporter.read([referenceFile('image_mapping.csv'), ...images(present.map((r) => r.values.file_path!))], {
      progress: (p) => progress.push(p),
    });
    expect(MAPPING.rows).toHaveLength(29_504);
    expect(progress.at(-1)).toEqual({ phase: 'read', done: 29_504, total: 29_504 });
    expect(progress.map((p) => p.done)).toEqual([...progress.map((p) => p.done)].sort((a, b) => a - b));
    expect(errors(draft)).toEqual([]);
    expect(draft.cases).toHaveLength(present.length);
    expect(draft.cases.length + draft.skipped.length).toBe(29_504);

    const expected: Record<string, number> = {};
    for (const r of present) expected[r.values.class!] = (expected[r.values.class!] ?? 0) + 1;
    const actual: Record<string, number> = {};
    for (const c of draft.cases) actual[c.diseaseGroup!] = (actual[c.diseaseGroup!] ?? 0) + 1;
    expect(actual).toEqual(expected);
    expect(Object.keys(actual).sort()).toEqual(['multiple sclerosis', 'normal', 'other abnormalities', 'stroke', 'tumor']);

    // Row 2 of the data (index 1) is line 3 of the file.
    const second = MAPPING.rows[1]!;
    expect(draft.skipped[0]).toEqual({
      id: second.values.file_path,
      reason: `image not found: ${second.values.file_path}`,
      location: { file: 'image_mapping.csv', line: second.line, field: 'file_path' },
    });
    expect(draft.skipped.every((s) => s.reason.startsWith('image not found: ') && typeof s.location?.line === 'number')).toBe(true);
    const emptyPlane = draft.cases.filter((c) => c.questions[0]!.reference!.labels!.plane === null).length;
    expect(emptyPlane).toBe(present.filter((r) => r.values.plane === '').length);
    expect(draft.manifest.id).toBe('neurovlm-bench-image_mapping');
  });

  it('warns when a few-shot exemplar is also an evaluation case', async () => {
    const paths = [...present.map((r) => r.values.file_path!), ...fewShotPaths];
    const draft = await neuroVlmBenchImporter.read([referenceFile('image_mapping.csv'), referenceFile('few_shot_examples.csv'), ...images(paths)], {});
    expect(errors(draft)).toEqual([]);
    expect(draft.manifest.protocolDefaults?.fewShotCaseIds).toHaveLength(20);
    expect(warnings(draft).some((w) => w.message.includes('20 few-shot exemplars are also evaluation cases'))).toBe(true);
  });

  it('stops when aborted mid-way', async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    const run = neuroVlmBenchImporter.read([referenceFile('image_mapping.csv')], {
      signal: controller.signal,
      progress: (p) => {
        seen.push(p.done);
        if (p.done >= 1000) controller.abort();
      },
    });
    await expect(run).rejects.toBeInstanceOf(AbortedError);
    expect(Math.max(...seen)).toBeLessThan(29_504);
  });
});

describe('NeuroVLM-Bench importer: problems', () => {
  it('names the file and column when a required column is missing', async () => {
    const draft = await neuroVlmBenchImporter.read([memoryFile('bad.csv', 'dataset,file_path,modality\nx,a.png,MRI\n')], {});
    expect(errors(draft)).toEqual([{ severity: 'error', message: 'bad.csv has no "class" column (required).', location: { file: 'bad.csv', line: 1, field: 'class' } }]);
    expect(draft.cases).toEqual([]);
  });

  it('reports a duplicate file_path naming both lines', async () => {
    const csv = 'file_path,class\na.png,tumor\nb.png,normal\na.png,stroke\n';
    const draft = await neuroVlmBenchImporter.read([memoryFile('d.csv', csv), memoryFile('a.png', png()), memoryFile('b.png', png(1))], {});
    const [e] = errors(draft);
    expect(e?.message).toBe('Case id "a.png" appears twice: first at d.csv line 2, again at d.csv line 4.');
    expect(e?.location).toEqual({ file: 'd.csv', line: 4, field: 'file_path' });
  });

  it('reports a file that is not an image with its line', async () => {
    const csv = 'file_path,class\na.png,tumor\nnotes.png,normal\n';
    const draft = await neuroVlmBenchImporter.read([memoryFile('d.csv', csv), memoryFile('a.png', png()), memoryFile('notes.png', 'just text')], {});
    expect(errors(draft)).toHaveLength(1);
    expect(errors(draft)[0]!.location).toEqual({ file: 'd.csv', line: 3, field: 'file_path' });
    expect(draft.cases.map((c) => c.id)).toEqual(['a.png']);
  });

  it('refuses to start with an aborted signal', async () => {
    await expect(neuroVlmBenchImporter.read([referenceFile('subset_sample.csv')], { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(AbortedError);
  });
});
