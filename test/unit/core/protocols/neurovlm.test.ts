import { describe, expect, it } from 'vitest';
import { hasImages, textTurn, turnImages, turnText } from '../../../../src/core/chat/turn.ts';
import { NEUROVLM_PROMPT } from '../../../../src/core/protocols/neurovlm/prompt.ts';
import { NEUROVLM_FIELDS, NEUROVLM_SCHEMA, NEUROVLM_TEMPLATE, neuroVlmProtocol, parseNeuroVlm } from '../../../../src/core/protocols/neurovlm/protocol.ts';
import { renderTemplate, templateHash } from '../../../../src/core/protocols/template.ts';
import {
  NVB_EXTRA_KEYS, NVB_FENCED, NVB_PROSE, NVB_PYTHON_DICT, NVB_REFUSAL, NVB_THINK, NVB_TRUNCATED, NVB_TWO_OBJECTS,
  NVB_UNTERMINATED_THINK, NVB_VALID, NVB_WRONG_TYPES, fewShotCase, nvbCase, parseFewShotCsv, referenceBytes,
} from './fixtures.ts';

const decoder = new TextDecoder();
const fewShotRows = parseFewShotCsv(decoder.decode(referenceBytes('few_shot_examples.csv')));
const exemplars = fewShotRows.map(([cls, path], i) => fewShotCase(i, cls, path));

describe('NeuroVLM-Bench prompt', () => {
  it('is the reference prompt byte for byte', () => {
    expect(new TextEncoder().encode(NEUROVLM_PROMPT)).toEqual(referenceBytes('prompt_5classes_refined.txt'));
  });

  it('is the system message, stripped as the benchmark loader does', () => {
    const req = neuroVlmProtocol.buildRequest(nvbCase(), nvbCase().questions[0]!);
    expect(req.messages[0]).toEqual(textTurn('system', NEUROVLM_PROMPT.trim()));
  });

  it('schema lists exactly the nine fields of the prompt', () => {
    expect(NEUROVLM_SCHEMA.required).toEqual([...NEUROVLM_FIELDS]);
    for (const f of NEUROVLM_FIELDS) expect(NEUROVLM_PROMPT).toContain(`"${f}"`);
  });
});

describe('neurovlm-structured requests', () => {
  const c = nvbCase();
  const q = c.questions[0]!;

  it('zero-shot: system + one user turn holding only the image', () => {
    const req = neuroVlmProtocol.buildRequest(c, q);
    expect(req.messages).toHaveLength(2);
    const user = req.messages[1]!;
    expect(user.role).toBe('user');
    expect(turnText(user)).toBe('');
    expect(turnImages(user)).toEqual([{ caseId: c.id, index: 0, path: c.images[0]!.path, sha256: c.images[0]!.sha256, mime: 'image/png' }]);
    expect(req.protocol).toEqual({ id: 'neurovlm-structured', version: '1' });
    expect(req.template).toEqual({ id: NEUROVLM_TEMPLATE.id, version: '1', hash: templateHash(NEUROVLM_TEMPLATE) });
    expect(req.jsonSchema).toBeUndefined();
    expect(neuroVlmProtocol.buildRequest(c, q, { enforceSchema: true }).jsonSchema).toBe(NEUROVLM_SCHEMA);
  });

  it('few-shot: the 20 reference exemplars in one user turn, then the query in a second', () => {
    expect(exemplars).toHaveLength(20);
    const req = neuroVlmProtocol.buildRequest(c, q, { fewShot: exemplars });
    expect(req.messages.map((m) => m.role)).toEqual(['system', 'user', 'user']);
    const shots = req.messages[1]!;
    expect(turnText(shots).startsWith('### FEW-SHOT EXAMPLES\nBelow are example images and ONLY their class label.')).toBe(true);
    expect(turnText(shots).endsWith('### END OF FEW-SHOT EXAMPLES\nNow analyze the next image and output ONLY the JSON as per the schema.')).toBe(true);
    expect(turnImages(shots).map((r) => r.caseId)).toEqual(exemplars.map((e) => e.id));
    // Interleaved exactly like client.py: header, (label, image) × 20, footer.
    const parts = shots.parts;
    expect(parts).toHaveLength(1 + 2 * 20 + 1);
    expect(parts[1]).toEqual({ type: 'text', text: 'Example 1 — class: multiple sclerosis' });
    expect(parts[2]).toMatchObject({ type: 'image', image: { caseId: exemplars[0]!.id, index: 0 } });
    expect(parts[39]).toEqual({ type: 'text', text: 'Example 20 — class: tumor' });
    const labels = parts.flatMap((p) => (p.type === 'text' && p.text.startsWith('Example') ? [p.text.replace(/^Example \d+ — class: /, '')] : []));
    expect(labels).toEqual(fewShotRows.map(([cls]) => cls));
    const query = req.messages[2]!;
    expect(query.role).toBe('user');
    expect(turnText(query)).toBe('Analyze this image and output ONLY the JSON per the schema.');
    expect(turnImages(query)).toMatchObject([{ caseId: c.id, index: 0 }]);
    expect(turnImages(query)).toHaveLength(1);
  });

  it('text-only ablation sends no image at all, exemplars included', () => {
    const req = neuroVlmProtocol.buildRequest(c, q, { fewShot: exemplars.slice(0, 3), textOnly: true });
    for (const m of req.messages) {
      expect(turnImages(m)).toEqual([]);
      expect(m.parts.some((p) => p.type === 'image')).toBe(false);
    }
    expect(hasImages(req.messages)).toBe(false);
    expect(turnText(req.messages[1]!)).toContain('Example 3 — class: multiple sclerosis');
  });

  it('few-shot: the exemplar turn\'s parts are exactly header, then per exemplar its label and its image, then footer', () => {
    const shots = exemplars.slice(0, 4);
    const req = neuroVlmProtocol.buildRequest(c, q, { fewShot: shots });
    const turn = req.messages[1]!;
    expect(turn.role).toBe('user');
    const header = renderTemplate(NEUROVLM_TEMPLATE.fewShotHeader!, {});
    const footer = renderTemplate(NEUROVLM_TEMPLATE.fewShotFooter!, {});
    expect(header.startsWith('### FEW-SHOT EXAMPLES\nBelow are example images')).toBe(true);
    expect(footer.startsWith('### END OF FEW-SHOT EXAMPLES')).toBe(true);
    const expected = [
      { type: 'text', text: header },
      ...shots.flatMap((e, i) => [
        { type: 'text', text: `Example ${i + 1} — class: ${fewShotRows[i]![0]}` },
        { type: 'image', image: { caseId: e.id, index: 0, path: e.images[0]!.path } },
      ]),
      { type: 'text', text: footer },
    ];
    expect(turn.parts).toHaveLength(expected.length);
    expect(turn.parts).toMatchObject(expected);
    expect(turn.parts.map((p) => p.type)).toEqual(['text', 'text', 'image', 'text', 'image', 'text', 'image', 'text', 'image', 'text']);
    // Each image stands right after its own label, in exemplar order.
    expect(turn.parts.flatMap((p) => (p.type === 'image' ? [p.image.caseId] : []))).toEqual(shots.map((e) => e.id));
    turn.parts.forEach((p, i) => {
      if (p.type !== 'image') return;
      const label = turn.parts[i - 1]!;
      const n = shots.findIndex((e) => e.id === p.image.caseId) + 1;
      expect(label).toEqual({ type: 'text', text: `Example ${n} — class: ${fewShotRows[n - 1]![0]}` });
    });

    // Text-only: the same texts in the same order, and no image part.
    const textOnly = neuroVlmProtocol.buildRequest(c, q, { fewShot: shots, textOnly: true }).messages[1]!;
    expect(textOnly.role).toBe('user');
    expect(textOnly.parts).toEqual(expected.filter((p) => p.type === 'text'));
    expect(textOnly.parts.some((p) => p.type === 'image')).toBe(false);
  });

  it('warns about unusable exemplars, a leaked query image and extra images', () => {
    const noLabel = { ...fewShotCase(50, '', 'x.png'), questions: [] };
    const leak = { ...fewShotCase(51, 'tumor', 'y.png'), images: c.images };
    const twoImages = { ...c, images: [...c.images, ...exemplars[0]!.images] };
    const req = neuroVlmProtocol.buildRequest(twoImages, q, { fewShot: [noLabel, leak] });
    expect(req.warnings).toEqual([
      expect.stringMatching(/has 2 images; NeuroVLM-Bench sends one/),
      expect.stringMatching(/left out: it has no class label/),
      expect.stringMatching(/is the query image itself/),
    ]);
    expect(turnImages(req.messages[2]!)).toHaveLength(1);
  });
});

describe('neurovlm-structured parsing (first { to last })', () => {
  it('reads valid JSON with all nine fields and no warnings', () => {
    const r = parseNeuroVlm(NVB_VALID);
    expect(r).toEqual({ ok: true, value: JSON.parse(NVB_VALID) });
  });

  it('reads JSON in prose and in ```json fences', () => {
    expect(parseNeuroVlm(NVB_PROSE)).toMatchObject({ ok: true, value: { modality: 'CT', diagnosis_detailed: 'hemorrhagic' } });
    expect(parseNeuroVlm(NVB_FENCED)).toMatchObject({ ok: true, value: { diagnosis_name: 'tumor' } });
  });

  it('ignores braces inside a closed <think> block', () => {
    expect(parseNeuroVlm(NVB_THINK)).toMatchObject({ ok: true, value: { diagnosis_detailed: 'glioma' } });
  });

  it('keeps values raw: wrong types are the scorer’s business', () => {
    const r = parseNeuroVlm(NVB_WRONG_TYPES);
    expect(r).toMatchObject({ ok: true, value: { severity_score: '0.4', diagnosis_confidence: 90, severity_confidence: 'high' } });
    expect(r.ok && r.warnings).toBeUndefined();
  });

  it('reports missing and unexpected keys as warnings', () => {
    const r = parseNeuroVlm(NVB_EXTRA_KEYS);
    expect(r.ok).toBe(true);
    expect(r.ok && r.warnings).toEqual(['missing fields: icd10_code', 'unexpected fields: findings, recommendation']);
  });

  it('records every failure as an error, never a silent pass', () => {
    expect(parseNeuroVlm(NVB_TRUNCATED)).toEqual({ ok: false, error: 'no JSON object found (first "{" to last "}")' });
    expect(parseNeuroVlm(NVB_UNTERMINATED_THINK)).toMatchObject({ ok: false, error: expect.stringMatching(/unterminated <think>/) });
    expect(parseNeuroVlm(NVB_TWO_OBJECTS)).toMatchObject({ ok: false, error: expect.stringMatching(/^invalid JSON/) });
    expect(parseNeuroVlm(NVB_PYTHON_DICT)).toMatchObject({ ok: false, error: expect.stringMatching(/^invalid JSON/) });
    expect(parseNeuroVlm(NVB_REFUSAL).ok).toBe(false);
    expect(parseNeuroVlm('')).toEqual({ ok: false, error: 'empty answer' });
    expect(parseNeuroVlm('{"a": [1, 2]} trailing [3]}').ok).toBe(false);
  });
});
