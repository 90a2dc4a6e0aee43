/**
 * `neuroeval score` on a run export with mixed protocols: every answer is
 * scored under its own protocol, with the bundled self-test encoder and judge
 * loaded from their folders on onnxruntime-web's wasm backend in Node. The
 * expected values are counted here by hand from the fixture.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import type { BenchCase } from '../../../src/core/bundle/types.ts';
import { serializeRunExport, toRunExport } from '../../../src/core/scoring/io/run-export.ts';
import { itemKeyOf } from '../../../src/core/runner/plan.ts';
import type { ResponseRecord } from '../../../src/core/model/answer.ts';
import { testRun } from '../../support/run-record.ts';
import { makeTempDir, removeTempDirs } from '../../support/temp-dir.ts';

const models = (id: string) => fileURLToPath(new URL(`../../../public/models/${id}`, import.meta.url));

function capture() {
  let out = '';
  let err = '';
  return { io: { out: { write: (t: string) => (out += t) }, err: { write: (t: string) => (err += t) } }, out: () => out, err: () => err };
}

const RATIONALE = 'Ring enhancing mass with central necrosis: glioblastoma.';
const cases: BenchCase[] = [
  { id: 'd1', taskFamily: 'differential-diagnosis', images: [], questions: [{ id: 'q', text: 'Dx?', reference: { diagnosis: 'Multiple sclerosis' } }] },
  { id: 'd2', taskFamily: 'differential-diagnosis', images: [], questions: [{ id: 'q', text: 'Dx?', reference: { diagnosis: 'Subdural haematoma' } }] },
  { id: 'd3', taskFamily: 'differential-diagnosis', images: [], questions: [{ id: 'q', text: 'Dx?', reference: { diagnosis: 'Meningioma' } }] },
  { id: 'm1', taskFamily: 'multiple-choice', images: [], questions: [{ id: 'q', text: 'Which?', options: [{ key: 'A', text: 'x' }, { key: 'B', text: 'y' }], reference: { answer: 'B' } }] },
  { id: 'm2', taskFamily: 'multiple-choice', images: [], questions: [{ id: 'q', text: 'Which?', options: [{ key: 'A', text: 'x' }, { key: 'B', text: 'y' }], reference: { answer: 'A' } }] },
  { id: 'r1', taskFamily: 'rationale-generation', images: [], questions: [{ id: 'q', text: 'Why?', reference: { rationale: RATIONALE } }] },
];
const run = testRun({ id: 'run-x', name: 'mixed', plan: { cases: 6, models: 1, variants: 1, samples: 1, items: 6 } });
const dx = (...names: string[]) => ({ hypotheses: names.map((diagnosis, i) => ({ rank: i + 1, diagnosis, confidence: 0.5, evidence: null })) });
function response(caseId: string, parsed: unknown, parseError: string | null = null): ResponseRecord {
  const itemKey = itemKeyOf({ caseId, questionId: 'q', modelId: 'm', variant: 'none', sample: 0 });
  return { id: `run-x/${itemKey}`, runId: 'run-x', itemKey, caseId, questionId: 'q', cacheKey: '', modelId: 'm', variant: 'none', sample: 0, rawText: '', parsed, parseError, usage: { promptTokens: 1, completionTokens: 1, ttftMs: 1, prefillTps: 1, decodeTps: 1 }, latencyMs: 1, finishReason: 'stop', createdAt: 1 };
}
const responses = [
  response('d1', dx('MS')), // abbreviation: right at rank 1
  response('d2', dx('Epidural haematoma', 'Subdural hematoma')), // right at rank 2 only
  response('d3', dx('Schwannoma')), // wrong
  response('m1', { choice: 'B', rule: 'boxed' }),
  response('m2', null, 'invalid'),
  response('r1', { text: RATIONALE }),
];
const dir = makeTempDir('score-run');
afterAll(removeTempDirs);
const file = join(dir, 'run.json');
writeFileSync(file, serializeRunExport(toRunExport(run, responses, cases)));

interface Json {
  groups: unknown[];
  run: { config: { judge: string | null; encoder: string | null; bertscore?: unknown }; summary: { arms: { key: string; metrics: { metric: string; mean: number; n: number; notScorable: number; encoder?: string }[] }[] } };
}

describe('neuroeval score: protocol-aware scoring of a run export', () => {
  it('scores every protocol by rules, with counts matching the fixture', async () => {
    const c = capture();
    expect(await main(['score', file, '--json', '--resamples', '50'], c.io)).toBe(0);
    const out = JSON.parse(c.out()) as Json;
    expect(out.groups).toEqual([]); // no NeuroVLM-Bench answers in this run
    const m = Object.fromEntries(out.run.summary.arms[0]!.metrics.map((x) => [x.metric, x]));
    expect(m['pass@1']).toMatchObject({ n: 3, mean: 1 / 3 });
    expect(m['pass@5']).toMatchObject({ n: 3, mean: 2 / 3 });
    expect(m['mcq.correct']).toMatchObject({ n: 2, mean: 1 / 2 });
    expect(m['mcq.invalid']).toMatchObject({ n: 2, mean: 1 / 2 });
    expect(m.rougeL).toMatchObject({ n: 1, mean: 1 });
    expect(out.run.config).toMatchObject({ judge: null, encoder: null });
    const text = capture();
    expect(await main(['score', file, '--resamples', '50'], text.io)).toBe(0);
    expect(text.out()).toContain('No NeuroVLM-Bench answers in this run.');
    expect(text.out()).toMatch(/All metrics per model[\s\S]*pass@5\s+66\.7%/);
  });

  it('loads a local encoder and judge from their folders', async () => {
    const c = capture();
    const code = await main(['score', file, '--json', '--resamples', '50', '--encoder', models('self-test-embed'), '--judge', models('self-test-text'), '--baseline', '0.2,0.2,0.2'], c.io);
    expect(c.err()).toBe('');
    expect(code).toBe(0);
    const out = JSON.parse(c.out()) as Json;
    const m = Object.fromEntries(out.run.summary.arms[0]!.metrics.map((x) => [x.metric, x]));
    expect(m['bertscore.f']).toMatchObject({ n: 1, encoder: 'self-test-embed' });
    expect(m['bertscore.f']!.mean).toBeCloseTo(1, 5);
    // The random judge's replies cannot be read: the rule-rejected hypotheses become undecided.
    expect(m['pass@1']!.notScorable).toBeGreaterThan(0);
    expect(out.run.config).toMatchObject({ judge: 'self-test-text', encoder: 'self-test-embed', bertscore: { idf: false, baseline: { precision: 0.2, recall: 0.2, f: 0.2 } } });
    // With one reference every token's idf is ln(2/2) = 0, so IDF-weighted BERTScore is 0 (bert_score behaves the same).
    const withIdf = capture();
    expect(await main(['score', file, '--json', '--resamples', '20', '--encoder', models('self-test-embed'), '--idf'], withIdf.io)).toBe(0);
    const idfOut = JSON.parse(withIdf.out()) as Json;
    // The self-test encoder is in no layer table: its last layer (2 of 2), recorded with the set.
    expect(idfOut.run.config.bertscore).toEqual({ idf: true, baseline: null, layer: { used: 2, layers: 2, bertScore: null, model: null }, batchSize: 64 });
    expect(idfOut.run.summary.arms[0]!.metrics.find((x) => x.metric === 'bertscore.f')!.mean).toBe(0);
  }, 60_000);

  it('names a folder that is not a model', async () => {
    const c = capture();
    expect(await main(['score', file, '--encoder', dir], c.io)).toBe(1);
    expect(c.err()).toContain(`--encoder ${dir}: not a model folder`);
    expect(await main(['score', file, '--judge'], capture().io)).toBe(2);
    const bad = capture();
    expect(await main(['score', file, '--baseline', '0.3,1.2,0.4'], bad.io)).toBe(2);
    expect(bad.err()).toContain('--baseline needs three numbers below 1');
  });
});
