import Ajv2020 from 'ajv/dist/2020.js';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../../src/core/bundle/canonical.ts';
import { validateCase, validateManifest } from '../../../../src/core/bundle/validate.ts';

const schema = JSON.parse(readFileSync(new URL('../../../../docs/formats/bundle.schema.json', import.meta.url), 'utf8')) as object;
const ajv = new Ajv2020({ allErrors: true, strict: false });
ajv.addSchema(schema);
const schemaAccepts = (def: 'case' | 'manifest', value: unknown) => ajv.validate(`https://neuroeval.invalid/schemas/bundle-v1.json#/$defs/${def}`, value);

const goodCase = {
  id: 'c1',
  split: 'direct',
  taskFamily: 'differential-diagnosis',
  images: [{ path: 'images/a.png', sequence: 'FLAIR', plane: 'axial', slice: 12 }],
  ehr: { age: 61, sex: 'F', smoker: false, onset: null },
  notes: 'Two days of confusion.',
  questions: [
    {
      id: '1',
      text: '根据患者的症状和图片,对疾病进行诊断',
      lang: 'zh',
      reference: { diagnosis: 'HSV encephalitis', aliases: ['herpes simplex encephalitis'], differential: ['a', 'b'], lesion: { laterality: 'left' }, labels: { plane: null } },
    },
  ],
};

describe('case validation', () => {
  it('accepts a complete case, as the JSON Schema does', () => {
    const r = validateCase(goodCase, { file: 'cases.jsonl', line: 1 });
    expect(r.issues).toEqual([]);
    expect(r.case).toEqual(goodCase);
    expect(schemaAccepts('case', goodCase)).toBe(true);
  });

  const bad: [string, unknown, RegExp, string][] = [
    ['missing id', { ...goodCase, id: undefined }, /Missing required field "id"/, 'id'],
    ['unknown task', { ...goodCase, taskFamily: 'guessing' }, /"taskFamily" must be one of/, 'taskFamily'],
    ['images not a list', { ...goodCase, images: 'a.png' }, /"images" must be a list/, 'images'],
    ['no questions', { ...goodCase, questions: [] }, /non-empty list/, 'questions'],
    ['question without text', { ...goodCase, questions: [{ id: '1' }] }, /Missing required field "text"/, 'questions[0].text'],
    ['bad laterality', { ...goodCase, questions: [{ id: '1', text: 'x', reference: { lesion: { laterality: 'up' } } }] }, /laterality/, 'questions[0].reference.lesion.laterality'],
    ['label not string', { ...goodCase, questions: [{ id: '1', text: 'x', reference: { labels: { plane: 3 } } }] }, /Label "plane"/, 'questions[0].reference.labels.plane'],
    ['rubric points', { ...goodCase, questions: [{ id: '1', text: 'x', reference: { rubric: [{ id: 'r', text: 't', points: 'ten' }] } }] }, /points/, 'questions[0].reference.rubric[0].points'],
    ['ehr object value', { ...goodCase, ehr: { meds: ['a'] } }, /EHR field "meds"/, 'ehr.meds'],
    ['short answer type', { ...goodCase, questions: [{ id: '1', text: 'x', reference: { short: { text: 'yes', type: 'maybe' } } }] }, /open or closed/, 'questions[0].reference.short.type'],
    ['numeric limit', { ...goodCase, questions: [{ id: '1', text: 'x', reference: { numeric: { value: '4', lower: 'three' } } }] }, /"lower" must be a number/, 'questions[0].reference.numeric.lower'],
    ['numeric kind', { ...goodCase, questions: [{ id: '1', text: 'x', reference: { numeric: { value: '4', kind: 'roman' } } }] }, /"kind" must be one of/, 'questions[0].reference.numeric.kind'],
    ['box coordinate', { ...goodCase, questions: [{ id: '1', text: 'x', reference: { boxes: [{ x1: 0, y1: 0, x2: '5', y2: 5 }] } }] }, /"x2" must be a number/, 'questions[0].reference.boxes[0].x2'],
    ['box frame', { ...goodCase, questions: [{ id: '1', text: 'x', reference: { boxes: [{ x1: 0, y1: 0, x2: 5, y2: 5 }], boxFrame: 'inches' } }] }, /"boxFrame" must be one of/, 'questions[0].reference.boxFrame'],
    ['rubric tags', { ...goodCase, questions: [{ id: '1', text: 'x', reference: { rubric: [{ id: 'r', text: 't', points: 1, tags: 'axis:accuracy' }] } }] }, /tags/, 'questions[0].reference.rubric[0].tags'],
    ['option with neither text nor image', { ...goodCase, questions: [{ id: '1', text: 'x', options: [{ key: 'A' }] }] }, /Missing required field "text"/, 'questions[0].options[0].text'],
  ];

  it('accepts the answer types, tagged rubric items and image options, as the JSON Schema does', () => {
    const typed = {
      ...goodCase,
      images: [...goodCase.images, { path: 'images/b.png' }],
      questions: [
        { id: 'a', text: 'Which lobe?', reference: { short: { text: 'frontal', type: 'open' } } },
        { id: 'b', text: 'CrCl?', reference: { numeric: { value: '41.77', lower: 39.68, upper: 43.86, calculatorId: 2 } } },
        { id: 'c', text: 'Where?', reference: { boxes: [{ x1: 1, y1: 2, x2: 30, y2: 40, image: 0, label: 'lesion' }], boxFrame: 'pixels' } },
        { id: 'd', text: 'Advice?', reference: { rubric: [{ id: 'r1', text: 'Refers', points: 5, tags: ['axis:completeness'] }] } },
        { id: 'e', text: 'Which image shows the lesion?', options: [{ key: 'A', image: 0, text: '' }, { key: 'B', image: 1 }], reference: { answer: 'B' } },
      ],
    };
    const r = validateCase(typed, { file: 'cases.jsonl', line: 1 });
    expect(r.issues).toEqual([]);
    expect(r.case).toEqual(typed);
    expect(schemaAccepts('case', typed)).toBe(true);
  });
  it.each(bad)('reports %s with file, line and field, and the schema agrees', (_name, value, message, field) => {
    const r = validateCase(value, { file: 'cases.jsonl', line: 7 });
    expect(r.case).toBeUndefined();
    const err = r.issues.find((i) => i.severity === 'error');
    expect(err?.message).toMatch(message);
    expect(err?.location).toEqual({ file: 'cases.jsonl', line: 7, field });
    expect(schemaAccepts('case', value)).toBe(false);
  });

  it('drops unknown fields with a warning', () => {
    const r = validateCase({ ...goodCase, colour: 'blue' }, { file: 'cases.jsonl', line: 2 });
    expect(r.case).toEqual(goodCase);
    expect(r.issues).toEqual([{ severity: 'warning', message: 'Unknown field "colour" is ignored.', location: { file: 'cases.jsonl', line: 2, field: 'colour' } }]);
  });
});

describe('manifest validation', () => {
  const manifest = { format: 'neuroeval-bundle', formatVersion: 1, id: 'demo-1', name: 'Demo', version: '1.0.0', license: 'CC0-1.0', contentHash: 'a'.repeat(64) };
  it('accepts a valid manifest', () => {
    expect(validateManifest(manifest, 'manifest.json').issues).toEqual([]);
    expect(schemaAccepts('manifest', manifest)).toBe(true);
  });
  it('refuses a newer format version and bad ids, naming the field', () => {
    const r = validateManifest({ ...manifest, formatVersion: 2, id: 'Bad Id' }, 'manifest.json');
    expect(r.manifest).toBeUndefined();
    expect(r.issues.map((i) => i.location?.field)).toEqual(['formatVersion', 'id']);
    expect(schemaAccepts('manifest', { ...manifest, formatVersion: 2 })).toBe(false);
  });
  it('accepts a declared task, as the JSON Schema does', () => {
    for (const task of [
      { answerType: 'short' },
      { answerType: 'numeric', prompt: { system: '', user: '{{question}} In mL.' }, scorer: { tolerance: { absolute: 0.5, relative: 0.05 } } },
      { answerType: 'choice', prompt: { user: '{{question}}\n{{options}}' } },
    ]) {
      const m = { ...manifest, protocolDefaults: { task } };
      expect([task, validateManifest(m, 'manifest.json').issues]).toEqual([task, []]);
      expect([task, schemaAccepts('manifest', m)]).toEqual([task, true]);
    }
  });
  it('refuses a task it cannot follow, naming the field, as the JSON Schema does', () => {
    const cases: [unknown, string][] = [
      [{ answerType: 'essay' }, 'protocolDefaults.task.answerType'],
      [{ answerType: 'short', prompt: { user: 'What is shown?' } }, 'protocolDefaults.task.prompt.user'],
      [{ answerType: 'short', prompt: { system: 'Be brief.' } }, 'protocolDefaults.task.prompt.user'],
      [{ answerType: 'numeric', scorer: { tolerance: { absolute: -1 } } }, 'protocolDefaults.task.scorer.tolerance.absolute'],
      [{ answerType: 'short', scorer: { tolerance: { relative: 0.1 } } }, 'protocolDefaults.task.scorer.tolerance'],
    ];
    for (const [task, field] of cases) {
      const m = { ...manifest, protocolDefaults: { task } };
      const r = validateManifest(m, 'manifest.json');
      expect([task, r.manifest, r.issues.filter((i) => i.severity === 'error').map((i) => i.location?.field)]).toEqual([task, undefined, [field]]);
      expect([task, schemaAccepts('manifest', m)]).toEqual([task, false]);
    }
  });
});

describe('canonical JSON', () => {
  it('sorts keys at every level and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: undefined }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"z":1}]},"b":1}');
  });
  it('refuses numbers JSON cannot represent', () => {
    expect(() => canonicalJson({ x: Number.NaN })).toThrow(/non-finite/);
  });
});
