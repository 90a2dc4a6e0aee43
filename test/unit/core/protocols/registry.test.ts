import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { turnImages, turnText } from '../../../../src/core/chat/turn.ts';
import { demoCases } from '../../../../src/core/demo/cases.ts';
import * as protocols from '../../../../src/core/protocols/index.ts';
import { PROTOCOLS, PROTOCOL_IDS, getProtocol, isMultiTurn, protocolFor, rubricItems, rubricProtocol, templateHash } from '../../../../src/core/protocols/index.ts';
import type { ImageRef } from '../../../../src/core/protocols/types.ts';
import * as F from './fixtures.ts';

const allFixtures = Object.entries(F).flatMap(([name, v]) =>
  typeof v === 'string' ? [[name, v] as const] : typeof v === 'object' && v && !Array.isArray(v) && !('id' in v) ? Object.entries(v as Record<string, string>).map(([k, s]) => [`${name}.${k}`, s] as const) : [],
);

describe('protocol registry', () => {
  it('lists every protocol under its own id, with templates and a version', () => {
    expect(PROTOCOL_IDS).toEqual([
      'neurovlm-structured', 'nmb-differential', 'nmb-lesion', 'nmb-rationale', 'nmb-multi-round', 'structured-review', 'mcq', 'rubric', 'open-question',
      'short-answer', 'numeric', 'box',
    ]);
    for (const id of PROTOCOL_IDS) {
      const p = PROTOCOLS[id];
      expect(p.id).toBe(id);
      expect(p.version).toMatch(/^\d+$/);
      expect(p.templates.length).toBeGreaterThan(0);
      expect(templateHash(p.templates[0])).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(new Set(PROTOCOL_IDS.map((id) => templateHash(PROTOCOLS[id].templates[0]))).size).toBe(PROTOCOL_IDS.length);
    expect(getProtocol('nope')).toBeUndefined();
    expect(isMultiTurn(PROTOCOLS['nmb-multi-round'])).toBe(true);
    expect(isMultiTurn(PROTOCOLS['nmb-differential'])).toBe(false);
  });

  it('maps task families to default protocols', () => {
    expect(protocolFor(F.nvbCase()).id).toBe('neurovlm-structured');
    expect(protocolFor(F.NMB_CASE).id).toBe('nmb-differential');
    expect(protocolFor({ ...F.NMB_CASE, taskFamily: 'lesion-recognition' }).id).toBe('nmb-lesion');
    expect(protocolFor({ ...F.NMB_CASE, taskFamily: 'rationale-generation' }).id).toBe('nmb-rationale');
    expect(protocolFor(F.MULTI_ROUND_CASE).id).toBe('nmb-multi-round');
    expect(protocolFor(F.MCQ_CASE).id).toBe('mcq');
    expect(protocolFor(F.RUBRIC_CASE).id).toBe('rubric');
    expect(protocolFor({ ...F.RUBRIC_CASE, questions: [{ id: 'q', text: 'Describe.' }] }).id).toBe('open-question');
    expect(protocolFor({ ...F.nvbCase(), images: [] }).id).toBe('open-question');
  });

  it('follows the bundle default when it fits the case', () => {
    expect(protocolFor(F.NMB_CASE, { protocol: 'structured-review' }).id).toBe('structured-review');
    expect(protocolFor(F.nvbCase(), { protocol: 'neurovlm-structured' }).id).toBe('neurovlm-structured');
    expect(protocolFor(F.MCQ_CASE, { protocol: 'nmb-differential' }).id).toBe('mcq');
    expect(protocolFor(F.NMB_CASE, { protocol: 'mcq' }).id).toBe('nmb-differential');
    expect(protocolFor(F.NMB_CASE, { protocol: 'from-the-future' }).id).toBe('nmb-differential');
  });

  it('builds a clean request for every question of the demo benchmark, images in case order', () => {
    for (const { case: c } of demoCases()) {
      const p = protocolFor(c);
      for (const q of c.questions) {
        const turns = isMultiTurn(p) ? p.turnCount(q) : 1;
        const req = isMultiTurn(p) ? p.buildTurn(c, q, turns - 1, Array(turns - 1).fill('{"answer": "ok", "differential": []}')) : p.buildRequest(c, q);
        expect(req.warnings, `${c.id}/${q.id}`).toBeUndefined();
        const refs: ImageRef[] = req.messages.flatMap((m) => turnImages(m));
        if (p.id === 'neurovlm-structured') expect(refs.map((r) => r.index)).toEqual([0]);
        else expect(refs.map((r) => r.index).sort()).toEqual(c.images.map((_, i) => i));
        for (const r of refs) expect(r.path).toBe(c.images[r.index]!.path);
        for (const m of req.messages) expect(turnText(m)).not.toMatch(/\{\{[#/]?\w+\}\}/);
      }
    }
  });

  it('exposes rubric items to the scorer, never to the model', () => {
    const q = F.RUBRIC_CASE.questions[0]!;
    expect(rubricItems(q).map((r) => r.points)).toEqual([5, -5]);
    expect(rubricProtocol.rubricItems(q)).toBe(rubricItems(q));
    const req = rubricProtocol.buildRequest(F.RUBRIC_CASE, q);
    expect(req.messages.map(turnText).join('\n')).not.toContain('thrombolysis');
    expect(rubricProtocol.parse('  The CT shows a right basal ganglia haemorrhage.  ')).toEqual({ ok: true, value: { text: 'The CT shows a right basal ganglia haemorrhage.' } });
    expect(PROTOCOLS['open-question'].parse('')).toEqual({ ok: false, error: 'empty answer' });
  });
});

describe('output schemas', () => {
  const ajv = new Ajv({ strict: false });
  it('are valid JSON Schemas that the well-formed fixtures satisfy', () => {
    const valid: [keyof typeof PROTOCOLS, string][] = [
      ['neurovlm-structured', F.NVB_VALID],
      ['nmb-differential', F.DDX_VALID],
      ['nmb-lesion', F.LESION_VALID.replace('"Right"', '"right"')],
      ['structured-review', F.REVIEW_VALID],
      ['nmb-multi-round', F.MR_TURN_2],
    ];
    for (const [id, text] of valid) {
      const validate = ajv.compile(PROTOCOLS[id].outputSchema!);
      expect(validate(JSON.parse(text)), `${id}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
    expect(ajv.compile(PROTOCOLS['neurovlm-structured'].outputSchema!)(JSON.parse(F.NVB_WRONG_TYPES))).toBe(false);
  });
});

describe('parsers never throw', () => {
  it('on any fixture, any truncation of it, or junk, for every protocol', () => {
    const q = F.MCQ_CASE.questions[0]!;
    const inputs = [...allFixtures.map(([, s]) => s), '', '{', '}', '[', '<think>', '</think>', '```', '\\boxed{', 'null', '{"differential": null}', '{"differential": [null, 1, true]}'];
    expect(allFixtures.length).toBeGreaterThan(60);
    for (const id of PROTOCOL_IDS) {
      const p = PROTOCOLS[id];
      for (const s of inputs) {
        for (const cut of [s.length, Math.floor(s.length / 2), Math.floor(s.length / 3)]) {
          const r = p.parse(s.slice(0, cut), q);
          expect(typeof r.ok).toBe('boolean');
          if (!r.ok) expect(r.error.length).toBeGreaterThan(0);
        }
      }
    }
  });

  it('on huge pathological answers (runaway generation) without exhausting memory', () => {
    const q = F.MCQ_CASE.questions[0]!;
    const huge = ['{'.repeat(100_000), '[{"'.repeat(30_000), '{' + ' '.repeat(100_000) + 'x', '<think>'.repeat(20_000), 'Answer: '.repeat(20_000), '1. x\n'.repeat(20_000)];
    for (const id of PROTOCOL_IDS) for (const s of huge) expect(typeof PROTOCOLS[id].parse(s, q).ok).toBe('boolean');
  });

  it('the public index exports every protocol module', () => {
    expect(Object.keys(protocols)).toEqual(expect.arrayContaining(['extractChoice', 'parseNeuroVlm', 'parseDifferential', 'stripThink', 'extractJsonObject']));
  });
});
