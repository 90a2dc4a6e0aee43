import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../src/core/errors.ts';
import { isRunExport, parseRunExport, runRecordOf, serializeRunExport, toRunExport } from '../../../../src/core/scoring/io/run-export.ts';
import { answer, nvbCase, nvbResponse, nvbRun } from '../neurovlm/fixtures.ts';

const run = nvbRun();
const cases = [nvbCase('c1', { diagnosis_name: 'tumor', plane: null })];
const responses = [
  nvbResponse(run.id, { caseId: 'c1', parsed: answer({ diagnosis_name: 'tumor' }), promptTokens: 10, completionTokens: 5 }, 0),
  nvbResponse(run.id, { caseId: 'c1', modelId: 'model-b', callError: 'timeout' }, 1),
];

function errorOf(fn: () => unknown): InvalidInputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof InvalidInputError) return e;
    throw e;
  }
  throw new Error('expected an InvalidInputError');
}

describe('run export', () => {
  it('writes format, version, run, provenance apart, responses and cases', () => {
    const e = toRunExport(run, responses, cases, { exportedAt: 42 });
    expect(e).toMatchObject({ format: 'neuroeval-run', version: 1, exportedAt: 42, provenance: run.provenance });
    expect('provenance' in e.run).toBe(false);
    expect(isRunExport(JSON.parse(serializeRunExport(e)))).toBe(true);
  });

  it('round-trips through its file text', () => {
    const e = toRunExport(run, responses, cases, { exportedAt: 42 });
    const back = parseRunExport(serializeRunExport(e), 'run.json');
    expect(back).toEqual(e);
    expect(runRecordOf(back)).toEqual(run);
  });

  it('fills in missing optional response fields', () => {
    const text = JSON.stringify({ format: 'neuroeval-run', version: 1, run: { id: 'r' }, provenance: null, responses: [{ itemKey: 'c#q1|m|none|s0', modelId: 'm', parsed: { a: 1 } }] });
    const [r] = parseRunExport(text).responses;
    expect(r).toMatchObject({ id: 'r:c#q1|m|none|s0', runId: 'r', variant: 'none', sample: 0, parseError: null, finishReason: 'stop' });
    expect(r!.usage).toEqual({ promptTokens: null, completionTokens: null, ttftMs: null, prefillTps: null, decodeTps: null });
    expect(Number.isNaN(r!.latencyMs)).toBe(true);
  });

  it('names the line of a JSON syntax error', () => {
    const text = '{\n  "format": "neuroeval-run",\n  "version": 1,\n  "run": {"id": "r"},,\n}';
    const e = errorOf(() => parseRunExport(text, 'broken.json'));
    expect(e.location).toEqual({ file: 'broken.json', line: 4 });
    expect(e.message).toMatch(/^broken\.json:4: not valid JSON/);
  });

  it('names the field of a wrong shape', () => {
    const bad = { ...toRunExport(run, responses), responses: [{ modelId: 'm' }] };
    const e = errorOf(() => parseRunExport(JSON.stringify(bad), 'x.json'));
    expect(e.location).toEqual({ file: 'x.json', field: 'responses[0].itemKey' });
    expect(e.message).toContain('responses[0].itemKey');
  });

  it('refuses other files and newer versions with a clear message', () => {
    expect(errorOf(() => parseRunExport('{"format": "neuroeval-bundle"}', 'b.json')).message).toContain('not a NeuroEval run export');
    expect(errorOf(() => parseRunExport('{"format": "neuroeval-run", "version": 7}', 'n.json')).message).toContain('newer NeuroEval');
    expect(errorOf(() => parseRunExport('[1]', 'a.json')).message).toContain('a JSON object');
  });
});
