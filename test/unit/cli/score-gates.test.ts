/**
 * `neuroeval score --fail-under`: a pipeline gate on each model's interval
 * bound, with the reason printed; an unknown metric is a usage error that
 * lists the metrics there are.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { parseGate } from '../../../src/cli/commands/score-gates.ts';
import { wilsonInterval } from '../../../src/core/scoring/stats/wilson.ts';
import { twoModelRunExport } from '../../support/two-model-run.ts';
import { makeTempDir, removeTempDirs } from '../../support/temp-dir.ts';

const dir = makeTempDir('score-gates');
afterAll(removeTempDirs);
const file = join(dir, 'run.json');
writeFileSync(file, twoModelRunExport());

async function score(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['score', file, '--resamples', '50', ...args], { out: { write: (t: string) => (out += t) }, err: { write: (t: string) => (err += t) } });
  return { code, out, err };
}

// weak: 6 of 12 right (3 wrong, 3 unreadable, so 6 of 9 readable); strong: 12 of 12.
const weakLower = wilsonInterval(6, 12).lower;

describe('neuroeval score --fail-under', () => {
  it('exits 1 when a model\'s lower bound is under the bar, naming model, metric, bound and bar', async () => {
    const r = await score('--fail-under', 'mcq.correct=0.5');
    expect(r.code).toBe(1);
    expect(r.err).toContain(`gate FAILED: weak: mcq.correct lower bound ${weakLower.toFixed(3)} < bar 0.500`);
    expect(r.err).toMatch(/gate passed: strong: mcq\.correct lower bound 0\.\d{3} ≥ bar 0\.500/);
    expect(r.out).toContain('All metrics per model');
  });

  it('exits 0 when every model clears every bar, and takes a percentage', async () => {
    const r = await score('--fail-under', `mcq.correct=${Math.floor(weakLower * 100) - 1}%`);
    expect(r.code, r.err).toBe(0);
    expect(r.err).not.toContain('FAILED');
  });

  it('compares the upper bound where lower is better (unreadable answers)', async () => {
    const r = await score('--fail-under', 'mcq.correct=0.1', '--fail-under', 'mcq.invalid=0.3');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/gate FAILED: weak: mcq\.invalid upper bound 0\.\d{3} > bar 0\.300, lower is better/);
    expect(r.err).toMatch(/gate passed: strong: mcq\.invalid upper bound 0\.\d{3} ≤ bar 0\.300/);
  });

  it('puts the verdicts in --json and still exits by them', async () => {
    const r = await score('--json', '--fail-under', 'mcq.correct=0.5');
    expect(r.code).toBe(1);
    const gates = (JSON.parse(r.out) as { gates: { model: string; pass: boolean; lower: number; bar: number }[] }).gates;
    expect(gates.map((g) => [g.model, g.pass])).toEqual([['strong', true], ['weak', false]]);
    expect(gates[1]!.lower).toBeCloseTo(weakLower, 10);
  });

  it('refuses an unknown metric with exit 2, listing the available ones', async () => {
    const r = await score('--fail-under', 'accuracy=0.5');
    expect(r.code).toBe(2);
    expect(r.err).toContain('no model has the metric "accuracy". Available: ');
    expect(r.err).toContain('mcq.correct');
  });

  it('refuses a malformed bar with exit 2', async () => {
    const r = await score('--fail-under', 'mcq.correct');
    expect(r.code).toBe(2);
    expect(r.err).toContain('--fail-under needs <metric>=<value>');
    expect(parseGate('pass@1=60%')).toEqual({ metric: 'pass@1', bar: 0.6 });
    expect(() => parseGate('pass@1=high')).toThrow('--fail-under needs <metric>=<value>');
  });
});
