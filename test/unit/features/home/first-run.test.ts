import { describe, expect, it } from 'vitest';
import { firstRunPath, type StoredFacts } from '../../../../src/features/home/first-run.ts';

const demo = { id: 'neuroeval-demo', name: 'NeuroEval demo (synthetic)', source: 'neuroeval-demo', synthetic: true, caseCount: 24 };
const fresh: StoredFacts = { benchmarks: [demo], models: [], endpoints: [], runs: [], reviews: 0, scoredRuns: 0 };

const states = (f: StoredFacts) => Object.fromEntries(firstRunPath(f).map((s) => [s.id, s.state]));

describe('the first-run path on Home', () => {
  it('lists the six steps in order, none done on a fresh start with only the demo loaded', () => {
    const steps = firstRunPath(fresh);
    expect(steps.map((s) => s.title)).toEqual(['Try the demo', 'Get a real model', 'Import your cases', 'Run the models', 'Review the answers', 'Export a report']);
    expect(steps.every((s) => s.state === 'todo')).toBe(true);
    // The demo is ready: the first step says so and leads to a run, not to an import.
    expect(steps[0]!.detail).toContain('is loaded');
    expect(steps[0]!.link.path).toBe('/runs');
  });

  it('says the demo is missing and links to Benchmarks when it was deleted', () => {
    const step = firstRunPath({ ...fresh, benchmarks: [] })[0]!;
    expect(step.state).toBe('todo');
    expect(step.detail).toMatch(/not stored/);
    expect(step.link.path).toBe('/benchmarks');
  });

  it('marks each step done from what is stored', () => {
    const facts: StoredFacts = {
      benchmarks: [demo, { id: 'ward-7', name: 'Ward 7 MRI', source: 'dicom', synthetic: false, caseCount: 12 }],
      models: [{ id: 'smolvlm', label: 'SmolVLM 256M', source: 'catalogue' }],
      endpoints: [],
      runs: [
        { id: 'r1', benchmarkId: 'neuroeval-demo', status: 'done' },
        { id: 'r2', benchmarkId: 'ward-7', status: 'paused' },
      ],
      reviews: 3,
      scoredRuns: 1,
    };
    expect(states(facts)).toEqual({ demo: 'done', model: 'done', import: 'done', run: 'done', review: 'done', report: 'ready' });
    const byId = Object.fromEntries(firstRunPath(facts).map((s) => [s.id, s]));
    expect(byId.model!.detail).toBe('Ready to run: SmolVLM 256M.');
    expect(byId.import!.detail).toContain('Ward 7 MRI (12 cases)');
    expect(byId.run!.detail).toBe('1 run finished, 1 not finished.');
    expect(byId.review!.detail).toBe('3 reviews recorded.');
  });

  it('counts an on-prem endpoint as a real model, named by its model and host', () => {
    const step = firstRunPath({ ...fresh, endpoints: [{ model: 'qwen2.5-vl-7b', baseUrl: 'http://gpu-01.ward.local:8000/v1' }] })[1]!;
    expect(step.state).toBe('done');
    expect(step.detail).toBe('Ready to run: qwen2.5-vl-7b on gpu-01.ward.local:8000.');
  });

  it('does not count the demo or other synthetic bundles as your cases, the self-test model as a real model, nor an unfinished run as a run done', () => {
    const facts: StoredFacts = {
      ...fresh,
      models: [{ id: 'self-test', label: 'Self-test', source: 'self-test' }],
      benchmarks: [demo, { id: 'neuroeval-demo-s7', name: 'Held-out demo', source: 'neuroeval-demo', synthetic: true, caseCount: 8 }, { id: 'synthetic-x', name: 'X', source: 'neuroeval-bundle', synthetic: true, caseCount: 2 }],
      runs: [{ id: 'r1', benchmarkId: 'ward-7', status: 'running' }],
    };
    const s = states(facts);
    expect(s.import).toBe('todo');
    expect(s.model).toBe('todo');
    expect(s.run).toBe('todo');
    expect(firstRunPath(facts)[3]!.detail).toMatch(/started but not finished/);
  });
});
