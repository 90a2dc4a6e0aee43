import Ajv2020 from 'ajv/dist/2020.js';
import AjvDraft7 from 'ajv';
import { unzipSync } from 'fflate';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Bundle } from '../../../../src/core/bundle/types.ts';
import { matchForeign } from '../../../../src/core/interchange/match.ts';
import { readForeign, type ForeignFile } from '../../../../src/core/interchange/read/index.ts';
import { foreignRunExport, samplingOf } from '../../../../src/core/interchange/to-run.ts';
import type { ForeignLog } from '../../../../src/core/interchange/types.ts';
import { exportForeign, type ExportFile, type ForeignExportFormat } from '../../../../src/core/interchange/write/index.ts';
import type { RunExport } from '../../../../src/core/scoring/io/run-export.ts';
import { scoreRun, type RunScoringResult } from '../../../../src/core/scoring/run/score-run.ts';
import { demoBundle, demoRunExport, SCHEMAS } from '../../../support/interchange.ts';

const openapi = JSON.parse(readFileSync(`${SCHEMAS}inspect-openapi.json`, 'utf8')) as { components: unknown };
const ajv2020 = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv2020.addSchema({ $id: 'inspect', components: openapi.components });
const ajv7 = new AjvDraft7({ strict: false, allErrors: true, validateFormats: false });
const eeeAggregate = ajv7.compile(JSON.parse(readFileSync(`${SCHEMAS}eee-eval.schema.json`, 'utf8')));
const eeeInstance = ajv7.compile(JSON.parse(readFileSync(`${SCHEMAS}eee-instance_level_eval.schema.json`, 'utf8')));

const MODELS = [{ id: 'demo-a', label: 'Demo model A' }, { id: 'demo-b', label: 'Demo model B' }];

let bundle: Bundle;
let run: RunExport;
let scored: RunScoringResult;

beforeAll(async () => {
  bundle = await demoBundle();
  run = demoRunExport(bundle, { models: MODELS, samples: 2 });
  scored = await scoreRun({ protocolId: 'auto', responses: run.responses, cases: bundle.cases }, { resamples: 200 });
}, 120_000);

const filesOf = (format: ForeignExportFormat) => exportForeign(format, { exported: run, scores: { items: scored.items, summary: scored.summary }, appVersion: '0.1.0' });
const asForeign = (f: ExportFile): ForeignFile => ({ name: f.path, bytes: typeof f.data === 'string' ? new TextEncoder().encode(f.data) : f.data });
const text = (f: ExportFile) => (typeof f.data === 'string' ? f.data : new TextDecoder().decode(f.data));

/** The original's item metrics that were decided, by item key. */
function originalScores(modelId: string): Map<string, Record<string, number>> {
  const out = new Map<string, Record<string, number>>();
  for (const s of scored.items.filter((i) => i.modelId === modelId)) {
    const m: Record<string, number> = {};
    for (const [k, v] of Object.entries(s.metrics)) if (v.value !== null) m[k] = v.value;
    out.set(`${s.caseId}#${s.questionId}|s${s.sample}`, m);
  }
  return out;
}

/**
 * The log read back holds every answer of the model, each on its own item
 * (NeuroEval's ids in the metadata), with the same text, failure and scores;
 * importing it as a run and scoring it again gives the same scores.
 */
async function expectSameRun(log: ForeignLog, modelId: string, scoresOf: (item: ForeignLog['items'][number]) => Record<string, number>): Promise<void> {
  const mine = run.responses.filter((r) => r.modelId === modelId);
  expect(log.items).toHaveLength(mine.length);
  const byKey = new Map(log.items.map((i) => [`${i.hint!.caseId}#${i.hint!.questionId}|s${i.hint!.sample}`, i]));
  const original = originalScores(modelId);
  for (const r of mine) {
    const key = `${r.caseId}#${r.questionId}|s${r.sample}`;
    const item = byKey.get(key)!;
    expect(item, key).toBeDefined();
    if (r.error) {
      expect(item.answer).toBeNull();
      expect(item.error).toBe(r.error);
      continue;
    }
    expect(item.answer).toBe(r.rawText);
    expect(scoresOf(item), key).toEqual(original.get(key));
  }
  // Imported back as a run of the same benchmark, the answers score the same.
  const match = matchForeign(log, bundle.cases);
  expect(match.unmatched).toEqual([]);
  expect(match.duplicates).toEqual([]);
  expect(match.matched.every((m) => m.how === 'neuroeval')).toBe(true);
  const back = foreignRunExport({ log, match, benchmark: { ...bundle.manifest }, cases: bundle.cases, protocolId: 'auto', app: { version: '0.1.0', commit: 'x' }, importedAt: Date.UTC(2026, 6, 1) });
  const rescored = await scoreRun({ protocolId: 'auto', responses: back.responses, cases: bundle.cases }, { resamples: 200 });
  const again = new Map(rescored.items.map((s) => [`${s.caseId}#${s.questionId}|s${s.sample}`, Object.fromEntries(Object.entries(s.metrics).filter(([, v]) => v.value !== null).map(([k, v]) => [k, v.value]))]));
  for (const [key, metrics] of original) expect(again.get(key), key).toEqual(metrics);
  expect(back.responses.filter((r) => r.error).map((r) => r.caseId)).toEqual(mine.filter((r) => r.error).map((r) => r.caseId));
}

/** Metric values a log carries under NeuroEval's metric names. */
const prefixed = (prefix: string) => (item: ForeignLog['items'][number]) => {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(item.scores)) if (k.startsWith(prefix) && typeof v === 'number') out[k.slice(prefix.length)] = v;
  return out;
};

describe('round trips: a scored run written for another tool and read back is the same run', () => {
  it.each(['inspect-json', 'inspect-eval'] as const)('%s: one log per model, valid against inspect_ai\'s schema, same answers, scores and settings', async (format) => {
    const files = filesOf(format);
    expect(files).toHaveLength(2);
    for (const [k, f] of files.entries()) {
      const log = format === 'inspect-json' ? JSON.parse(text(f)) : (() => {
        const z = unzipSync(f.data as Uint8Array);
        expect(Object.keys(z)).toEqual(expect.arrayContaining(['_journal/start.json', 'header.json', 'summaries.json']));
        const header = JSON.parse(new TextDecoder().decode(z['header.json']));
        return { ...header, samples: Object.entries(z).filter(([n]) => n.startsWith('samples/')).map(([, b]) => JSON.parse(new TextDecoder().decode(b))) };
      })();
      const ok = ajv2020.validate('inspect#/components/schemas/EvalLog', log);
      expect(ok, ajv2020.errorsText(ajv2020.errors?.slice(0, 5))).toBe(true);
      const read = readForeign([asForeign(f)]);
      expect(read).toMatchObject({ harness: 'inspect-ai', model: MODELS[k]!.id, task: bundle.manifest.id });
      expect(samplingOf(read.settings)).toEqual(run.provenance!.sampling);
      expect(read.settings.epochs).toBe(2);
      await expectSameRun(read, MODELS[k]!.id, prefixed('neuroeval.'));
      // The log's results are the run's summary: each metric's mean and interval.
      const arm = scored.summary.arms.find((a) => a.modelId === MODELS[k]!.id)!;
      const score = (log.results.scores as { name: string; metrics: Record<string, { value: number }> }[]).find((s) => s.name === arm.metrics[0]!.metric)!;
      expect([score.metrics.mean!.value, score.metrics.ci_lower!.value, score.metrics.ci_upper!.value]).toEqual([arm.metrics[0]!.mean, arm.metrics[0]!.ci.lower, arm.metrics[0]!.ci.upper]);
    }
  }, 120_000);

  it('lm-eval: per model a results JSON and a samples JSONL; the answers, per-sample scores and settings come back', async () => {
    const files = filesOf('lm-eval');
    expect(files.map((f) => f.path.replace(/\d{4}-\d{2}-\d{2}T[\d-]+\.\d+/, 'DATE'))).toEqual([
      `demo-a/samples_neuroeval_${bundle.manifest.id}_DATE.jsonl`, 'demo-a/results_DATE.json',
      `demo-b/samples_neuroeval_${bundle.manifest.id}_DATE.jsonl`, 'demo-b/results_DATE.json',
    ]);
    for (const [k, model] of MODELS.entries()) {
      const [samples, results] = [files[2 * k]!, files[2 * k + 1]!];
      const lines = text(samples).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      // One line per question, lm-eval's keys; every metric named in `metrics` is a number on the line.
      expect(lines).toHaveLength(bundle.cases.length);
      for (const l of lines) {
        expect(Object.keys(l)).toEqual(expect.arrayContaining(['doc_id', 'doc', 'target', 'arguments', 'resps', 'filtered_resps', 'filter', 'metrics', 'doc_hash', 'prompt_hash', 'target_hash']));
        for (const m of l.metrics as string[]) expect(typeof l[m]).toBe('number');
      }
      const r = JSON.parse(text(results));
      expect(Object.keys(r)).toEqual(expect.arrayContaining(['results', 'configs', 'versions', 'n-shot', 'higher_is_better', 'n-samples', 'config', 'model_name']));
      const read = readForeign([asForeign(samples), asForeign(results)]);
      expect(read).toMatchObject({ harness: 'lm-eval', model: model.id, task: `neuroeval_${bundle.manifest.id}` });
      expect(samplingOf(read.settings)).toEqual(run.provenance!.sampling);
      await expectSameRun(read, model.id, (item) => item.scores as Record<string, number>);
    }
  }, 120_000);

  it('Every Eval Ever: records valid against both published schemas; the answers and scores come back', async () => {
    const files = filesOf('every-eval-ever');
    expect(files).toHaveLength(4);
    for (const [k, model] of MODELS.entries()) {
      const [aggregateFile, samplesFile] = [files[2 * k]!, files[2 * k + 1]!];
      expect(samplesFile.path).toMatch(new RegExp(`^data/${bundle.manifest.id}/transformers/${model.id}/[0-9a-f-]{36}_samples\\.jsonl$`));
      const aggregate = JSON.parse(text(aggregateFile));
      expect(eeeAggregate(aggregate), JSON.stringify(eeeAggregate.errors?.slice(0, 3))).toBe(true);
      expect(aggregate.detailed_evaluation_results.file_path).toBe(samplesFile.path);
      const lines = text(samplesFile).trim().split('\n').map((l) => JSON.parse(l));
      expect(aggregate.detailed_evaluation_results.total_rows).toBe(lines.length);
      for (const l of lines) expect(eeeInstance(l), JSON.stringify(eeeInstance.errors?.slice(0, 3))).toBe(true);
      const ids = new Set(aggregate.evaluation_results.map((r: { evaluation_result_id: string }) => r.evaluation_result_id));
      expect(lines.every((l) => ids.has(l.evaluation_result_id))).toBe(true);
      const read = readForeign([asForeign(samplesFile), asForeign(aggregateFile)]);
      expect(read).toMatchObject({ harness: 'every-eval-ever', model: model.id });
      const sampling = samplingOf(read.settings);
      expect([sampling.temperature, sampling.topP, sampling.maxTokens]).toEqual([0.7, 0.9, 512]);
      await expectSameRun(read, model.id, (item) => item.scores as Record<string, number>);
    }
  }, 120_000);

  it('the schemas do catch a wrong record (the validation can fail)', () => {
    const [aggregateFile, samplesFile] = filesOf('every-eval-ever');
    const aggregate = JSON.parse(text(aggregateFile!));
    aggregate.model_info.additional_details.deployment_type = 'on a laptop';
    expect(eeeAggregate(aggregate)).toBe(false);
    const line = JSON.parse(text(samplesFile!).split('\n')[0]!);
    line.interaction_type = 'single_turn';
    line.output = null;
    expect(eeeInstance(line)).toBe(false);
  });

  it('an unscored run is refused for Every Eval Ever (its records hold scores) and written without scores elsewhere', () => {
    expect(() => exportForeign('every-eval-ever', { exported: run, scores: null, appVersion: '0.1.0' })).toThrow(/score the run first/);
    const [log] = exportForeign('inspect-json', { exported: run, scores: null, appVersion: '0.1.0' });
    const parsed = JSON.parse(text(log!));
    expect(parsed.results).toBeNull();
    expect(ajv2020.validate('inspect#/components/schemas/EvalLog', parsed)).toBe(true);
  });
});
