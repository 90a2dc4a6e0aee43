/**
 * `neuroeval report`: the HTML report of a run export equals what the core's
 * report function gives for the same scored run, names the run's models and
 * shows their figures, and refuses bad options as usage errors.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { readBuildInfo } from '../../../build/build-info.ts';
import { main } from '../../../src/cli/main.ts';
import { buildHtmlReport } from '../../../src/core/results/report-html.ts';
import { reportInputOf, resultsOfRunExport } from '../../../src/core/results/run-report.ts';
import { parseRunExport } from '../../../src/core/scoring/io/run-export.ts';
import { scoreRun } from '../../../src/core/scoring/run/score-run.ts';
import { wilsonInterval } from '../../../src/core/scoring/stats/wilson.ts';
import { twoModelRunExport } from '../../support/two-model-run.ts';
import { makeTempDir, removeTempDirs } from '../../support/temp-dir.ts';

const dir = makeTempDir('cli-report');
afterAll(removeTempDirs);
const file = join(dir, 'run.json');
const text = twoModelRunExport();
writeFileSync(file, text);
const EPOCH = 1_790_000_000;

afterEach(() => {
  delete process.env.SOURCE_DATE_EPOCH;
});

async function cli(...args: string[]): Promise<{ code: number; err: string }> {
  let err = '';
  const code = await main(['report', ...args], { out: { write: () => true }, err: { write: (t: string) => (err += t) } });
  return { code, err };
}

describe('neuroeval report', () => {
  it('writes the same report the core builds for the scored run', async () => {
    process.env.SOURCE_DATE_EPOCH = String(EPOCH);
    const out = join(dir, 'report.html');
    const r = await cli(file, '--out', out, '--resamples', '200');
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(`Wrote ${out}: 2 model(s)`);

    const e = parseRunExport(text, 'run.json');
    const scores = await scoreRun({ protocolId: 'auto', responses: e.responses, cases: e.cases ?? [] }, { seed: 0, resamples: 200 });
    const when = new Date(EPOCH * 1000);
    const expected = buildHtmlReport(reportInputOf(resultsOfRunExport(e, scores, when.getTime()), { generatedAt: when, appVersion: readBuildInfo(process.cwd()).version, responses: e.responses }));
    const html = readFileSync(out, 'utf8');
    expect(html).toBe(expected);
    expect(html).toContain('<h2>Safety</h2>');
    expect(html).toContain('<h2>Failures</h2>');
    expect(html).not.toContain('<img');
  });

  it('names the run\'s models and shows their figures', async () => {
    const out = join(dir, 'figures.html');
    expect((await cli(file, '--out', out, '--metric', 'mcq.correct', '--resamples', '100')).code).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('strong');
    expect(html).toContain('weak');
    // weak is right on 6 of 12, strong on 12 of 12; the intervals are Wilson's.
    expect(html).toContain('50.0%');
    expect(html).toContain('100.0%');
    const w = wilsonInterval(6, 12);
    expect(html).toContain(`${(w.lower * 100).toFixed(1)}`);
    expect(html).toContain(`${(w.upper * 100).toFixed(1)}`);
    expect(html).not.toMatch(/<script/i);
  });

  it('refuses a missing --out, an unknown metric and an unknown option as usage errors, writing nothing', async () => {
    const missing = await cli(file);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('--out <report.html>');
    const out = join(dir, 'never.html');
    const metric = await cli(file, '--out', out, '--metric', 'accuracy', '--resamples', '20');
    expect(metric.code).toBe(2);
    expect(metric.err).toContain('no metric "accuracy". Available: ');
    expect(metric.err).toContain('mcq.correct');
    expect((await cli(file, '--out', out, '--colour')).code).toBe(2);
    expect(existsSync(out)).toBe(false);
  });

  it('names the file when the run export is broken', async () => {
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"format":"neuroeval-run","version":3,"run":');
    const r = await cli(broken, '--out', join(dir, 'x.html'));
    expect(r.code).toBe(1);
    expect(r.err).toContain('broken.json');
  });
});
