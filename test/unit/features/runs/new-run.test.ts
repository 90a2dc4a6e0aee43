import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../../../src/core/engines/catalogue.ts';
import { abilityWarnings, questionsPerProtocol } from '../../../../src/features/runs/new-run.ts';
import { DEMO_PRESET, presetFilters, presetNamed } from '../../../../src/features/runs/presets.ts';

const entry = (id: string) => CATALOGUE.models.find((m) => m.id === id)!;

describe('what a chosen model can answer', () => {
  const requests = questionsPerProtocol(
    [{ p: 'neurovlm-structured', questions: [1, 2] }, { p: 'nmb-differential', questions: [1] }, { p: 'nmb-differential', questions: [1, 2, 3] }],
    (c) => c.p,
  );

  it('counts the questions each protocol asks', () => {
    expect([...requests]).toEqual([['neurovlm-structured', 2], ['nmb-differential', 4]]);
  });

  it('warns, from the model card, about the protocols a model was not trained to answer, with how many questions each', () => {
    const demo = { id: 'demo-trained', label: 'Demo-trained', entry: entry('demo-trained') };
    expect(abilityWarnings([demo], requests)).toEqual([
      { modelId: 'demo-trained', label: 'Demo-trained', answers: ['neurovlm-structured', 'nmb-lesion'], cannot: [{ protocolId: 'nmb-differential', requests: 4 }] },
    ]);
    // A general model (no declared limits) and a model with no catalogue entry are asked anything.
    expect(abilityWarnings([{ id: 'smolvlm-256m', label: 'SmolVLM', entry: entry('smolvlm-256m') }, { id: 'endpoint:x', label: 'x' }], requests)).toEqual([]);
    expect(abilityWarnings([demo], new Map([['neurovlm-structured', 25]]))).toEqual([]);
  });
});

describe('the demo preset', () => {
  it('is named by its route segment and asks the demo-trained model the classification cases under its own protocol', () => {
    expect(presetNamed('demo')).toBe(DEMO_PRESET);
    expect(presetNamed('nope')).toBeNull();
    expect(presetNamed(undefined)).toBeNull();
    expect(DEMO_PRESET.models).toEqual(['demo-trained']);
    expect(DEMO_PRESET.protocolId).toBe('neurovlm-structured');
    expect(DEMO_PRESET.benchmark({ source: 'neuroeval-demo' })).toBe(true);
    expect(DEMO_PRESET.benchmark({ source: 'dicom' })).toBe(false);
    // Only the task families the benchmark has are ticked: none at all means every case.
    expect(presetFilters(DEMO_PRESET, [{ taskFamily: 'classification' }, { taskFamily: 'multi-turn' }]).taskFamily).toEqual(['classification']);
    expect(presetFilters(DEMO_PRESET, [{ taskFamily: 'multi-turn' }]).taskFamily).toEqual([]);
  });
});
