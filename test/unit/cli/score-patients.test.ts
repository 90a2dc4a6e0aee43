/**
 * `neuroeval score` on a run export whose cases are slices of two patients:
 * the table counts patients (cases and answers beside), the interval is the
 * one over patients (0–100 % for one patient right on every slice and one
 * wrong on every slice; see test/unit/core/scoring/run/patient-level.test.ts), and
 * a note says intervals are by patient.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import type { BenchCase } from '../../../src/core/bundle/types.ts';
import { serializeRunExport, toRunExport } from '../../../src/core/scoring/io/run-export.ts';
import { itemKeyOf } from '../../../src/core/runner/plan.ts';
import type { ResponseRecord } from '../../../src/core/model/answer.ts';
import { testRun } from '../../support/run-record.ts';
import { makeTempDir, removeTempDirs } from '../../support/temp-dir.ts';

const cases: BenchCase[] = Array.from({ length: 10 }, (_, i) => ({
  id: `s${i}`, taskFamily: 'differential-diagnosis', images: [],
  questions: [{ id: 'q', text: 'Dx?', reference: { diagnosis: 'Meningioma' } }],
  meta: { 'dicom.patientKey': i < 5 ? 'PAT-1' : 'PAT-2', 'dicom.fieldStrength': i < 5 ? '1.5' : '3' },
}));
const responses: ResponseRecord[] = cases.map((c, i) => {
  const itemKey = itemKeyOf({ caseId: c.id, questionId: 'q', modelId: 'm', variant: 'none', sample: 0 });
  const diagnosis = i < 5 ? 'Meningioma' : 'Schwannoma';
  return {
    id: `run-p/${itemKey}`, runId: 'run-p', itemKey, caseId: c.id, questionId: 'q', cacheKey: '', modelId: 'm', variant: 'none', sample: 0, rawText: diagnosis,
    parsed: { hypotheses: [{ rank: 1, diagnosis, confidence: 0.5, evidence: null }] }, parseError: null,
    usage: { promptTokens: 1, completionTokens: 1, ttftMs: 1, prefillTps: 1, decodeTps: 1 }, latencyMs: 1, finishReason: 'stop', createdAt: 1,
  };
});

const dir = makeTempDir('score-patients');
afterAll(removeTempDirs);
const file = join(dir, 'run.json');
writeFileSync(file, serializeRunExport(toRunExport(testRun({ id: 'run-p', name: 'slices', plan: { cases: 10, models: 1, variants: 1, samples: 1, items: 10 } }), responses, cases)));

describe('neuroeval score on slices of two patients', () => {
  it('counts patients and says intervals are by patient', async () => {
    let out = '';
    const io = { out: { write: (t: string) => (out += t) }, err: { write: () => {} } };
    expect(await main(['score', file], io)).toBe(0);
    const row = out.split('\n').find((l) => l.trimStart().startsWith('pass@1 '))!;
    expect(row).toContain('[0.0%–100.0%]');
    expect(row).toContain('2 patients (10 cases, 10 answers)');
    expect(row).toContain('[23.7%–76.3%] (n=10 answers)');
    expect(out).toContain('Intervals are by patient');
  });
});
