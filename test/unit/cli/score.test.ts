/**
 * `neuroeval score` and `neuroeval export` end to end: the suite generates a
 * results file in the NeuroVLM-Bench harness layout, the CLI scores it, and
 * the numbers are checked against values computed here with plain loops
 * (not with the scorer or the metrics module).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BenchCase } from '../../../src/core/bundle/types.ts';
import type { RunRecord } from '../../../src/core/runner/records.ts';
import { main } from '../../../src/cli/main.ts';
import { serializeRunExport, toRunExport } from '../../../src/core/scoring/io/run-export.ts';
import { toNeuroVlmJsonl } from '../../../src/core/scoring/io/neurovlm-jsonl.ts';
import { answer, nvbCase, nvbResponse, nvbRun } from '../core/scoring/neurovlm/fixtures.ts';
import { makeTempDir, removeTempDirs } from '../../support/temp-dir.ts';

function capture() {
  let out = '';
  let err = '';
  return { io: { out: { write: (t: string) => (out += t) }, err: { write: (t: string) => (err += t) } }, out: () => out, err: () => err };
}

const dir = makeTempDir('score');
afterAll(removeTempDirs);

// ── A generated harness results file ────────────────────────────────────────

/** Small deterministic PRNG for the generator (LCG). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const GT_FIELDS = { diagnosis_name: 'class', diagnosis_detailed: 'subclass', modality: 'modality', specialized_sequence: 'modality_subtype', plane: 'axial_plane' } as const;
type Field = keyof typeof GT_FIELDS;
const FIELDS = Object.keys(GT_FIELDS) as Field[];

interface Truth {
  class: string;
  subclass: string;
  modality: string;
  modality_subtype: string;
  axial_plane: string;
}

const TRUTHS: Truth[] = [
  { class: 'tumor', subclass: 'glioma', modality: 'MRI', modality_subtype: 'T1C+', axial_plane: 'axial' },
  { class: 'tumor', subclass: 'neurocitoma', modality: 'MRI', modality_subtype: 'T1', axial_plane: 'sagittal' },
  { class: 'tumor', subclass: 'pituitary tumor', modality: 'MRI', modality_subtype: 'T2', axial_plane: '' },
  { class: 'tumor', subclass: '', modality: 'MRI', modality_subtype: '', axial_plane: 'axial' },
  { class: 'stroke', subclass: 'ischemic', modality: 'CT', modality_subtype: '', axial_plane: 'axial' },
  { class: 'stroke', subclass: 'hemorrhagic', modality: 'CT', modality_subtype: '', axial_plane: '' },
  { class: 'multiple sclerosis', subclass: '', modality: 'MRI', modality_subtype: 'FLAIR', axial_plane: 'sagittal' },
  { class: 'normal', subclass: '', modality: 'CT', modality_subtype: '', axial_plane: 'axial' },
  { class: 'normal', subclass: '', modality: 'MRI', modality_subtype: 'FLAIR', axial_plane: 'axial' },
  { class: 'other abnormalities', subclass: '', modality: 'MRI', modality_subtype: 'T2', axial_plane: 'axial' },
];

/** How a model may spell each answer: the dataset's label, or the model-side spelling the scorer maps onto it. */
const MODEL_SPELLING: Record<string, string[]> = {
  neurocitoma: ['neurocytoma'],
  'pituitary tumor': ['pituitary_tumor'],
  MRI: ['MR', 'mri'],
  'multiple sclerosis': ['multiple sclerosis', 'multiple_sclerosis'],
  'other abnormalities': ['other_abnormalities', 'other abnormalities'],
};
const WRONG: Record<Field, string[]> = {
  diagnosis_name: ['tumor', 'stroke', 'normal', 'multiple sclerosis'],
  diagnosis_detailed: ['glioma', 'meningioma', 'ischemic', 'schwannoma'],
  modality: ['CT', 'MRI'],
  specialized_sequence: ['T1', 'T2', 'FLAIR', 'T1C+'],
  plane: ['axial', 'sagittal', 'coronal'],
};
const CONFIDENCES = [0, 0.05, 0.1, 0.3, 0.45, 0.5, 0.7, 0.85, 0.9, 1, null];

interface Line {
  model: string;
  truth: Truth;
  status: 'success' | 'error';
  parsed: Record<string, unknown> | null;
  latencyMs: number;
}

function generate(): Line[] {
  const rand = lcg(2024);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const lines: Line[] = [];
  let n = 0;
  for (const model of ['org/model-good', 'org/model-weak']) {
    const skill = model.endsWith('good') ? 0.8 : 0.45;
    for (let rep = 0; rep < 4; rep++) {
      for (const truth of TRUTHS) {
        n++;
        const latencyMs = 500 + Math.round(rand() * 4000);
        if (n % 17 === 0) {
          lines.push({ model, truth, status: 'error', parsed: null, latencyMs });
          continue;
        }
        if (n % 13 === 0) {
          lines.push({ model, truth, status: 'success', parsed: { error: 'JSON parsing failed: Expecting value', raw_response: 'It looks like a tumour.' }, latencyMs });
          continue;
        }
        const a: Record<string, unknown> = {};
        for (const f of FIELDS) {
          const gold = truth[GT_FIELDS[f]];
          const roll = rand();
          if (roll < 0.1) a[f] = null;
          else if (roll < 0.1 + skill && gold !== '') a[f] = pick(MODEL_SPELLING[gold] ?? [gold]);
          else a[f] = pick(WRONG[f]);
        }
        a.icd10_code = null;
        a.diagnosis_confidence = pick(CONFIDENCES);
        lines.push({ model, truth, status: 'success', parsed: a, latencyMs });
      }
    }
  }
  return lines;
}

function toJsonl(lines: readonly Line[]): string {
  return lines
    .map((l, i) =>
      JSON.stringify({
        timestamp: '2025-09-01T10:00:00',
        experiment_id: `neurorad_${String(i).padStart(6, '0')}`,
        api_response: l.status === 'error' ? null : { id: `gen-${i}`, model: l.model, prompt_tokens: 1000, completion_tokens: 50 + (i % 7), total_tokens: 1050 + (i % 7), latency_ms: l.latencyMs },
        input: { image_path: `img/${i}.png`, model_requested: l.model, system_prompt_type: 'neurorad_prompt_trim', metadata: { dataset: 'generated', ...l.truth } },
        output: { parsed_response: l.parsed, status: l.status, error: l.status === 'error' ? 'Failed with status 500' : null },
      }),
    )
    .join('\n');
}

// ── Expected values, computed independently ─────────────────────────────────

/** The few normalisations the generated spellings need. */
function norm(v: unknown): string {
  if (v === null || v === undefined || v === '') return 'undetermined';
  const s = String(v).toLowerCase().replace(/_/g, ' ');
  if (s === 'mr') return 'mri';
  if (s === 'neurocytoma') return 'neurocitoma';
  return s;
}

interface Expected {
  scored: number;
  notScorable: number;
  accuracy: number;
  macroF1: number;
  f1WithAbstention: number;
}

function f1For(label: string, gold: string[], pred: string[]): number {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (let i = 0; i < gold.length; i++) {
    if (gold[i] === label && pred[i] === label) tp++;
    else if (pred[i] === label) fp++;
    else if (gold[i] === label) fn++;
  }
  return tp + fp + fn === 0 ? 0 : (2 * tp) / (2 * tp + fp + fn);
}

function expectedField(lines: readonly Line[], field: Field): Expected {
  const ok = lines.filter((l) => l.status === 'success');
  const gold: string[] = [];
  const pred: string[] = [];
  let notScorable = 0;
  for (const l of ok) {
    const g = l.truth[GT_FIELDS[field]];
    if (g === '') {
      notScorable++;
      continue;
    }
    gold.push(norm(g));
    pred.push(l.parsed && 'diagnosis_name' in l.parsed ? norm(l.parsed[field]) : 'undetermined');
  }
  const correct = gold.filter((g, i) => g === pred[i]).length;
  const all = [...new Set([...gold, ...pred])];
  const real = all.filter((x) => x !== 'undetermined');
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  return {
    scored: gold.length,
    notScorable,
    accuracy: correct / gold.length,
    macroF1: sum(all.map((lab) => f1For(lab, gold, pred))) / all.length,
    // Abstentions become a dummy prediction outside the label set: a miss, never a false positive.
    f1WithAbstention: sum(real.map((lab) => f1For(lab, gold, pred.map((p) => (p === 'undetermined' ? '__dummy__' : p))))) / real.length,
  };
}

function expectedCalibration(lines: readonly Line[]): { ece: number; brier: number; n: number } {
  const rows = lines
    .filter((l) => l.status === 'success')
    .map((l) => {
      const valid = l.parsed !== null && 'diagnosis_name' in l.parsed;
      const c = valid && typeof l.parsed!.diagnosis_confidence === 'number' ? Math.min(1, Math.max(0, l.parsed!.diagnosis_confidence)) : 0;
      const correct = valid && norm(l.parsed!.diagnosis_name) === norm(l.truth.class) ? 1 : 0;
      return { c, correct };
    });
  let ece = 0;
  for (let b = 0; b < 10; b++) {
    const inBin = rows.filter((r) => (b === 0 ? r.c >= 0 && r.c <= 0.1 : r.c > b / 10 && r.c <= (b + 1) / 10));
    if (inBin.length === 0) continue;
    const acc = inBin.reduce((a, r) => a + r.correct, 0) / inBin.length;
    const conf = inBin.reduce((a, r) => a + r.c, 0) / inBin.length;
    ece += (inBin.length / rows.length) * Math.abs(acc - conf);
  }
  const brier = rows.reduce((a, r) => a + (r.c - r.correct) ** 2, 0) / rows.length;
  return { ece, brier, n: rows.length };
}

function medianOf(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

// ── Tests ───────────────────────────────────────────────────────────────────

interface CliGroup {
  key: string;
  modelId: string;
  report: {
    calls: { total: number; failed: number; successful: number };
    jsonValid: { count: number; n: number; rate: number };
    fields: Record<Field, { scored: number; notScorable: number; accuracy: { value: number; wilson: { lower: number; upper: number }; bootstrap: { lower: number; upper: number } }; macroF1: { value: number; bootstrap: { lower: number; upper: number } }; f1WithAbstention: { macro: number } }>;
    calibration: { n: number; ece: number; brier: number };
    efficiency: { medianLatencyMs: number };
  };
}

describe('neuroeval score on a generated NeuroVLM-Bench JSONL', () => {
  const lines = generate();
  const file = join(dir, 'results.jsonl');
  const text = toJsonl(lines);
  writeFileSync(file, text);

  it('matches independently computed accuracy, F1s, not-scorable counts, ECE, Brier, validity and latency', async () => {
    const c = capture();
    expect(await main(['score', file, '--json', '--seed', '7', '--resamples', '300'], c.io)).toBe(0);
    const out = JSON.parse(c.out()) as { format: string; items: number; groups: CliGroup[] };
    expect(out.format).toBe('neurovlm-jsonl');
    expect(out.items).toBe(lines.length);
    expect(out.groups.map((g) => g.key)).toEqual(['org/model-good', 'org/model-weak']);
    for (const g of out.groups) {
      const mine = lines.filter((l) => l.model === g.modelId);
      const ok = mine.filter((l) => l.status === 'success');
      expect(g.report.calls).toEqual({ total: mine.length, failed: mine.length - ok.length, successful: ok.length });
      const valid = ok.filter((l) => l.parsed && 'diagnosis_name' in l.parsed).length;
      expect(g.report.jsonValid.count).toBe(valid);
      expect(g.report.jsonValid.rate).toBeCloseTo(valid / ok.length, 12);
      for (const f of FIELDS) {
        const want = expectedField(mine, f);
        const got = g.report.fields[f];
        expect(got.scored, `${g.key} ${f} scored`).toBe(want.scored);
        expect(got.notScorable, `${g.key} ${f} not scorable`).toBe(want.notScorable);
        expect(got.accuracy.value, `${g.key} ${f} accuracy`).toBeCloseTo(want.accuracy, 12);
        expect(got.macroF1.value, `${g.key} ${f} macro-F1`).toBeCloseTo(want.macroF1, 12);
        expect(got.f1WithAbstention.macro, `${g.key} ${f} F1 with abstention`).toBeCloseTo(want.f1WithAbstention, 12);
        expect(got.accuracy.wilson.lower).toBeLessThanOrEqual(want.accuracy);
        expect(got.accuracy.wilson.upper).toBeGreaterThanOrEqual(want.accuracy);
        expect(got.accuracy.bootstrap.lower).toBeLessThanOrEqual(got.accuracy.bootstrap.upper);
        expect(got.macroF1.bootstrap.lower).toBeLessThanOrEqual(got.macroF1.bootstrap.upper);
      }
      const cal = expectedCalibration(mine);
      expect(g.report.calibration.n).toBe(cal.n);
      expect(g.report.calibration.ece, `${g.key} ECE`).toBeCloseTo(cal.ece, 12);
      expect(g.report.calibration.brier, `${g.key} Brier`).toBeCloseTo(cal.brier, 12);
      expect(g.report.efficiency.medianLatencyMs).toBe(medianOf(ok.map((l) => l.latencyMs)));
    }
    // The generator exercises what matters: model spellings, abstentions, parse failures, failed calls, empty ground truth.
    expect(text).toContain('"neurocytoma"');
    expect(text).toContain('"pituitary_tumor"');
    expect(text).toContain('"MR"');
    const good = out.groups[0]!.report;
    expect(good.calls.failed).toBeGreaterThan(0);
    expect(good.jsonValid.count).toBeLessThan(good.calls.successful);
    expect(good.fields.plane.notScorable).toBeGreaterThan(0);
    expect(good.fields.diagnosis_name.accuracy.value).toBeGreaterThan(out.groups[1]!.report.fields.diagnosis_name.accuracy.value);
  });

  it('gives the same bootstrap intervals for the same seed, and others for another seed', async () => {
    const run = async (seed: string) => {
      const c = capture();
      await main(['score', file, '--json', '--seed', seed, '--resamples', '200'], c.io);
      return (JSON.parse(c.out()) as { groups: CliGroup[] }).groups[0]!.report.fields.diagnosis_name.macroF1.bootstrap;
    };
    expect(await run('3')).toEqual(await run('3'));
    expect(await run('3')).not.toEqual(await run('4'));
  });

  it('prints a readable report per model', async () => {
    const c = capture();
    expect(await main(['score', file, '--resamples', '50'], c.io)).toBe(0);
    const text = c.out();
    expect(text).toContain('== org/model-good ==');
    expect(text).toContain('== org/model-weak ==');
    for (const f of FIELDS) expect(text).toContain(f);
    expect(text).toMatch(/Wilson 95%/);
    expect(text).toMatch(/ECE \(10 bins\) \d\.\d{3}/);
    expect(text).toMatch(/JSON valid: \d+\/\d+ = \d+\.\d%/);
    expect(text).toContain('Confusion matrix');
  });

  it('scores the rest of a file with an unreadable line, naming its file and line (the benchmark evaluator keeps a placeholder for it)', async () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, `${toJsonl(lines.slice(0, 2))}\n{"input": oops}\n`);
    const c = capture();
    expect(await main(['score', bad, '--json'], c.io)).toBe(0);
    expect(c.err()).toMatch(new RegExp(`warning: ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: not valid JSON.*left out of NeuroEval's own analysis`));
    expect((JSON.parse(c.out()) as { items: number }).items).toBe(2);
  });

  it('exits 1 naming the file and line when no line can be read', async () => {
    const bad = join(dir, 'all-bad.jsonl');
    writeFileSync(bad, 'name,class\nx,tumor\n');
    const c = capture();
    expect(await main(['score', bad], c.io)).toBe(1);
    expect(c.err()).toContain(`${bad}:1`);
    expect(c.out()).toBe('');
  });

  it('exits 1 naming a file that cannot be read, 2 on bad usage', async () => {
    const c = capture();
    expect(await main(['score', join(dir, 'missing.jsonl')], c.io)).toBe(1);
    expect(c.err()).toContain('missing.jsonl');
    expect(await main(['score'], capture().io)).toBe(2);
    expect(await main(['score', file, '--seed', 'abc'], capture().io)).toBe(2);
  });
});

describe('neuroeval export → score round trip', () => {
  const cases = [
    nvbCase('c1', { diagnosis_name: 'tumor', diagnosis_detailed: 'neurocitoma', modality: 'MRI', specialized_sequence: 'T1C+', plane: 'axial' }),
    nvbCase('c2', { diagnosis_name: 'stroke', diagnosis_detailed: 'ischemic', modality: 'CT', specialized_sequence: null, plane: null }),
    nvbCase('c3', { diagnosis_name: 'normal', diagnosis_detailed: null, modality: 'MRI', specialized_sequence: 'FLAIR', plane: 'sagittal' }),
  ];
  const run = nvbRun();
  const responses = [
    nvbResponse(run.id, { caseId: 'c1', parsed: answer({ diagnosis_name: 'tumor', diagnosis_detailed: 'neurocytoma', modality: 'MRI', specialized_sequence: 'T1C+', plane: 'axial', diagnosis_confidence: 0.8 }), promptTokens: 900, completionTokens: 60, latencyMs: 2000 }, 0),
    nvbResponse(run.id, { caseId: 'c2', parsed: answer({ diagnosis_name: 'normal', modality: 'CT', diagnosis_confidence: 0.6 }), promptTokens: 900, completionTokens: 40, latencyMs: 1000 }, 1),
    nvbResponse(run.id, { caseId: 'c3', parseError: 'empty answer', latencyMs: 3000 }, 2),
    nvbResponse(run.id, { caseId: 'c1', modelId: 'model-b', callError: 'timeout' }, 3),
  ];
  const exportFile = join(dir, 'run-export.json');
  writeFileSync(exportFile, serializeRunExport(toRunExport(run, responses, cases, { exportedAt: 1 })));

  it('writes the harness layout that toNeuroVlmJsonl produces', async () => {
    const outFile = join(dir, 'exported.jsonl');
    const c = capture();
    expect(await main(['export', '--format', 'neurovlm-jsonl', exportFile, '--out', outFile], c.io)).toBe(0);
    expect(c.err()).toContain('Wrote 4 line(s)');
    expect(readFileSync(outFile, 'utf8')).toBe(toNeuroVlmJsonl(run, responses, cases));
    const stdout = capture();
    expect(await main(['export', '--format', 'neurovlm-jsonl', exportFile], stdout.io)).toBe(0);
    expect(stdout.out()).toBe(readFileSync(outFile, 'utf8'));
  });

  it('scores the run export and its JSONL conversion identically', async () => {
    const outFile = join(dir, 'exported2.jsonl');
    await main(['export', '--format', 'neurovlm-jsonl', exportFile, '--out', outFile], capture().io);
    const score = async (f: string) => {
      const c = capture();
      expect(await main(['score', f, '--json', '--seed', '5', '--resamples', '100'], c.io)).toBe(0);
      return JSON.parse(c.out()) as { format: string; groups: CliGroup[] };
    };
    const direct = await score(exportFile);
    const viaJsonl = await score(outFile);
    expect(direct.format).toBe('neuroeval-run');
    expect(viaJsonl.format).toBe('neurovlm-jsonl');
    expect(viaJsonl.groups.map((g) => g.report)).toEqual(direct.groups.map((g) => g.report));
    const a = direct.groups[0]!.report;
    // c1 right on every field; c2 wrong class; c3 unparsed (an abstention on every field).
    expect(a.fields.diagnosis_name.accuracy.value).toBeCloseTo(1 / 3, 12);
    expect(a.fields.diagnosis_detailed).toMatchObject({ scored: 2, notScorable: 1 });
    expect(a.fields.plane).toMatchObject({ scored: 2, notScorable: 1 });
    expect(a.jsonValid).toMatchObject({ count: 2, n: 3 });
    expect(direct.groups[1]!.report.calls).toEqual({ total: 1, failed: 1, successful: 0 });
  });

  it('leaves answers given under another protocol out of the harness file, and says how many', async () => {
    const dx: BenchCase = { id: 'd1', taskFamily: 'differential-diagnosis', images: [], questions: [{ id: 'q1', text: 'Differential?', reference: { diagnosis: 'Glioblastoma' } }] };
    const other = nvbResponse(run.id, { caseId: 'd1', parsed: { hypotheses: [{ rank: 1, diagnosis: 'Glioblastoma', confidence: 0.6, evidence: null }] } }, 4);
    const mixedFile = join(dir, 'run-export-mixed.json');
    // A run whose protocol each case chose (`auto`): the differential case was asked under Neural-MedBench's protocol.
    const auto: RunRecord = { ...run, config: { ...run.config!, protocolId: 'auto' }, provenance: { ...run.provenance!, protocol: { id: 'auto', version: '1', templateHashes: {} } } };
    writeFileSync(mixedFile, serializeRunExport(toRunExport(auto, [...responses, other], [...cases, dx], { exportedAt: 1 })));
    const c = capture();
    expect(await main(['export', '--format', 'neurovlm-jsonl', mixedFile], c.io)).toBe(0);
    expect(c.err()).toContain('1 answer(s) given under another protocol than NeuroVLM-Bench structured JSON are left out');
    expect(c.out()).toBe(toNeuroVlmJsonl(auto, responses, cases));
  });

  it('refuses an unknown format and a broken export, naming the file', async () => {
    expect(await main(['export', '--format', 'csv', exportFile], capture().io)).toBe(2);
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{\n  "format": "neuroeval-run",\n  "version": 1,\n  "run": {"id": "r"}\n  "responses": []\n}\n');
    const c = capture();
    expect(await main(['export', '--format', 'neurovlm-jsonl', broken], c.io)).toBe(1);
    expect(c.err()).toContain(`${broken}:5`);
    const s = capture();
    expect(await main(['score', broken], s.io)).toBe(1);
    expect(s.err()).toContain(`${broken}:5`);
  });
});
