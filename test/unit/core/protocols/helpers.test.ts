import { describe, expect, it } from 'vitest';
import { Warnings, coerceConfidence, coerceNumber, coerceString, coerceStringList, pick } from '../../../../src/core/protocols/coerce.ts';
import { extractJsonObject, repairTruncatedJson } from '../../../../src/core/protocols/json.ts';
import { renderTemplate, templateHash } from '../../../../src/core/protocols/template.ts';
import { stripThink, stripThinkDetailed } from '../../../../src/core/protocols/text.ts';
import type { PromptTemplate } from '../../../../src/core/protocols/types.ts';
import { DDX_FENCED, DDX_ORPHAN_CLOSE, DDX_PROSE, DDX_THINK_FENCED, DDX_TRUNCATED, DDX_UNTERMINATED, NVB_TRUNCATED } from './fixtures.ts';

describe('stripThink', () => {
  it('removes closed reasoning blocks anywhere', () => {
    expect(stripThink('<think>a {b}</think>\nAnswer: C')).toBe('Answer: C');
    expect(stripThink('Intro <THINKING>x</THINKING> end')).toBe('Intro  end');
    expect(stripThink(DDX_THINK_FENCED)).toMatch(/^```json/);
  });

  it('drops everything before a stray </think> (opening tag was in the prompt)', () => {
    expect(stripThink(DDX_ORPHAN_CLOSE)).toMatch(/^\{"differential"/);
  });

  it('drops an unterminated <think> and says so', () => {
    const r = stripThinkDetailed(DDX_UNTERMINATED);
    expect(r).toEqual({ text: '', unterminated: true, removed: true });
    expect(stripThinkDetailed('Answer: B\n<think>second thoughts')).toEqual({ text: 'Answer: B', unterminated: true, removed: true });
  });

  it('leaves text without reasoning alone', () => {
    expect(stripThinkDetailed('  plain answer ')).toEqual({ text: 'plain answer', unterminated: false, removed: false });
  });
});

describe('extractJsonObject', () => {
  it('reads fenced JSON, preferring the fence over braces in the prose around it', () => {
    const r = extractJsonObject('See {note}.\n' + DDX_FENCED);
    expect(r).toMatchObject({ ok: true, source: 'fence', repaired: false });
  });

  it('reads JSON inside prose (first { to last })', () => {
    const r = extractJsonObject(DDX_PROSE);
    expect(r.ok && r.source).toBe('braces');
  });

  it('falls back to the first balanced object when two objects follow each other', () => {
    const r = extractJsonObject('{"a": 1} and then {"b": 2}');
    expect(r).toMatchObject({ ok: true, source: 'balanced', value: { a: 1 } });
  });

  it('skips objects nested in an invalid one and braces in prose', () => {
    expect(extractJsonObject('{"a": None, "b": {"c": 1}}')).toMatchObject({ ok: false });
    expect(extractJsonObject('Think {a vs b}. {"c": 1} done')).toMatchObject({ ok: true, source: 'balanced', value: { c: 1 } });
    expect(extractJsonObject('Think {a vs b}. {"c": 1, "d": [tr')).toMatchObject({ ok: true, source: 'repair', value: { c: 1 } });
  });

  it('repairs JSON truncated by the token limit, marked repaired', () => {
    const r = extractJsonObject(DDX_TRUNCATED);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.repaired).toBe(true);
    const list = (r.value as { differential: { diagnosis: string; evidence?: string }[] }).differential;
    expect(list.map((h) => h.diagnosis)).toEqual(['Multiple sclerosis', 'NMOSD', 'Susac syndrome']);
    expect(list[2]!.evidence).toMatch(/branch retinal art$/);
  });

  it('repairs a truncated key or number by cutting back to the last complete member', () => {
    expect(repairTruncatedJson('{"a": 1, "b": [1, 2], "c": 0.')).toBe('{"a": 1, "b": [1, 2]}');
    expect(repairTruncatedJson('{"a": {"b": tru')).toBe('{"a": {}}');
    expect(JSON.parse(repairTruncatedJson(NVB_TRUNCATED)!)).toMatchObject({ modality: 'MRI', diagnosis_detailed: 'mening' });
    expect(repairTruncatedJson('{"complete": true}')).toBeUndefined();
  });

  it('accepts a top-level array only when asked, and ignores "[1]" in prose', () => {
    expect(extractJsonObject('[{"d": 1}, {"d": 2}]')).toMatchObject({ ok: true, value: { d: 1 } });
    expect(extractJsonObject('[{"d": 1}, {"d": 2}]', { allowArray: true })).toMatchObject({ ok: true, value: [{ d: 1 }, { d: 2 }] });
    expect(extractJsonObject('As in image [1]: {"d": 2}', { allowArray: true })).toMatchObject({ ok: true, value: { d: 2 } });
  });

  it('fails with a reason, never throws', () => {
    expect(extractJsonObject('no json here')).toEqual({ ok: false, error: 'no JSON object found in the answer' });
    expect(extractJsonObject("{'python': None}").ok).toBe(false);
    for (const junk of ['{', '}{', '{"a":', '```json\n```', '{"a": "\\', '[[[[', '{"a": [}']) expect(() => extractJsonObject(junk, { allowArray: true })).not.toThrow();
  });
});

describe('coerce helpers', () => {
  it('reads numeric strings and percentages with a warning', () => {
    const w = new Warnings();
    expect(coerceNumber('0.9', 'c', w)).toBe(0.9);
    expect(coerceNumber('85%', 'c', w)).toBe(0.85);
    expect(coerceNumber('n/a', 'c', w)).toBeNull();
    expect(coerceNumber('high', 'c', w)).toBeNull();
    expect(w.list).toHaveLength(3);
  });

  it('maps confidences onto [0, 1]', () => {
    const w = new Warnings();
    expect(coerceConfidence(0.42, 'c', w)).toBe(0.42);
    expect(w.list).toEqual([]);
    expect(coerceConfidence(90, 'c', w)).toBe(0.9);
    expect(coerceConfidence(-0.2, 'c', w)).toBe(0);
    expect(coerceConfidence(250, 'c', w)).toBe(1);
    expect(coerceConfidence(null, 'c', w)).toBeNull();
    expect(w.list).toHaveLength(3);
  });

  it('turns wrong types into text or lists with warnings instead of failing', () => {
    const w = new Warnings();
    expect(coerceString(42, 'e', w)).toBe('42');
    expect(coerceString(['a', 'b'], 'e', w)).toBe('a; b');
    expect(coerceString({ x: 1 }, 'e', w)).toBeNull();
    expect(coerceString('None', 'e', w)).toBeNull();
    expect(coerceStringList('one finding', 'f', w)).toEqual(['one finding']);
    expect(coerceStringList([{ text: 'x' }, 'y', null], 'f', w)).toEqual(['x', 'y']);
    expect(w.list.length).toBeGreaterThanOrEqual(2);
  });

  it('picks keys case- and separator-insensitively', () => {
    expect(pick({ 'Lesion Type': 'x' }, ['lesion_type'])).toEqual({ key: 'Lesion Type', value: 'x' });
    expect(pick({ a: 1 }, ['b'])).toBeUndefined();
  });
});

describe('templates', () => {
  it('fills placeholders, keeps sections only when set, leaves unknown names', () => {
    const text = '{{#clinical}}Clinical: {{clinical}}\n{{/clinical}}Q: {{ question }} {{unknown}}';
    expect(renderTemplate(text, { clinical: 'fever', question: 'Why?' })).toBe('Clinical: fever\nQ: Why? {{unknown}}');
    expect(renderTemplate(text, { clinical: '', question: 'Why?' })).toBe('Q: Why? {{unknown}}');
    expect(renderTemplate('{{#imageCount}}Images: {{imageCount}}{{/imageCount}}', { imageCount: 0 })).toBe('');
  });

  it('hashes templates by content: key order is irrelevant, any text change shows', () => {
    const a: PromptTemplate = { id: 't', version: '1', system: 'S', user: 'U {{question}}' };
    const b: PromptTemplate = { user: 'U {{question}}', system: 'S', version: '1', id: 't' };
    expect(templateHash(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(templateHash(b)).toBe(templateHash(a));
    expect(templateHash({ ...a, user: 'U  {{question}}' })).not.toBe(templateHash(a));
    expect(templateHash({ ...a, version: '2' })).not.toBe(templateHash(a));
    expect(templateHash({ ...a, fewShotHeader: '### X' })).not.toBe(templateHash(a));
  });
});
