import { describe, expect, it } from 'vitest';
import { normaliseDiagnosis, ruleVerdict } from '../../../../../src/core/scoring/equivalence/normalise.ts';

describe('normaliseDiagnosis', () => {
  it('maps British spellings to American', () => {
    expect(normaliseDiagnosis('Intracerebral haemorrhage')).toBe('intracerebral hemorrhage');
    expect(normaliseDiagnosis('Vasogenic oedema')).toBe('vasogenic edema');
    expect(normaliseDiagnosis('Brain tumour')).toBe('brain tumor');
    expect(normaliseDiagnosis('Ischaemic stroke')).toBe('ischemic stroke');
    expect(normaliseDiagnosis('Paediatric leukaemia')).toBe('pediatric leukemia');
    expect(normaliseDiagnosis('Subdural haematoma')).toBe('subdural hematoma');
  });

  it('expands abbreviations as whole tokens', () => {
    expect(normaliseDiagnosis('MS')).toBe('multiple sclerosis');
    expect(normaliseDiagnosis('ICH')).toBe('intracerebral hemorrhage');
    expect(normaliseDiagnosis('GBM')).toBe('glioblastoma');
    expect(normaliseDiagnosis('CJD')).toBe('creutzfeldt jakob disease');
    expect(normaliseDiagnosis('HSV encephalitis')).toBe('herpes simplex virus encephalitis');
    expect(normaliseDiagnosis('NMOSD')).toBe('neuromyelitis optica spectrum disorder');
    expect(normaliseDiagnosis('mass')).toBe('mass');
  });

  it('strips punctuation, diacritics, possessives, filler and extra whitespace', () => {
    expect(normaliseDiagnosis("  Alzheimer's   disease. ")).toBe('alzheimer disease');
    expect(normaliseDiagnosis('Creutzfeldt–Jakob disease')).toBe('creutzfeldt jakob disease');
    expect(normaliseDiagnosis('Creutzfeldt-Jakob (sporadic)')).toBe('creutzfeldt jakob sporadic');
    expect(normaliseDiagnosis('Ménière disease')).toBe('meniere disease');
    expect(normaliseDiagnosis('Findings consistent with probable MS')).toBe('findings multiple sclerosis');
    expect(normaliseDiagnosis('Most likely glioblastoma')).toBe('glioblastoma');
    expect(normaliseDiagnosis('Suspected Alzheimers disease')).toBe('alzheimer disease');
  });
});

describe('ruleVerdict', () => {
  const ref = { diagnosis: 'Intracerebral hemorrhage', aliases: ['Hemorrhagic stroke', 'Primary intraparenchymal hemorrhage'] };

  it('matches the diagnosis exactly after normalisation', () => {
    expect(ruleVerdict('intracerebral hemorrhage.', ref)).toMatchObject({ equivalent: true, source: 'rule', rule: 'exact', method: 'normalised' });
  });

  it('matches an alias', () => {
    expect(ruleVerdict('haemorrhagic stroke', ref)).toMatchObject({ equivalent: true, rule: 'alias', matched: 'Hemorrhagic stroke' });
  });

  it('matches British spelling and abbreviations', () => {
    expect(ruleVerdict('Intracerebral haemorrhage', ref)).toMatchObject({ equivalent: true, rule: 'exact' });
    expect(ruleVerdict('ICH', ref)).toMatchObject({ equivalent: true, rule: 'exact' });
    expect(ruleVerdict('AD', { diagnosis: "Alzheimer's disease" })).toMatchObject({ equivalent: true, rule: 'exact' });
  });

  it('matches reordered tokens as an equal token set, ignoring stop words', () => {
    expect(ruleVerdict('Hemorrhage, intracerebral', ref)).toMatchObject({ equivalent: true, rule: 'exact', method: 'token-set' });
    expect(ruleVerdict('the intracerebral hemorrhage', ref)).toMatchObject({ equivalent: true, method: 'token-set' });
  });

  it('rejects a different or broader diagnosis and empty names', () => {
    expect(ruleVerdict('subarachnoid hemorrhage', ref)).toMatchObject({ equivalent: false, rule: 'none' });
    expect(ruleVerdict('hemorrhage', ref)).toMatchObject({ equivalent: false, rule: 'none' });
    expect(ruleVerdict('', ref).equivalent).toBe(false);
    expect(ruleVerdict('...', { diagnosis: '' }).equivalent).toBe(false);
    expect(ruleVerdict('stroke', {}).equivalent).toBe(false);
  });
});
