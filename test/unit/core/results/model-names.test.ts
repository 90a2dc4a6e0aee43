import { describe, expect, it } from 'vitest';
import { modelDisplayName, modelNamesOf, rowLabel, rowModelName } from '../../../../src/core/results/model-names.ts';

describe('model names beside the leaderboard', () => {
  const rows = [
    { id: 'r1|demo-trained', modelId: 'demo-trained', variant: 'none', runName: 'Monday' },
    { id: 'r1|demo-trained [text-only]', modelId: 'demo-trained', variant: 'text-only', runName: 'Monday' },
    { id: 'r2|demo-trained', modelId: 'demo-trained', variant: 'none', runName: 'Tuesday' },
    { id: 'r2|my-endpoint-model', modelId: 'my-endpoint-model', variant: 'none', runName: 'Tuesday' },
  ];
  const name = modelDisplayName('demo-trained');

  it('names a row by its model\'s display name and variant, and the run only where two rows would read alike', () => {
    expect(name).toContain('not a medical model');
    // The variant in words, never its key.
    expect(rowModelName(rows[1]!)).toBe(`${name} [text only (no images)]`);
    expect(rowModelName({ modelId: 'demo-trained', variant: 'degrade:noise:2' })).toBe(`${name} [noise, level 2 of 3]`);
    expect(rowLabel(rows, 'r1|demo-trained [text-only]')).toBe(`${name} [text only (no images)]`);
    expect(rowLabel(rows, 'r1|demo-trained')).toBe(`${name} · Monday`);
    expect(rowLabel(rows, 'r2|demo-trained')).toBe(`${name} · Tuesday`);
    // A model the catalogue does not list is its own name; a key no row has is shown as it is.
    expect(rowLabel(rows, 'r2|my-endpoint-model')).toBe('my-endpoint-model');
    expect(rowLabel(rows, 'r9|gone')).toBe('r9|gone');
  });

  it('names a reader and an imported model as their run recorded them', () => {
    expect(modelDisplayName('reader:AB')).toBe('Reader AB');
    expect(rowModelName({ modelId: 'reader:AB', variant: 'none', modelName: 'Reader: AB (neurologist)' })).toBe('Reader: AB (neurologist)');
    expect(modelNamesOf({ models: [{ id: 'x1', label: 'Ward model v2' }, { id: 'demo-trained' }] })).toEqual({ 'x1': 'Ward model v2', 'demo-trained': name });
  });
});
