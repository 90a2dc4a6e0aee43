/** Neural-MedBench import on a generated file shaped like the public direct-diagnosis.json. */
import { describe, expect, it } from 'vitest';
import { guessNmbSplit, neuralMedBenchImporter } from '../../../../src/core/importers/neural-medbench.ts';
import { memoryFile } from '../../../../src/core/bundle/importer.ts';
import { AbortedError, InvalidInputError } from '../../../../src/core/errors.ts';
import { nmbMultiRoundProtocol } from '../../../../src/core/protocols/nmb/multi-round.ts';
import { turnImages } from '../../../../src/core/chat/turn.ts';
import { base64, errors, lastLineOf, lineOf, png, warnings } from './fixtures.ts';

const ZH = '根据患者的症状和图片,对疾病进行诊断';
/** PNG bytes behind a JPEG label, as in the public file. */
const mislabelled = (seed: number) => `data:image/jpeg;base64,${base64(png(seed))}`;

const ENTRIES = [
  { case_id: 'case_1', text: 'A 77-year-old female with sudden aphasia.', images: [mislabelled(1), mislabelled(2)], questions: [{ question_number: 1, question_text: ZH }] },
  {
    case_id: 'case_2',
    text: 'A 34-year-old man with seizures.',
    images: [mislabelled(3)],
    questions: [
      { question_number: 1, question_text: 'What is the most likely diagnosis?' },
      { question_number: 2, question_text: 'Where is the lesion?' },
    ],
  },
  { case_id: 'case_3', text: 'Headache.', images: [`data:image/png;base64,${base64(png(4))}`], questions: [{ question_number: 1, question_text: ZH }] },
  { case_id: 'case_4', text: '', images: [], questions: [{ question_number: 1, question_text: ZH }] },
  { case_id: 'case_5', text: '', images: [], questions: [{ question_number: 1, question_text: ZH }] },
];
const json = (entries: unknown[]) => JSON.stringify(entries, null, 2);
const TEXT = json(ENTRIES);

const KEY_CSV = [
  'case_id,question_number,diagnosis,aliases,differential,lesion_type,lesion_location,laterality,rationale,disease_group',
  'case_1,,Ischemic stroke,acute ischemic stroke|cerebral infarction,Ischemic stroke;Todd paralysis;Migraine aura,infarct,left MCA territory,left,Restricted diffusion in the left MCA territory.,stroke',
  'case_2,1,Glioblastoma,GBM,Glioblastoma|Metastasis|Lymphoma,,,,,tumor',
  'case_2,2,,,,enhancing mass,right temporal lobe,right,,',
  'case_4,1,Migraine,,,,,,,',
  'case_99,,Multiple sclerosis,,,,,,,',
].join('\n');

const KEY_JSON = JSON.stringify(
  [
    { case_id: 'case_1', diagnosis: 'Ischemic stroke', aliases: ['acute ischemic stroke', 'cerebral infarction'], differential: ['Ischemic stroke', 'Todd paralysis', 'Migraine aura'], lesion: { type: 'infarct', location: 'left MCA territory', laterality: 'left' }, rationale: 'Restricted diffusion in the left MCA territory.', disease_group: 'stroke' },
    { case_id: 'case_2', question_number: 1, diagnosis: 'Glioblastoma', aliases: ['GBM'], differential: ['Glioblastoma', 'Metastasis', 'Lymphoma'], disease_group: 'tumor' },
    { case_id: 'case_2', question_number: 2, lesion_type: 'enhancing mass', lesion_location: 'right temporal lobe', laterality: 'right' },
    { case_id: 'case_4', question_number: 1, diagnosis: 'Migraine' },
    { case_id: 'case_99', diagnosis: 'Multiple sclerosis' },
  ],
  null,
  2,
);

describe('Neural-MedBench importer', () => {
  it('reads cases, sniffs the real image type and keeps Chinese questions exactly', async () => {
    const draft = await neuralMedBenchImporter.read([memoryFile('direct-diagnosis.json', TEXT)], {});
    expect(errors(draft)).toEqual([]);
    expect(draft.cases.map((c) => c.id)).toEqual(['case_1', 'case_2', 'case_3']);
    const c1 = draft.cases[0]!;
    expect(c1).toMatchObject({ split: 'direct', taskFamily: 'differential-diagnosis', notes: 'A 77-year-old female with sudden aphasia.' });
    expect(c1.images).toEqual([
      { path: 'images/case_1-1.png', mime: 'image/png' },
      { path: 'images/case_1-2.png', mime: 'image/png' },
    ]);
    expect(draft.images.get('images/case_1-2.png')).toEqual(png(2));
    expect(c1.questions).toEqual([{ id: '1', text: ZH, lang: 'zh' }]);
    expect(draft.cases[1]!.questions.map((q) => [q.id, q.lang])).toEqual([
      ['1', undefined],
      ['2', undefined],
    ]);
    const mislabel = warnings(draft).filter((w) => w.message.includes('image/jpeg'));
    expect(mislabel).toHaveLength(1);
    expect(mislabel[0]!.message).toBe('3 images labelled image/jpeg but containing PNG data; stored with the type their bytes show.');
    expect(draft.manifest).toMatchObject({ id: 'neural-medbench-direct', source: { kind: 'neural-medbench' }, protocolDefaults: { protocol: 'nmb-differential' } });
  });

  it('skips placeholder entries with a reason and location', async () => {
    const draft = await neuralMedBenchImporter.read([memoryFile('direct-diagnosis.json', TEXT)], {});
    expect(draft.skipped).toEqual([
      { id: 'case_4', reason: 'placeholder entry: empty text and no images', location: { file: 'direct-diagnosis.json', line: lineOf(TEXT, '"case_id": "case_4"'), field: '[3]' } },
      { id: 'case_5', reason: 'placeholder entry: empty text and no images', location: { file: 'direct-diagnosis.json', line: lineOf(TEXT, '"case_id": "case_5"'), field: '[4]' } },
    ]);
  });

  it('takes the split from an option or the file name', async () => {
    expect(guessNmbSplit('data/complex-diseases.json')).toBe('complex');
    expect(guessNmbSplit('multi-round-dialogue.json')).toBe('multi-round');
    expect(guessNmbSplit('cases.json')).toBeUndefined();
    const draft = await neuralMedBenchImporter.read([memoryFile('complex-diseases.json', TEXT)], { options: { split: 'custom' } });
    expect(draft.cases[0]!.split).toBe('custom');
  });

  it.each([
    ['CSV', memoryFile('answers.csv', KEY_CSV)],
    ['JSON', memoryFile('answers.json', KEY_JSON)],
  ])('joins an answer key (%s) on case_id and question_number', async (_kind, key) => {
    const draft = await neuralMedBenchImporter.read([memoryFile('direct-diagnosis.json', TEXT), key], {});
    expect(errors(draft)).toEqual([]);
    const [c1, c2, c3] = draft.cases;
    expect(c1!.diseaseGroup).toBe('stroke');
    expect(c1!.questions[0]!.reference).toEqual({
      diagnosis: 'Ischemic stroke',
      aliases: ['acute ischemic stroke', 'cerebral infarction'],
      differential: ['Ischemic stroke', 'Todd paralysis', 'Migraine aura'],
      lesion: { type: 'infarct', location: 'left MCA territory', laterality: 'left' },
      rationale: 'Restricted diffusion in the left MCA territory.',
    });
    expect(c2!.diseaseGroup).toBe('tumor');
    expect(c2!.questions[0]!.reference).toEqual({ diagnosis: 'Glioblastoma', aliases: ['GBM'], differential: ['Glioblastoma', 'Metastasis', 'Lymphoma'] });
    expect(c2!.questions[1]!.reference).toEqual({ lesion: { type: 'enhancing mass', location: 'right temporal lobe', laterality: 'right' } });
    expect(c3!.questions[0]!.reference).toBeUndefined();

    const file = key.path;
    const w = warnings(draft);
    const orphan = w.find((i) => i.message.includes('case_99'))!;
    expect(orphan.message).toBe('This answer-key row matches no question: there is no case "case_99".');
    expect(orphan.location).toMatchObject({ file, line: file.endsWith('.csv') ? 6 : lineOf(KEY_JSON, '"case_id": "case_99"') });
    expect(w.find((i) => i.message.includes('case_4'))!.message).toContain('placeholder');
    const noKey = w.find((i) => i.message.includes('no row in the answer key'))!;
    expect(noKey.message).toBe('1 case of 3 has no row in the answer key and will not be scored.');
    expect(noKey.location).toEqual({ file });
    // What the preview shows: the key matched two cases of three, case_3 has none, and two rows matched nothing.
    expect(draft.answerKey).toMatchObject({ files: [file], cases: 3, matchedCases: 2, casesWithoutKey: ['case_3'] });
    expect(draft.answerKey!.unmatchedRows).toHaveLength(2);
    expect(draft.answerKey!.unmatchedRows.join('\n')).toContain('there is no case "case_99"');
  });

  it('says when no answer key was given, so the preview does not read the same with and without one', async () => {
    const draft = await neuralMedBenchImporter.read([memoryFile('direct-diagnosis.json', TEXT)], {});
    expect(draft.answerKey).toBeNull();
  });

  it('reports duplicate answer-key rows naming both lines', async () => {
    const key = 'case_id,question_number,diagnosis\ncase_1,,A\ncase_1,,B\n';
    const draft = await neuralMedBenchImporter.read([memoryFile('direct-diagnosis.json', TEXT), memoryFile('key.csv', key)], {});
    expect(errors(draft).map((e) => e.message)).toEqual(['The answer key has two rows for case "case_1": key.csv line 2 and key.csv line 3.']);
  });

  it('reports malformed entries with file, field and line', async () => {
    const bad = [
      ...ENTRIES.slice(0, 2),
      { text: 'no id', images: [], questions: [] },
      { case_id: 'case_7', text: 'x', images: [mislabelled(7)], questions: 'What is it?' },
      { case_id: 'case_8', text: 'x', images: ['data:image/png;base64,@@@@'], questions: [{ question_number: 1, question_text: 'Q' }] },
      { case_id: 'case_9', text: 'x', images: [`data:image/png;base64,${base64(new TextEncoder().encode('not an image at all'))}`], questions: [{ question_number: 1, question_text: 'Q' }] },
      { case_id: 'case_1', text: 'again', images: [mislabelled(9)], questions: [{ question_number: 1, question_text: 'Q' }] },
    ];
    const text = json(bad);
    const draft = await neuralMedBenchImporter.read([memoryFile('direct-diagnosis.json', text)], {});
    const byField = new Map(errors(draft).map((e) => [e.location!.field, e]));
    expect(byField.get('[2].case_id')!.message).toBe('Entry 2 has no case_id.');
    expect(byField.get('[3].questions')!.location).toEqual({ file: 'direct-diagnosis.json', line: lineOf(text, '"case_id": "case_7"'), field: '[3].questions' });
    expect(byField.get('[4].images[0]')!.message).toBe('Case "case_8": image 1 holds data that is not valid base64.');
    expect(byField.get('[4].images[0]')!.location!.line).toBe(lineOf(text, '"case_id": "case_8"'));
    expect(byField.get('[5].images[0]')!.message).toContain('is not an image');
    const dup = byField.get('[6].case_id')!;
    expect(dup.message).toBe(`Case id "case_1" appears twice: first at direct-diagnosis.json line ${lineOf(text, '"case_id": "case_1"')}, again at direct-diagnosis.json line ${lastLineOf(text, '"case_id": "case_1"')}.`);
    expect(errors(draft)).toHaveLength(5);
  });

  it('throws InvalidInputError with the line when the JSON does not parse', async () => {
    const text = '[\n  {"case_id": "case_1",\n   "text": "x"\n   "images": []}\n]';
    const run = neuralMedBenchImporter.read([memoryFile('direct-diagnosis.json', text)], {});
    await expect(run).rejects.toBeInstanceOf(InvalidInputError);
    await expect(run).rejects.toMatchObject({ location: { file: 'direct-diagnosis.json', line: 4 } });
  });

  it('honours an aborted signal', async () => {
    await expect(neuralMedBenchImporter.read([memoryFile('direct-diagnosis.json', TEXT)], { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(AbortedError);
  });
});

describe('Neural-MedBench multi-round dialogues', () => {
  const ROUNDS = [
    {
      case_id: 'mr_1',
      text: 'A 45-year-old woman with fever and confusion.',
      images: [mislabelled(11)],
      questions: [
        // Out of order on purpose: the rounds follow question_number.
        { question_number: 2, question_text: 'CSF HSV PCR is positive. Does this change your assessment?', images: [mislabelled(12)] },
        { question_number: 1, question_text: 'What is the most likely diagnosis?' },
        { question_number: 3, question_text: 'What treatment now?' },
      ],
    },
    { case_id: 'mr_2', text: 'Sudden weakness.', images: [mislabelled(13)], questions: [{ question_number: 1, question_text: ZH }] },
  ];
  const ROUNDS_TEXT = json(ROUNDS);
  const dialogueFile = () => memoryFile('multi-round-dialogue.json', ROUNDS_TEXT);

  it('reads each case as one dialogue: the first round opens it, the others are follow-ups with their own images', async () => {
    const draft = await neuralMedBenchImporter.read([dialogueFile()], {});
    expect(errors(draft)).toEqual([]);
    const [c1, c2] = draft.cases;
    expect(c1).toMatchObject({ split: 'multi-round', taskFamily: 'multi-turn' });
    expect(c1!.questions).toEqual([{
      id: '1',
      text: 'What is the most likely diagnosis?',
      followUps: [
        { id: '2', text: 'CSF HSV PCR is positive. Does this change your assessment?', images: [1] },
        { id: '3', text: 'What treatment now?' },
      ],
    }]);
    expect(c1!.images.map((i) => i.path)).toEqual(['images/mr_1-1.png', 'images/mr_1-2.png']);
    expect(draft.images.get('images/mr_1-2.png')).toEqual(png(12));
    expect(c2!.questions).toEqual([{ id: '1', text: ZH, lang: 'zh' }]);
    expect(draft.manifest.protocolDefaults).toEqual({ protocol: 'nmb-multi-round' });
  });

  it('reveals a round\'s images only with that round when the dialogue runs', async () => {
    const draft = await neuralMedBenchImporter.read([dialogueFile()], {});
    const c = draft.cases[0]!;
    const q = c.questions[0]!;
    expect(nmbMultiRoundProtocol.turnCount(q)).toBe(3);
    const shown = (turn: number) =>
      nmbMultiRoundProtocol.buildTurn(c, q, turn, ['{"answer": "x", "differential": []}', '{"answer": "y", "differential": []}']).messages
        .filter((m) => m.role === 'user').map((m) => turnImages(m).map((r) => r.index));
    expect(shown(0)).toEqual([[0]]);
    expect(shown(1)).toEqual([[0], [1]]);
    expect(shown(2)).toEqual([[0], [1], []]);
  });

  it('leaves direct-diagnosis files as separate questions, and a mixed import to each case\'s family', async () => {
    const draft = await neuralMedBenchImporter.read([memoryFile('direct-diagnosis.json', TEXT), dialogueFile()], {});
    expect(draft.cases.find((c) => c.id === 'case_2')!.questions.map((q) => q.id)).toEqual(['1', '2']);
    expect(draft.cases.find((c) => c.id === 'case_2')!.taskFamily).toBe('differential-diagnosis');
    expect(draft.cases.find((c) => c.id === 'mr_1')!.taskFamily).toBe('multi-turn');
    expect(draft.manifest.protocolDefaults).toBeUndefined();
  });

  it('reads a dialogue from any file name with the split option', async () => {
    const draft = await neuralMedBenchImporter.read([memoryFile('rounds.json', ROUNDS_TEXT)], { options: { split: 'multi-round' } });
    expect(draft.cases[0]!.questions[0]!.followUps).toHaveLength(2);
  });

  const TURN_CSV = [
    'case_id,question_number,turn,diagnosis,rationale',
    'mr_1,,,Herpes simplex encephalitis,Temporal lobe involvement with fever.',
    'mr_1,,1,Viral encephalitis,Fever and confusion suggest encephalitis.',
    'mr_1,,2,,A positive HSV PCR confirms herpes encephalitis.',
    'mr_1,3,,Herpes simplex encephalitis,Start intravenous aciclovir.',
  ].join('\n');
  const TURN_JSON = JSON.stringify([
    { case_id: 'mr_1', diagnosis: 'Herpes simplex encephalitis', rationale: 'Temporal lobe involvement with fever.', turns: [
      { diagnosis: 'Viral encephalitis', rationale: 'Fever and confusion suggest encephalitis.' },
      { rationale: 'A positive HSV PCR confirms herpes encephalitis.' },
      { turn: 3, diagnosis: 'Herpes simplex encephalitis', rationale: 'Start intravenous aciclovir.' },
    ] },
  ], null, 2);

  it.each([
    ['CSV with a turn column', memoryFile('answers.csv', TURN_CSV)],
    ['JSON with a turns list', memoryFile('answers.json', TURN_JSON)],
  ])('joins an answer per turn (%s); a turn overrides the dialogue field by field', async (_kind, key) => {
    const draft = await neuralMedBenchImporter.read([dialogueFile(), key], {});
    expect(errors(draft)).toEqual([]);
    const q = draft.cases[0]!.questions[0]!;
    expect(q.reference).toEqual({ diagnosis: 'Viral encephalitis', rationale: 'Fever and confusion suggest encephalitis.' });
    expect(q.followUps!.map((f) => f.reference)).toEqual([
      { diagnosis: 'Viral encephalitis', rationale: 'A positive HSV PCR confirms herpes encephalitis.' },
      { diagnosis: 'Herpes simplex encephalitis', rationale: 'Start intravenous aciclovir.' },
    ]);
  });

  it('reports a bad turn, a turn the dialogue does not have, and two rows for one turn, with file and line', async () => {
    const key = [
      'case_id,question_number,turn,diagnosis',
      'mr_1,,two,Viral encephalitis',
      'mr_1,,5,Viral encephalitis',
      'mr_1,2,,Herpes simplex encephalitis',
      'mr_1,1,2,Herpes simplex encephalitis',
    ].join('\n');
    const draft = await neuralMedBenchImporter.read([dialogueFile(), memoryFile('key.csv', key)], {});
    const bad = errors(draft);
    expect(bad.map((e) => e.message)).toEqual([
      'The turn must be a whole number from 1 (the opening question); got "two".',
      'The answer key has two rows for case "mr_1" question 2 (also given as case "mr_1" question 1 turn 2): key.csv line 4 and key.csv line 5.',
    ]);
    expect(bad[0]!.location).toEqual({ file: 'key.csv', line: 2, field: 'turn' });
    const missing = warnings(draft).find((w) => w.message.includes('turns, not 5'))!;
    expect(missing.message).toBe('This answer-key row matches no question: question 1 of case "mr_1" has 3 turns, not 5.');
    expect(missing.location).toMatchObject({ file: 'key.csv', line: 3 });
  });

  it('locates an error inside a JSON turns list', async () => {
    const key = JSON.stringify([{ case_id: 'mr_1', turns: [{ diagnosis: 'Viral encephalitis' }, 'not an object'] }], null, 2);
    const draft = await neuralMedBenchImporter.read([dialogueFile(), memoryFile('key.json', key)], {});
    expect(errors(draft)).toEqual([expect.objectContaining({ message: 'Turn 2 of this answer-key row is not an object.', location: { file: 'key.json', line: lineOf(key, '"case_id": "mr_1"'), field: '[0].turns[1]' } })]);
  });
});
