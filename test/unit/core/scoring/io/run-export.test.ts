import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../../src/core/errors.ts';
import { isRunExport, parseRunExport, runRecordOf, serializeRunExport, toRunExport } from '../../../../../src/core/scoring/io/run-export.ts';
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
    expect(e).toMatchObject({ format: 'neuroeval-run', version: 3, exportedAt: 42, provenance: run.provenance, run: { config: run.config } });
    expect('provenance' in e.run).toBe(false);
    expect(e.responses[0]).toMatchObject({ caseId: 'c1', questionId: 'q1' });
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
    // A version-1 response has no case or question id: they are derived from its item key, once, on reading.
    expect(r).toMatchObject({ id: 'r:c#q1|m|none|s0', runId: 'r', caseId: 'c', questionId: 'q1', variant: 'none', sample: 0, parseError: null, finishReason: 'stop' });
    expect(r!.usage).toEqual({ promptTokens: null, completionTokens: null, ttftMs: null, prefillTps: null, decodeTps: null });
    expect(Number.isNaN(r!.latencyMs)).toBe(true);
  });

  it('reads a version-1 export: the configuration moves out of the provenance, responses get case and question ids', () => {
    const { config, provenance, ...rest } = run;
    const v1 = { format: 'neuroeval-run', version: 1, run: rest, provenance: { ...provenance, config }, responses: responses.map(({ caseId: _c, questionId: _q, ...r }) => r), cases };
    const back = parseRunExport(JSON.stringify(v1), 'old.json');
    expect(back).toEqual(toRunExport(run, responses, cases));
    expect(runRecordOf(back)).toEqual(run);
  });

  it('keeps a hand-made export without provenance or configuration for scoring, but will not store it as a run', () => {
    const text = JSON.stringify({ format: 'neuroeval-run', version: 2, run: { id: 'r' }, provenance: null, responses: [] });
    const e = parseRunExport(text, 'hand.json');
    expect(e).toMatchObject({ run: { id: 'r', config: null }, provenance: null });
    expect(errorOf(() => runRecordOf(e, 'hand.json')).location).toEqual({ file: 'hand.json', field: 'provenance' });
    const noName = { ...toRunExport(run, []), run: { id: 'r', config: null } };
    expect(errorOf(() => runRecordOf(parseRunExport(JSON.stringify(noName), 'x.json'), 'x.json')).location).toEqual({ file: 'x.json', field: 'run.name' });
  });

  it('names the field of a wrong provenance, configuration or missing case id', () => {
    const e = toRunExport(run, responses, cases);
    const field = (bad: unknown) => errorOf(() => parseRunExport(JSON.stringify(bad), 'x.json')).location;
    expect(field({ ...e, provenance: { ...e.provenance, protocol: { version: '1', templateHashes: {} } } })).toEqual({ file: 'x.json', field: 'provenance.protocol.id' });
    expect(field({ ...e, provenance: { ...e.provenance, schema: 9 } })).toEqual({ file: 'x.json', field: 'provenance.schema' });
    const endpoint = { kind: 'openai', id: 'e', label: 'E', baseUrl: 'http://h/v1', model: 'x', concurrency: 1 };
    expect(field({ ...e, run: { ...e.run, config: { ...e.run.config, engines: [endpoint] } } })).toEqual({ file: 'x.json', field: 'run.config.engines[0].endpointId' });
    expect(field({ ...e, run: { ...e.run, config: { ...e.run.config, engines: [{ ...endpoint, kind: 'ollama' }] } } })).toEqual({ file: 'x.json', field: 'run.config.engines[0].kind' });
    const { caseId: _c, ...noCase } = e.responses[0]!;
    expect(field({ ...e, responses: [noCase] })).toEqual({ file: 'x.json', field: 'responses[0].caseId' });
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
