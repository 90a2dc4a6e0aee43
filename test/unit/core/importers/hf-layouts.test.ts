/**
 * The generic importer on files in the layouts the medical VQA benchmarks
 * publish (test/support/hf-datasets.ts): Parquet with image structs and
 * split shards, a JSON array with paths into a ZIP, a CSV whose option
 * columns are "Choice A…D", a JSON array per source dataset, and option
 * lists with base64 images.
 */
import { describe, expect, it } from 'vitest';
import { genericImporter, listColumns } from '../../../../src/core/importers/generic.ts';
import { memoryFile, type InputFile } from '../../../../src/core/bundle/importer.ts';
import { prepareImport } from '../../../../src/core/importers/import-pipeline.ts';
import { ParquetSource } from '../../../../src/core/importers/parquet-source.ts';
import { sha256Hex } from '../../../../src/core/hash/sha256.ts';
import { omniMedVqaFiles, optionListParquet, parquetBytes, pmcVqaFiles, seededPng, slakeFiles, vqaRadFiles } from '../../../support/hf-datasets.ts';
import { errors, warnings } from './fixtures.ts';

const VQA = [
  { question: 'is there a mass in the left hemisphere?', answer: 'yes' },
  { question: 'what imaging plane is shown?', answer: 'axial' },
  { question: 'is the ventricle enlarged?', answer: 'no' },
];

describe('Hugging Face Parquet (VQA-RAD layout)', () => {
  it('lists the schema columns and refuses to guess between splits', async () => {
    const files = vqaRadFiles(VQA);
    expect(await listColumns(files, { split: 'test' })).toEqual(['image', 'question', 'answer']);
    const draft = await genericImporter.read(files, { options: { mapping: { id: 'question', question: 'question', image: 'image' } } });
    expect(errors(draft).map((e) => e.message)).toEqual(['These files hold several splits (train: 1 file; test: 1 file). Choose the split to import.']);
  });

  it('reads the chosen split row group by row group, with the image bytes of each struct cell', async () => {
    const files = vqaRadFiles(VQA);
    const source = await ParquetSource.open(files[1]!);
    expect([source.rowCount, source.rowGroups]).toEqual([3, 2]);
    const draft = await genericImporter.read(files, { options: { split: 'test', mapping: { id: 'question', question: 'question', image: 'image', answer: 'answer' } } });
    expect(errors(draft)).toEqual([]);
    expect(draft.cases.map((c) => [c.id, c.split, c.images.length])).toEqual(VQA.map((v) => [v.question, 'test', 1]));
    const first = draft.images.get(draft.cases[0]!.images[0]!.path)!;
    expect(await sha256Hex(first)).toBe(await sha256Hex(seededPng(0)));
    expect(draft.manifest.source?.files).toEqual(['data/test-00000-of-00001-e5bc.parquet']);
  });

  it('reads every shard of a split, and names the row of a bad image cell', async () => {
    const columns = [
      { name: 'id', kind: 'string' as const },
      { name: 'question', kind: 'string' as const },
      { name: 'image', kind: 'image' as const },
    ];
    const shard = (ids: string[], bad?: string) =>
      parquetBytes(columns, ids.map((id, i) => ({ id, question: `q ${id}`, image: { bytes: id === bad ? new Uint8Array([1, 2, 3, 4]) : seededPng(i + id.length), path: `${id}.png` } })));
    const files = [memoryFile('data/test-00000-of-00002.parquet', shard(['a', 'b'])), memoryFile('data/test-00001-of-00002.parquet', shard(['c', 'dd', 'e'], 'dd'))];
    const draft = await genericImporter.read(files, { options: { mapping: { id: 'id', question: 'question', image: 'image' } } });
    expect(errors(draft)).toEqual([
      { severity: 'error', message: 'Image 1 of case "dd" is not an image (the bytes are not PNG, JPEG, WebP, GIF, DICOM or NIfTI).', location: { file: 'data/test-00001-of-00002.parquet', line: 2, field: 'image' } },
    ]);
    expect(draft.cases.map((c) => c.id)).toEqual(['a', 'b', 'c', 'e']);
  });

  it('imports through the pipeline and `neuroeval validate` the same way: images stored as pixels, split counted', async () => {
    const preview = await prepareImport(vqaRadFiles(VQA), { kind: 'generic', options: { split: 'test', mapping: { id: 'question', question: 'question', image: 'image', answer: 'answer' } } });
    expect(preview.errors).toEqual([]);
    expect(preview.summary).toMatchObject({ cases: 3, images: 3, bySplit: { test: 3 } });
  });
});

describe('SLAKE layout: a JSON array whose image names point into imgs.zip', () => {
  it('finds each image inside the ZIP, one folder down, and keeps the answer type column readable', async () => {
    const files = slakeFiles([
      { qid: 11, question: 'Which organ is shown?', answer: 'Brain', answerType: 'OPEN' },
      { qid: 12, question: 'Is this an MRI?', answer: 'Yes', answerType: 'CLOSED' },
    ]);
    expect(await listColumns(files)).toContain('answer_type');
    const draft = await genericImporter.read(files, { options: { mapping: { id: 'qid', question: 'question', image: 'img_name', answer: 'answer', modality: 'modality' } } });
    expect(errors(draft)).toEqual([]);
    expect(draft.cases.map((c) => [c.id, c.split, c.modality])).toEqual([
      ['11', 'test', 'MRI'],
      ['12', 'test', 'MRI'],
    ]);
    expect(await sha256Hex(draft.images.get(draft.cases[1]!.images[0]!.path)!)).toBe(await sha256Hex(seededPng(201)));
  });

  it('names the entry of a JSON array that is not an object', async () => {
    const draft = await genericImporter.read([memoryFile('test.json', '[{"qid": 1, "question": "q"}, 7]')], { options: { mapping: { id: 'qid', question: 'question' } } });
    expect(errors(draft)).toEqual([{ severity: 'error', message: 'Entry 2 of the array is not a JSON object.', location: { file: 'test.json', field: '[1]' } }]);
  });
});

describe('PMC-VQA layout: option columns "Choice A…D" and an Answer_label', () => {
  const items = [
    { question: 'What modality?', choices: ['CT', 'MRI', 'PET', 'X-ray'], label: 'B' },
    { question: 'Which side?', choices: ['Left', 'Right', 'Both', 'Neither'], label: 'A' },
  ] as const;

  it('keys the options A…D (not "Choice A"), without the letter their cells repeat, so Answer_label matches', async () => {
    const draft = await genericImporter.read(pmcVqaFiles(items), {
      options: { mapping: { id: 'Figure_path', question: 'Question', image: 'Figure_path', answer: 'Answer_label', options: ['Choice A', 'Choice B', 'Choice C', 'Choice D'] } },
    });
    expect(errors(draft)).toEqual([]);
    const q = draft.cases[0]!.questions[0]!;
    expect(q.options).toEqual([
      { key: 'A', text: 'CT' },
      { key: 'B', text: 'MRI' },
      { key: 'C', text: 'PET' },
      { key: 'D', text: 'X-ray' },
    ]);
    expect(q.reference?.answer).toBe('B');
    expect(warnings(draft).map((w) => w.message).filter((m) => !/extension/.test(m))).toEqual(['Option columns "Choice A", "Choice B", "Choice C", "Choice D" give the option keys A, B, C, D: answers are compared with these keys.']);
  });

  it('stores an answer given as the option text (the "Answer" column) as its key, and says so', async () => {
    const draft = await genericImporter.read(pmcVqaFiles(items), {
      options: { mapping: { id: 'Figure_path', question: 'Question', image: 'Figure_path', answer: 'Answer', options: ['Choice A', 'Choice B', 'Choice C', 'Choice D'] } },
    });
    expect(draft.cases.map((c) => c.questions[0]!.reference?.answer)).toEqual(['B', 'A']);
    expect(warnings(draft).map((w) => w.message)).toContain('2 answers in "Answer" gave the text of an option rather than its key; each is stored as the key of that option.');
  });
});

describe('OmniMedVQA layout: a JSON array per source dataset', () => {
  it('reads option_A…option_D as keys A…D and the text answer as its key', async () => {
    const items = [{ question: 'What is shown?', choices: ['Glioma', 'Meningioma', 'Normal', 'Stroke'], label: 'C' }] as const;
    const draft = await genericImporter.read(omniMedVqaFiles(items), {
      options: { mapping: { id: 'question_id', question: 'question', image: 'image_path', answer: 'gt_answer', options: ['option_A', 'option_B', 'option_C', 'option_D'], modality: 'modality_type' } },
    });
    expect(errors(draft)).toEqual([]);
    expect(draft.cases[0]).toMatchObject({ id: 'omni_0', taskFamily: 'multiple-choice', modality: 'MR', questions: [{ reference: { answer: 'C' } }] });
    // The line of each entry is found by its id.
    expect(draft.cases).toHaveLength(1);
  });
});

describe('option lists and base64 image cells in Parquet', () => {
  it('gives a list column the keys A, B, C… and decodes base64 images', async () => {
    const items = [
      { question: 'Q1', choices: ['a', 'b', 'c', 'd'], label: 'D' },
      { question: 'Q2', choices: ['e', 'f', 'g', 'h'], label: 'A' },
    ] as const;
    const files: InputFile[] = optionListParquet(items);
    const draft = await genericImporter.read(files, { options: { mapping: { id: 'index', question: 'question', image: 'image', options: ['options'], answer: 'answer' } } });
    expect(errors(draft)).toEqual([]);
    expect(draft.cases.map((c) => [c.id, c.split, c.questions[0]!.options!.map((o) => `${o.key}=${o.text}`).join(' '), c.questions[0]!.reference?.answer])).toEqual([
      ['1', 'test', 'A=a B=b C=c D=d', 'D'],
      ['2', 'test', 'A=e B=f C=g D=h', 'A'],
    ]);
    expect(await sha256Hex(draft.images.get(draft.cases[1]!.images[0]!.path)!)).toBe(await sha256Hex(seededPng(501)));
  });
});
