import { describe, expect, it } from 'vitest';
import { turnText } from '../../../../../src/core/chat/turn.ts';
import { buildTaxonomyRequest, ERROR_CLASSES, parseTaxonomyClasses, TAXONOMY_VERSION } from '../../../../../src/core/scoring/equivalence/taxonomy.ts';

describe('error taxonomies', () => {
  it('holds both taxonomies with unique ids, labels and definitions', () => {
    expect(ERROR_CLASSES).toHaveLength(10);
    expect(new Set(ERROR_CLASSES.map((c) => c.id)).size).toBe(10);
    expect(ERROR_CLASSES.filter((c) => c.taxonomy === 'neural-medbench').map((c) => c.id)).toEqual([
      'perceptual_failure',
      'reasoning_failure',
      'knowledge_gap',
      'grounding_error',
      'visual_hallucination',
    ]);
    for (const c of ERROR_CLASSES) expect(c.label.length * c.definition.length).toBeGreaterThan(0);
    expect(TAXONOMY_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('builds a deterministic request listing the class ids', () => {
    const req = buildTaxonomyRequest({ candidate: 'meningioma', reference: 'glioblastoma', taxonomy: 'neuroimaging-article' });
    expect(req.sampling.temperature).toBe(0);
    expect(req.jsonSchema).toBeDefined();
    expect(turnText(req.messages[0]!)).toContain('missed_lesion');
    expect(turnText(req.messages[0]!)).not.toContain('knowledge_gap');
  });

  it('keeps only known class ids, deduplicated', () => {
    const raw = '<think>hmm</think>{"classes": ["reasoning_failure", "Missed lesion", "made_up", 3, "reasoning-failure"], "rationale": "r"}';
    expect(parseTaxonomyClasses(raw)).toEqual({ classes: ['reasoning_failure', 'missed_lesion'], dropped: ['made_up', '3'], rationale: 'r' });
  });

  it('drops ids outside the requested taxonomy and reports malformed replies', () => {
    expect(parseTaxonomyClasses('{"classes": ["missed_lesion", "knowledge_gap"]}', 'neural-medbench').classes).toEqual(['knowledge_gap']);
    expect(parseTaxonomyClasses('no json')).toMatchObject({ classes: [], error: expect.any(String) as unknown });
    expect(parseTaxonomyClasses('{"classes": "knowledge_gap"}')).toMatchObject({ classes: [], error: expect.any(String) as unknown });
  });
});
