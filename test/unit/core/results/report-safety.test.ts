/**
 * The report's Safety and Failures sections: model output is escaped, images
 * appear only as the data: URLs given, and none at all when left out.
 */
import { describe, expect, it } from 'vitest';
import type { GalleryGroup } from '../../../../src/core/results/gallery.ts';
import { failuresSection, safetySection } from '../../../../src/core/results/report-safety.ts';
import { noClassText } from '../../../../src/core/results/safety-format.ts';
import { safetyReport, type SafetyAnswer } from '../../../../src/core/results/safety.ts';

const gallery: GalleryGroup[] = [{
  group: 'normal <b>',
  arms: [{ key: 'r|m', wrong: 5, cases: [{
    responseId: 'x', runId: 'r', caseId: 'c1', confidence: 0.9, image: 'abc', fields: [['diagnosis_name', '<img src=x onerror=alert(1)>']],
    rawText: '<script>alert(1)</script>', truncated: false, reference: 'diagnosis_name: normal', errorClasses: ['hallucinated_finding'], errorSource: 'judge',
  }] }],
}];

describe('report sections', () => {
  it('escapes model output and shows the given thumbnail as an image', () => {
    const html = failuresSection(gallery, (k) => `label ${k}`, new Map([['abc', 'data:image/png;base64,AAAA']]));
    expect(html).toContain('<h2>Failures</h2>');
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('normal &lt;b&gt;');
    expect([...html.matchAll(/<img /g)].length).toBe(1);
    expect(html).toContain('<img src="data:image/png;base64,AAAA"');
    expect(html).toContain('Hallucinated finding');
    expect(html).toContain('proposed by the local judge, not reviewed');
    expect(html).toContain('5 wrong, the 1 most confident shown');
  });

  it('leaves every image out when asked', () => {
    const html = failuresSection(gallery, (k) => k, null);
    expect(html).not.toContain('<img');
    expect(html).toContain('Images were left out of this report.');
  });

  it('states the safety rates per arm with their intervals', () => {
    const a = (reference: 'normal' | 'abnormal', answered: 'normal' | 'abnormal', i: number): SafetyAnswer => ({ runId: 'r', modelId: 'm', variant: 'none', group: reference, cluster: `c${i}`, reference, answered, correct: reference === answered ? 1 : 0, confidence: null, flags: null });
    const report = safetyReport([a('normal', 'abnormal', 1), a('normal', 'normal', 2), a('abnormal', 'normal', 3), a('abnormal', 'abnormal', 4)]);
    const html = safetySection(report, () => 'Model <x>');
    expect(html).toContain('<h2>Safety</h2>');
    expect(html).toContain('Model &lt;x&gt;');
    expect(html).toContain('50.0% (1/2)');
    expect(html).toContain('no stated confidence');
    expect(html).not.toContain('<svg');
  });

  it('says how many answers name no class in a sentence of its own', () => {
    const a = (reference: 'normal' | 'abnormal' | null, i: number): SafetyAnswer => ({ runId: 'r', modelId: 'm', variant: 'none', group: reference ?? 'no class', cluster: `c${i}`, reference, answered: reference, correct: 1, confidence: null, flags: null });
    const report = safetyReport([a('normal', 1), a('abnormal', 2), ...Array.from({ length: 36 }, (_, i) => a(null, 10 + i))]);
    expect(report.noClass).toBe(36);
    const text = safetySection(report, () => 'm').replace(/<[^>]+>/g, '');
    expect(text).toContain('(lower is better). 36 answers of protocols that name no class are outside both rates.');
    expect(noClassText(1)).toBe('1 answer of a protocol that names no class is outside both rates.');
    expect(noClassText(0)).toBe('');
  });
});
