import { describe, expect, it } from 'vitest';
import { canonicalSequence, lesionMatch } from '../../../../../src/core/scoring/metrics/lesion.ts';
import { bootstrapCi, bootstrapMeanCi } from '../../../../../src/core/scoring/stats/bootstrap.ts';

describe('lesion field matching', () => {
  const ref = { type: 'Intracerebral haemorrhage', location: 'left basal ganglia', laterality: 'left', sequence: 'CT' } as const;

  it('matches each field on its own and needs every stated field for "all"', () => {
    expect(lesionMatch({ type: 'ICH', location: 'basal ganglia (left)', laterality: 'left', sequence: 'non-contrast CT' }, ref)).toEqual({ type: true, location: true, laterality: true, sequence: true, all: true });
    expect(lesionMatch({ type: 'ischaemic stroke', location: 'left thalamus', laterality: 'right', sequence: 'MRI DWI' }, ref)).toEqual({ type: false, location: false, laterality: false, sequence: false, all: false });
  });

  it('does not score what the reference leaves out, and counts a missing answer field as wrong', () => {
    expect(lesionMatch({ type: 'Glioblastoma multiforme', location: null }, { type: 'glioblastoma', location: 'right temporal lobe' })).toEqual({ type: true, location: false, laterality: null, sequence: null, all: false });
    expect(lesionMatch({}, {})).toEqual({ type: null, location: null, laterality: null, sequence: null, all: null });
  });

  it('folds sequence spellings', () => {
    expect(['T2-FLAIR', 'flair', 'T2 FLAIR'].map(canonicalSequence)).toEqual(['flair', 'flair', 'flair']);
    expect(['T1C+', 'T1 post-contrast', 'T1-Gd', 'T1CE'].map(canonicalSequence)).toEqual(['t1c+', 't1c+', 't1c+', 't1c+']);
    expect(['DWI', 'diffusion weighted', 'ADC map', 'SWI', 'T1', 'T2'].map(canonicalSequence)).toEqual(['dwi', 'dwi', 'adc', 'swi', 't1', 't2']);
  });
});

describe('bootstrapMeanCi', () => {
  it('gives exactly what bootstrapCi gives for the mean, with the same seed', () => {
    const values = Array.from({ length: 57 }, (_, i) => ((i * 37) % 11) / 10);
    const mean = (s: readonly number[]) => s.reduce((a, b) => a + b, 0) / s.length;
    for (const seed of [0, 7, 123456]) expect(bootstrapMeanCi(values, { seed, resamples: 200 })).toEqual(bootstrapCi(values, mean, { seed, resamples: 200 }));
  });

  it('returns NaN bounds for no data', () => {
    expect(bootstrapMeanCi([])).toMatchObject({ lower: NaN, upper: NaN });
  });
});
