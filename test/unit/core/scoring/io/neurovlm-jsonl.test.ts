import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../../src/core/errors.ts';
import { readNeuroVlmJsonl, toNeuroVlmJsonl, neuroVlmJsonlRecords } from '../../../../../src/core/scoring/io/neurovlm-jsonl.ts';
import { neuroVlmItemsFromRun } from '../../../../../src/core/scoring/neurovlm/items.ts';
import { NEUROVLM_SCORED_FIELDS } from '../../../../../src/core/scoring/neurovlm/normalise.ts';
import type { NeuroVlmItem } from '../../../../../src/core/scoring/neurovlm/types.ts';
import { answer, nvbCase, nvbResponse, nvbRun } from '../neurovlm/fixtures.ts';

/** A line exactly as the harness's run_async.py writes one. */
function harnessLine(over: { metadata?: Record<string, string>; parsed?: unknown; status?: string; error?: string | null; api?: unknown; model?: string }): string {
  return JSON.stringify({
    timestamp: '2025-09-01T10:00:00',
    experiment_id: 'neurorad_000001',
    api_response: over.api === undefined ? { id: 'gen-1', model: 'google/gemini-2.5-flash', prompt_tokens: 1200, completion_tokens: 80, total_tokens: 1280 } : over.api,
    input: {
      image_path: '../../ivan/dataset/images-17/glioma/1.jpg',
      model_requested: over.model ?? 'google/gemini-2.5-flash',
      system_prompt_type: 'neurorad_prompt_trim',
      metadata: over.metadata ?? { dataset: 'images-17', class: 'tumor', subclass: 'glioma', modality: 'MRI', modality_subtype: 'T1C+', axial_plane: 'axial' },
    },
    output: { parsed_response: over.parsed === undefined ? answer({ diagnosis_name: 'tumor' }) : over.parsed, status: over.status ?? 'success', error: over.error ?? null },
    processing: { row_index: 1, parameters: { temperature: 0 } },
  });
}

/** Gold with absent fields made explicit, so items from both paths compare equal. */
function comparable(items: readonly NeuroVlmItem[]) {
  return items.map((i) => ({
    id: i.id,
    modelId: i.modelId,
    variant: i.variant,
    gold: Object.fromEntries(NEUROVLM_SCORED_FIELDS.map((f) => [f, i.gold[f] ?? null])),
    answer: i.answer,
    // The harness writes no api_response (so no latency) for a failed call.
    latencyMs: i.answer.kind === 'call-error' ? null : i.latencyMs,
    usage: i.usage,
  }));
}

describe('readNeuroVlmJsonl', () => {
  it('reads ground truth from input.metadata, the answer from output, tokens from api_response', () => {
    const { items, warnings } = readNeuroVlmJsonl(`${harnessLine({})}\n`, 'r.jsonl');
    expect(warnings).toEqual([]);
    expect(items).toHaveLength(1);
    const [it0] = items;
    expect(it0).toMatchObject({
      id: 'neurorad_000001',
      modelId: 'google/gemini-2.5-flash',
      gold: { diagnosis_name: 'tumor', diagnosis_detailed: 'glioma', modality: 'MRI', specialized_sequence: 'T1C+', plane: 'axial' },
      answer: { kind: 'parsed' },
      latencyMs: null,
      usage: { promptTokens: 1200, completionTokens: 80 },
      line: 1,
      dataset: 'images-17',
    });
  });

  it('keeps empty ground-truth cells as not scorable (null)', () => {
    const { items } = readNeuroVlmJsonl(harnessLine({ metadata: { class: 'stroke', subclass: '', modality: 'CT', modality_subtype: '', axial_plane: '' } }));
    expect(items[0]!.gold).toEqual({ diagnosis_name: 'stroke', diagnosis_detailed: null, modality: 'CT', specialized_sequence: null, plane: null });
  });

  it('tells parse failures ({error, raw_response}) from failed calls (status "error")', () => {
    const text = [
      harnessLine({ parsed: { error: 'JSON parsing failed: Expecting value', raw_response: 'sorry' } }),
      harnessLine({ parsed: null, status: 'error', error: 'Failed with status 429', api: null }),
    ].join('\n');
    const { items } = readNeuroVlmJsonl(text);
    expect(items.map((i) => i.answer)).toEqual([
      { kind: 'parse-error', error: 'Expecting value' },
      { kind: 'call-error', error: 'Failed with status 429' },
    ]);
    expect(items[1]!.usage).toEqual({ promptTokens: null, completionTokens: null });
  });

  it('tolerates missing sections, reads NaN as Python does, and latency in seconds, with warnings naming the line', () => {
    const text = [
      '',
      '{"experiment_id": "x1", "output": {"status": "success", "parsed_response": {"diagnosis_name": "normal", "diagnosis_confidence": NaN}}}',
      '{"input": {"model_requested": "m"}, "api_response": {"latency_s": 1.5}}',
    ].join('\n');
    const { items, warnings } = readNeuroVlmJsonl(text, 'loose.jsonl');
    expect(items).toHaveLength(2);
    expect(items[0]).toMatchObject({ id: 'x1', modelId: 'unknown model', line: 2, answer: { kind: 'parsed', value: { diagnosis_name: 'normal', diagnosis_confidence: NaN } } });
    expect(Object.values(items[0]!.gold).every((g) => g === null)).toBe(true);
    expect(items[1]).toMatchObject({ id: 'line 3', modelId: 'm', latencyMs: 1500, answer: { kind: 'call-error' } });
    expect(warnings).toEqual([
      'loose.jsonl:2: no "input": ground truth and model unknown.',
      'loose.jsonl:3: no "input.metadata": every field is not scorable.',
      'loose.jsonl:3: no "output": counted as a failed call.',
    ]);
  });

  it('leaves out a line that is not JSON, naming its file and line, and reads the rest', () => {
    const text = `${harnessLine({})}\n${harnessLine({})}\n{"experiment_id": "broken", \n`;
    const { items, warnings } = readNeuroVlmJsonl(text, 'bad.jsonl');
    expect(items).toHaveLength(2);
    expect(warnings).toEqual([expect.stringMatching(/^bad\.jsonl:3: not valid JSON.*: left out of NeuroEval's own analysis\.$/)]);
  });

  it('leaves out a line that is JSON but not an object, naming it', () => {
    expect(readNeuroVlmJsonl(`${harnessLine({})}\n[1, 2]\n`, 'arr.jsonl').warnings).toEqual([expect.stringMatching(/^arr\.jsonl:2: expected a JSON object/)]);
  });

  it('throws, naming the file and first line, when no line is a result', () => {
    expect(() => readNeuroVlmJsonl('[1, 2]\n{"x": \n', 'none.jsonl')).toThrow(InvalidInputError);
    try {
      readNeuroVlmJsonl('[1, 2]\n{"x": \n', 'none.jsonl');
    } catch (e) {
      expect((e as InvalidInputError).location).toEqual({ file: 'none.jsonl', line: 1 });
    }
  });

  it("ends lines where Python's text mode ends them: a lone \\r too, not U+2028", () => {
    const text = `${harnessLine({})}\r${harnessLine({}).replace('"success"', '"success", "note": "a\u2028b"')}\r\n`;
    expect(readNeuroVlmJsonl(text, 'cr.jsonl').items.map((i) => i.line)).toEqual([1, 2]);
  });
});

describe('toNeuroVlmJsonl', () => {
  const cases = [
    nvbCase('c1', { diagnosis_name: 'tumor', diagnosis_detailed: 'neurocitoma', modality: 'MRI', specialized_sequence: 'T1C+', plane: 'axial' }, { dataset: 'images-44' }),
    nvbCase('c2', { diagnosis_name: 'stroke', diagnosis_detailed: 'ischemic', modality: 'CT', specialized_sequence: null, plane: null }),
    nvbCase('c3', { diagnosis_name: 'normal', diagnosis_detailed: null, modality: 'MRI', specialized_sequence: 'FLAIR', plane: 'sagittal' }),
  ];
  const run = nvbRun();
  const responses = [
    nvbResponse(run.id, { caseId: 'c1', parsed: answer({ modality: 'MRI', diagnosis_name: 'tumor', diagnosis_detailed: 'neurocytoma', diagnosis_confidence: 0.9 }), promptTokens: 900, completionTokens: 60, latencyMs: 2300 }, 0),
    nvbResponse(run.id, { caseId: 'c2', parseError: 'no JSON object found (first "{" to last "}")', promptTokens: 900, completionTokens: 12, latencyMs: 800 }, 1),
    nvbResponse(run.id, { caseId: 'c3', callError: 'The engine ran out of GPU memory.' }, 2),
    nvbResponse(run.id, { caseId: 'c1', modelId: 'model-b', variant: 'degrade:blur:2', parsed: answer({ diagnosis_name: 'normal' }) }, 3),
  ];

  it('writes the harness layout: metadata ground truth, parsed_response, api_response', () => {
    const lines = toNeuroVlmJsonl(run, responses, cases).trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatchObject({
      experiment_id: 'c1#q1|model-a|none|s0',
      input: {
        image_path: 'c1.png',
        model_requested: 'model-a',
        system_prompt_type: 'neurovlm-structured',
        metadata: { dataset: 'images-44', class: 'tumor', subclass: 'neurocitoma', modality: 'MRI', modality_subtype: 'T1C+', axial_plane: 'axial' },
      },
      output: { status: 'success', parsed_response: { diagnosis_detailed: 'neurocytoma' }, error: null },
      api_response: { model: 'model-a', prompt_tokens: 900, completion_tokens: 60, total_tokens: 960, latency_ms: 2300 },
      neuroeval: { runId: 'run-1', itemKey: 'c1#q1|model-a|none|s0', variant: 'none', sample: 0 },
    });
    // Unknown ground truth is an empty CSV cell in the harness, never null.
    expect((lines[1]!.input as { metadata: unknown }).metadata).toEqual({ class: 'stroke', subclass: 'ischemic', modality: 'CT', modality_subtype: '', axial_plane: '' });
    expect(lines[1]!.output).toEqual({ status: 'success', parsed_response: { error: 'JSON parsing failed: no JSON object found (first "{" to last "}")', raw_response: 'I think it is a tumour.' }, error: null });
    expect(lines[2]).toMatchObject({ output: { status: 'error', parsed_response: null, error: 'The engine ran out of GPU memory.' }, api_response: null });
  });

  it('round-trips: the JSONL reads back as the items scored straight from the run', () => {
    const direct = neuroVlmItemsFromRun(responses, cases);
    const viaJsonl = readNeuroVlmJsonl(toNeuroVlmJsonl(run, responses, cases)).items;
    expect(comparable(viaJsonl)).toEqual(comparable(direct));
    expect(viaJsonl.map((i) => i.answer.kind)).toEqual(['parsed', 'parse-error', 'call-error', 'parsed']);
    expect(viaJsonl[3]!.variant).toBe('degrade:blur:2');
  });

  it('lists answers whose case is missing and writes them with empty ground truth', () => {
    const { records, missingCases } = neuroVlmJsonlRecords(run, responses, cases.slice(1));
    expect(missingCases).toEqual(['c1#q1|model-a|none|s0', 'c1#q1|model-b|degrade:blur:2|s0']);
    expect(records[0]!.input.metadata).toEqual({ class: '', subclass: '', modality: '', modality_subtype: '', axial_plane: '' });
    expect(records[0]!.input.image_path).toBe('c1');
  });
});
