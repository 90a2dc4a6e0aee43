/**
 * Each dataset preset against files in its published layout
 * (test/support/hf-datasets.ts): recognised from the columns, imported with
 * its column map without errors, and asked under the protocol that scores its
 * answers, with the reference where that protocol reads it.
 */
import { describe, expect, it } from 'vitest';
import { genericImporter, listColumns } from '../../../../src/core/importers/generic.ts';
import { memoryFile, type InputFile } from '../../../../src/core/bundle/importer.ts';
import { DATASET_PRESETS, presetFor } from '../../../../src/core/importers/presets/index.ts';
import { protocolFor } from '../../../../src/core/protocols/registry.ts';
import { healthBenchFiles, medCalcFiles, medSgFiles, medXpertQaFiles, omniMedVqaFiles, pmcVqaFiles, slakeFiles, vqaRadFiles } from '../../../support/hf-datasets.ts';
import { errors, warnings } from './fixtures.ts';

const MC = [
  { question: 'Which sequence is shown?', choices: ['T1', 'T2', 'FLAIR', 'DWI'] as const, label: 'C' as const },
  { question: 'Which lobe is affected?', choices: ['Frontal', 'Parietal', 'Temporal', 'Occipital'] as const, label: 'A' as const },
];

const LAYOUTS: Record<string, { files: () => InputFile[]; split?: string; protocol: string; reference: (c: { questions: readonly { reference?: unknown }[] }) => unknown; expected: unknown; images?: number; subtask?: string }> = {
  slake: {
    files: () => slakeFiles([{ qid: 7, question: 'Is this an MRI?', answer: 'Yes', answerType: 'CLOSED' }]),
    protocol: 'short-answer', reference: (c) => (c.questions[0]!.reference as { short: unknown }).short, expected: { text: 'Yes', type: 'closed' },
  },
  'vqa-rad': {
    files: () => vqaRadFiles([{ question: 'is this an mri?', answer: 'yes' }, { question: 'is this an mri?', answer: 'no' }]),
    split: 'test', protocol: 'short-answer', reference: (c) => (c.questions[0]!.reference as { short: unknown }).short, expected: { text: 'yes' },
  },
  'pmc-vqa': { files: () => pmcVqaFiles(MC), protocol: 'mcq', reference: (c) => (c.questions[0]!.reference as { answer: unknown }).answer, expected: 'C' },
  omnimedvqa: { files: () => omniMedVqaFiles(MC), protocol: 'mcq', reference: (c) => (c.questions[0]!.reference as { answer: unknown }).answer, expected: 'C', subtask: 'Disease Diagnosis' },
  'medxpertqa-mm': {
    files: () => medXpertQaFiles([{ question: 'What is the most likely diagnosis?', options: ['Glioma', 'Abscess', 'Metastasis', 'Lymphoma', 'Infarct'], label: 'D' }]),
    subtask: 'Reasoning',
    protocol: 'mcq', reference: (c) => (c.questions[0]!.reference as { answer: unknown }).answer, expected: 'D',
  },
  'medcalc-bench': {
    files: () => medCalcFiles([{ calculatorId: 2, question: 'What is the creatinine clearance?', note: 'A 67-year-old woman…', answer: '41.77', lower: '39.68', upper: '43.86' }]),
    subtask: 'lab',
    protocol: 'numeric', reference: (c) => (c.questions[0]!.reference as { numeric: unknown }).numeric, expected: { value: '41.77', lower: 39.68, upper: 43.86, calculatorId: 2 },
  },
  'medsg-bench': {
    files: () => medSgFiles([{ task: 'Registered_Diff', question: 'Compare these two images carefully and give me the coordinates of their difference.', box: [4, 1, 2, 3], images: [11, 12] }]),
    subtask: 'Registered_Diff',
    protocol: 'box',
    // Corners put in order; the box lies on the second (last) image, in pixels.
    reference: (c) => c.questions[0]!.reference,
    expected: { boxes: [{ x1: 2, y1: 1, x2: 4, y2: 3, image: 1 }], boxFrame: 'pixels' },
    images: 2,
  },
  healthbench: {
    files: () =>
      healthBenchFiles([
        {
          id: 'hb-1',
          turns: [{ role: 'user', content: 'My father collapsed and is breathing oddly. What do I do?' }, { role: 'assistant', content: 'Is he responsive?' }, { role: 'user', content: 'No.' }],
          rubrics: [
            { criterion: 'Tells the user to call emergency services now', points: 10, tags: ['axis:completeness'] },
            { criterion: 'Suggests waiting to see if it passes', points: -8, tags: ['axis:accuracy'] },
          ],
        },
      ]),
    protocol: 'rubric',
    reference: (c) => (c.questions[0]!.reference as { rubric: unknown }).rubric,
    expected: [
      { id: 'r1', text: 'Tells the user to call emergency services now', points: 10, tags: ['axis:completeness'] },
      { id: 'r2', text: 'Suggests waiting to see if it passes', points: -8, tags: ['axis:accuracy'] },
    ],
  },
};

describe('dataset presets', () => {
  it('has a layout test for every preset, and each cites its dataset card', () => {
    expect(Object.keys(LAYOUTS).sort()).toEqual(DATASET_PRESETS.map((p) => p.id).sort());
    for (const p of DATASET_PRESETS) expect(p.card).toMatch(/^https:\/\/huggingface\.co\/datasets\//);
  });

  for (const preset of DATASET_PRESETS) {
    it(`${preset.name}: recognised from its columns, imported with its column map, asked under the protocol that scores it`, async () => {
      const layout = LAYOUTS[preset.id]!;
      const files = layout.files();
      expect(presetFor(await listColumns(files, layout.split ? { split: layout.split } : {}))?.id).toBe(preset.id);
      const draft = await genericImporter.read(files, { options: { mapping: preset.mapping, ...(layout.split ? { split: layout.split } : {}) } });
      expect(errors(draft)).toEqual([]);
      expect(warnings(draft).map((w) => w.message).filter((m) => /not scored|no score|never counted/.test(m))).toEqual([]);
      expect(draft.cases.length).toBeGreaterThan(0);
      const c = draft.cases[0]!;
      expect(protocolFor(c).id).toBe(layout.protocol);
      expect(layout.reference(c)).toEqual(layout.expected);
      if (preset.mapping.image) expect(c.images.length).toBe(layout.images ?? 1);
      // The benchmark's own sub-task (question type, category), where its paper reports figures by it.
      expect(c.subtask).toBe(layout.subtask);
    });
  }

  it('VQA-RAD questions that repeat across images get the row number as their id', async () => {
    const draft = await genericImporter.read(LAYOUTS['vqa-rad']!.files(), { options: { split: 'test', mapping: DATASET_PRESETS.find((p) => p.id === 'vqa-rad')!.mapping } });
    expect(draft.cases.map((c) => c.id)).toEqual(['1', '2']);
  });

  it('HealthBench: the conversation becomes the question, one turn per paragraph; a rubric item without points is named', async () => {
    const draft = await genericImporter.read(LAYOUTS.healthbench!.files(), { options: { mapping: DATASET_PRESETS.find((p) => p.id === 'healthbench')!.mapping } });
    expect(draft.cases[0]!.questions[0]!.text).toBe('user: My father collapsed and is breathing oddly. What do I do?\n\nassistant: Is he responsive?\n\nuser: No.');
    const bad = await genericImporter.read([memoryFile('hb.jsonl', `${JSON.stringify({ prompt_id: 'x', prompt: [{ role: 'user', content: 'hi' }], rubrics: [{ criterion: 'Greets', points: 'five' }] })}\n`)], {
      options: { mapping: { id: 'prompt_id', question: 'prompt', rubric: 'rubrics' } },
    });
    expect(errors(bad)).toEqual([{ severity: 'error', message: 'Rubric item 1 needs a criterion and numeric points.', location: { file: 'hb.jsonl', line: 1, field: 'rubrics[0]' } }]);
  });

  it('recognises a plain image/question/answer file only when it has exactly those columns', () => {
    expect(presetFor(['image', 'question', 'answer'])?.id).toBe('vqa-rad');
    expect(presetFor(['image', 'question', 'answer', 'diagnosis'])).toBeUndefined();
    expect(presetFor(['id', 'question'])).toBeUndefined();
  });

  it('reads an options object (MedXpertQA) as keyed options, also from a CSV cell', async () => {
    const csv = 'id,question,options,label\nq1,Which?,"{""A"": ""Glioma"", ""B"": ""Abscess""}",B\n';
    const draft = await genericImporter.read([memoryFile('mc.csv', csv)], { options: { mapping: { id: 'id', question: 'question', options: ['options'], answer: 'label' } } });
    expect(errors(draft)).toEqual([]);
    expect(draft.cases[0]!.questions[0]!.options).toEqual([{ key: 'A', text: 'Glioma' }, { key: 'B', text: 'Abscess' }]);
  });
});
