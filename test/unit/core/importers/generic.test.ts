/** Generic CSV/JSONL import with a user-chosen column mapping. */
import { describe, expect, it } from 'vitest';
import { genericImporter, listColumns, suggestMapping } from '../../../../src/core/importers/generic.ts';
import { memoryFile } from '../../../../src/core/bundle/importer.ts';
import { AbortedError } from '../../../../src/core/errors.ts';
import { base64, errors, png, warnings } from './fixtures.ts';

const CSV = [
  'case_id,prompt,image_path,answer,A,B,C,category,modality',
  'c1,Which lesion is shown?,scans/c1.png,B,Infarct,Tumour,Normal,stroke,CT',
  'c2,Which lesion is shown?,scans/c2.png|scans/c2b.png,C,Infarct,Tumour,Normal,normal,MRI',
  'c3,Is this normal?,scans/missing.png,A,Yes,No,,normal,MRI',
].join('\n');
const CSV_MAPPING = { id: 'case_id', question: 'prompt', image: ['image_path'], answer: 'answer', options: ['A', 'B', 'C'], diseaseGroup: 'category', modality: 'modality' };
const csvInputs = () => [memoryFile('bench/items.csv', CSV), memoryFile('bench/scans/c1.png', png(1)), memoryFile('bench/scans/c2.png', png(2)), memoryFile('bench/scans/c2b.png', png(3))];

const JSONL = [
  JSON.stringify({ id: 1, question: '诊断是什么?', images: ['a.png'], options: ['Stroke', 'Tumor'], answer: 'A', diagnosis: 'Ischemic stroke', aliases: 'infarct|CVA' }),
  '',
  JSON.stringify({ id: 2, question: 'Describe the finding.', images: [`data:image/jpeg;base64,${base64(png(5))}`], diagnosis: 'Meningioma', task: 'open-question', extra: 1 }),
  '{"id": 3, "question": "broken",',
  JSON.stringify({ id: 4, question: 'Any lesion?', images: [], task: 'lesion-recognition' }),
].join('\n');
const JSONL_MAPPING = { id: 'id', question: 'question', image: 'images', options: ['options'], answer: 'answer', diagnosis: 'diagnosis', aliases: 'aliases', taskFamily: 'task' };

describe('generic importer', () => {
  it('reads a CSV with a mapping, resolving image paths like NeuroVLM-Bench', async () => {
    const draft = await genericImporter.read(csvInputs(), { options: { mapping: CSV_MAPPING } });
    expect(errors(draft)).toEqual([]);
    expect(draft.cases.map((c) => c.id)).toEqual(['c1', 'c2']);
    expect(draft.cases[0]).toEqual({
      id: 'c1',
      taskFamily: 'multiple-choice',
      modality: 'CT',
      diseaseGroup: 'stroke',
      images: [{ path: 'images/scans/c1.png', mime: 'image/png' }],
      questions: [
        {
          id: 'q1',
          text: 'Which lesion is shown?',
          options: [
            { key: 'A', text: 'Infarct' },
            { key: 'B', text: 'Tumour' },
            { key: 'C', text: 'Normal' },
          ],
          reference: { answer: 'B' },
        },
      ],
    });
    expect(draft.cases[1]!.images.map((i) => i.path)).toEqual(['images/scans/c2.png', 'images/scans/c2b.png']);
    expect(draft.skipped).toEqual([{ id: 'c3', reason: 'image not found: scans/missing.png', location: { file: 'bench/items.csv', line: 4, field: 'image_path' } }]);
    expect(draft.manifest).toMatchObject({ id: 'items', source: { kind: 'generic', files: ['bench/items.csv'] } });
  });

  it('reads JSONL: lists of images and options, data URIs, task families, and reports a bad line', async () => {
    const draft = await genericImporter.read([memoryFile('items.jsonl', JSONL), memoryFile('a.png', png(4))], { options: { mapping: JSONL_MAPPING } });
    expect(errors(draft)).toEqual([expect.objectContaining({ severity: 'error', location: { file: 'items.jsonl', line: 4 } })]);
    expect(errors(draft)[0]!.message).toMatch(/^Line 4 is not valid JSON/);
    const [one, two, four] = draft.cases;
    expect(one).toMatchObject({ id: '1', taskFamily: 'multiple-choice', images: [{ path: 'images/a.png', mime: 'image/png' }] });
    expect(one!.questions[0]).toEqual({
      id: 'q1',
      text: '诊断是什么?',
      lang: 'zh',
      options: [
        { key: 'A', text: 'Stroke' },
        { key: 'B', text: 'Tumor' },
      ],
      reference: { answer: 'A', diagnosis: 'Ischemic stroke', aliases: ['infarct', 'CVA'] },
    });
    expect(two).toMatchObject({ id: '2', taskFamily: 'open-question', images: [{ path: 'images/2-1.png', mime: 'image/png' }] });
    expect(draft.images.get('images/2-1.png')).toEqual(png(5));
    expect(four).toMatchObject({ id: '4', taskFamily: 'lesion-recognition', images: [] });
  });

  it('asks for a mapping when there is none, and names unknown columns', async () => {
    const none = await genericImporter.read(csvInputs(), {});
    expect(none.cases).toEqual([]);
    expect(errors(none)).toHaveLength(1);
    expect(errors(none)[0]!.message).toMatch(/^Choose which columns hold/);
    const wrong = await genericImporter.read(csvInputs(), { options: { mapping: { ...CSV_MAPPING, answer: 'gold' } } });
    expect(errors(wrong)).toEqual([
      { severity: 'error', message: 'The mapping uses column "gold" for answer, but bench/items.csv has no such column.', location: { file: 'bench/items.csv', line: 1, field: 'gold' } },
    ]);
  });

  it('tolerates the UI leaving unset fields empty', async () => {
    const draft = await genericImporter.read(csvInputs(), { options: { mapping: { ...CSV_MAPPING, split: undefined, notes: '', options: [], defaultTaskFamily: 'classification' } } });
    expect(errors(draft)).toEqual([]);
    expect(draft.cases[0]!.taskFamily).toBe('classification');
    expect(draft.cases[0]!.questions[0]!.options).toBeUndefined();
  });

  it('reports duplicate ids naming both lines', async () => {
    const csv = 'id,question\na,Q1\nb,Q2\na,Q3\n';
    const draft = await genericImporter.read([memoryFile('d.csv', csv)], { options: { mapping: { id: 'id', question: 'question' } } });
    expect(errors(draft).map((e) => e.message)).toEqual(['Case id "a" appears twice: first at d.csv line 2, again at d.csv line 4.']);
  });

  it('lists columns and suggests a mapping', async () => {
    expect(await listColumns(csvInputs())).toEqual(['case_id', 'prompt', 'image_path', 'answer', 'A', 'B', 'C', 'category', 'modality']);
    expect(await listColumns([memoryFile('items.jsonl', JSONL)])).toEqual(['id', 'question', 'images', 'options', 'answer', 'diagnosis', 'aliases', 'task', 'extra']);
    expect(suggestMapping(['case_id', 'prompt', 'image_path', 'answer', 'A', 'B', 'C', 'category', 'modality'])).toEqual({
      id: 'case_id',
      question: 'prompt',
      image: ['image_path'],
      answer: 'answer',
      options: ['A', 'B', 'C'],
      defaultTaskFamily: 'multiple-choice',
      diseaseGroup: 'category',
      modality: 'modality',
    });
    expect(suggestMapping(['ID', 'Question', 'image_1', 'image_2', 'Diagnosis', 'hint'])).toEqual({ id: 'ID', question: 'Question', image: ['image_1', 'image_2'], diagnosis: 'Diagnosis', notes: 'hint' });
    expect(suggestMapping(['file_path', 'class'])).toEqual({ image: ['file_path'], diseaseGroup: 'class' });
  });

  it('guesses columns whatever their case, spaces or hyphens, and never guesses an option column that is not one', () => {
    expect(suggestMapping(['Case ID', 'Question', 'Scan', 'Reference diagnosis', 'Modality'])).toEqual({
      id: 'Case ID', question: 'Question', image: ['Scan'], diagnosis: 'Reference diagnosis', modality: 'Modality',
    });
    expect(suggestMapping(['case_id', 'prompt', 'image', 'class_label'])).toEqual({ id: 'case_id', question: 'prompt', image: ['image'], classLabel: 'class_label' });
    // Only letter columns (A, B…) or a column named options/choices are option columns.
    for (const header of [['case_id', 'question', 'answer'], ['id', 'question', 'A', 'answer'], ['id', 'q', 'option_text']]) expect(suggestMapping(header).options).toBeUndefined();
  });

  describe('a class-label column', () => {
    const OWN = [
      'case_id,Question,Scan,Reference diagnosis',
      'p1,What is the diagnosis?,s/p1.png,Tumour',
      'p2,What is the diagnosis?,s/p2.png,Multiple sclerosis',
      'p3,What is the diagnosis?,s/p3.png,Glioblastoma',
      'p4,What is the diagnosis?,s/p4.png,n/a',
      'p5,What is the diagnosis?,s/p5.png,Tumour',
    ].join('\n');
    const own = () => [memoryFile('mine/cases.csv', OWN), ...[1, 2, 3, 4, 5].map((i) => memoryFile(`mine/s/p${i}.png`, png(i)))];
    const base = { id: 'case_id', question: 'Question', image: ['Scan'] };

    it('becomes the label classification scoring reads, in the benchmark\'s spelling, and makes the cases classification', async () => {
      const draft = await genericImporter.read(own(), { options: { mapping: { ...base, classLabel: 'Reference diagnosis' } } });
      expect(errors(draft)).toEqual([]);
      expect(draft.cases.map((c) => [c.id, c.taskFamily, c.questions[0]!.reference])).toEqual([
        ['p1', 'classification', { labels: { diagnosis_name: 'tumor' } }],
        ['p2', 'classification', { labels: { diagnosis_name: 'Multiple sclerosis' } }],
        ['p3', 'classification', { labels: { diagnosis_name: 'Glioblastoma' } }],
        ['p4', 'classification', undefined],
        ['p5', 'classification', { labels: { diagnosis_name: 'tumor' } }],
      ]);
      const found = warnings(draft);
      expect(found.map((w) => [w.location, w.message])).toEqual([
        [{ file: 'mine/cases.csv', line: 2, field: 'Reference diagnosis' }, 'Class label "Tumour" is stored as "tumor", NeuroVLM-Bench\'s spelling: the benchmark\'s own evaluator reads US spellings only and would never count an answer right for "Tumour" (2 rows with this value; the first is shown).'],
        [{ file: 'mine/cases.csv', line: 4, field: 'Reference diagnosis' }, expect.stringMatching(/^Class label "Glioblastoma" is not one of NeuroVLM-Bench's classes \(tumor, stroke, multiple sclerosis, normal, other abnormalities\).*never counted right\.$/)],
        [{ file: 'mine/cases.csv', line: 5, field: 'Reference diagnosis' }, 'Class label "n/a" means no class: these cases have no class to be scored on.'],
        [{ file: 'mine/cases.csv', line: 1, field: 'Reference diagnosis' }, expect.stringMatching(/^1 of the 5 cases asked under "NeuroVLM-Bench structured JSON" \(task family classification\) has no reference class \(diagnosis_name\).*its answers will get no score\./)],
      ]);
    });

    it('keeps a task family the mapping chose', async () => {
      const draft = await genericImporter.read(own(), { options: { mapping: { ...base, classLabel: 'Reference diagnosis', defaultTaskFamily: 'open-question' } } });
      expect(draft.cases[1]!.taskFamily).toBe('open-question');
    });

    it('is what the warning points to when the class was mapped as the answer', async () => {
      const asAnswer = await genericImporter.read(own(), { options: { mapping: { ...base, answer: 'Reference diagnosis' } } });
      expect(asAnswer.cases[0]!.taskFamily).toBe('open-question');
      const messages = warnings(asAnswer).map((w) => w.message);
      expect(messages).toEqual([
        'The answer column "Reference diagnosis" is not scored for 5 cases: they will be asked under "Open question (free text)" (task family open-question), which does not read an answer; only multiple choice does. ' +
          'Map the column as "Class label (classification scoring)" to score it as a class (without options the cases become classification, asked under NeuroVLM-Bench structured JSON), or as "Short answer (a word or phrase)" to score it by exact match (VQA-RAD, SLAKE), or as "Numeric answer (number, date or duration)" for a number, or as "Reference diagnosis" to score it as a diagnosis, or add "Option columns (multiple choice)" for multiple choice.',
        'None of the 5 cases asked under "Open question (free text)" (task family open-question) has a reference rationale or diagnosis, which that protocol scores answers against: their answers will get no score. Map the column that holds it as "Reference diagnosis".',
      ]);
      expect(warnings(asAnswer)[0]!.location).toEqual({ file: 'mine/cases.csv', line: 1, field: 'Reference diagnosis' });
      // Chosen as classification, the answer is still not what NeuroVLM-Bench scores.
      const classification = await genericImporter.read(own(), { options: { mapping: { ...base, answer: 'Reference diagnosis', defaultTaskFamily: 'classification' } } });
      expect(warnings(classification).map((w) => w.message)).toEqual([
        expect.stringMatching(/^The answer column "Reference diagnosis" is not scored for 5 cases: they will be asked under "NeuroVLM-Bench structured JSON" \(task family classification\).* as "Class label \(classification scoring\)" to score it as a class, or/),
        expect.stringMatching(/^None of the 5 cases asked under "NeuroVLM-Bench structured JSON" \(task family classification\) has a reference class \(diagnosis_name\).*Map the column that holds it as "Class label \(classification scoring\)"\.$/),
      ]);
    });
  });

  it('warns nothing when every mapped reference is scored, and names a multiple-choice answer that is not an option key', async () => {
    const clean = await genericImporter.read(csvInputs(), { options: { mapping: CSV_MAPPING } });
    expect(warnings(clean).filter((w) => !/image/.test(w.message))).toEqual([]);
    const csv = 'id,question,answer,A,B\nq1,Which?,B,Infarct,Tumour\nq2,Which?,Glioma,Infarct,Tumour\n';
    const offKey = await genericImporter.read([memoryFile('mc.csv', csv)], { options: { mapping: { id: 'id', question: 'question', answer: 'answer', options: ['A', 'B'] } } });
    expect(warnings(offKey).map((w) => w.message)).toEqual([
      'The answer of 1 multiple-choice case is not one of its option keys (case "q2": "Glioma", keys A, B): multiple choice scores the key of the correct option, so these answers are never counted right.',
    ]);
  });

  it('honours an aborted signal', async () => {
    await expect(genericImporter.read(csvInputs(), { signal: AbortSignal.abort(), options: { mapping: CSV_MAPPING } })).rejects.toBeInstanceOf(AbortedError);
  });
});
