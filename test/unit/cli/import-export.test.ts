/**
 * `neuroeval import` (another harness's answers → a run export of a
 * benchmark) and `neuroeval export --format inspect-json|inspect-eval|lm-eval|every-eval-ever`,
 * end to end through the command line: the run written by import is scored
 * by `neuroeval score`, and its exports read back to the same answers.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { readForeign } from '../../../src/core/interchange/read/index.ts';
import { parseRunExport } from '../../../src/core/scoring/io/run-export.ts';
import { lmmsEvalSamplesJsonl, mcqAnswers, mcqBundle, VLMEVALKIT } from '../../support/interchange.ts';
import { makeTempDir, removeTempDirs } from '../../support/temp-dir.ts';

function capture() {
  let out = '';
  let err = '';
  return { io: { out: { write: (t: string) => (out += t) }, err: { write: (t: string) => (err += t) } }, out: () => out, err: () => err };
}

const BENCH = `${VLMEVALKIT}NeuroMCQ.tsv`;

afterAll(removeTempDirs);

/** Every file under a folder, relative paths. */
function walk(dir: string, base = ''): string[] {
  return readdirSync(join(dir, base), { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(dir, join(base, d.name)) : [join(base, d.name)]));
}

describe('neuroeval import and export', () => {
  it('imports a VLMEvalKit xlsx as a run export that neuroeval score scores, with the file\'s hash in its provenance', async () => {
    const dir = makeTempDir('cli-import');
    const out = join(dir, 'run.json');
    const c = capture();
    expect(await main(['import', '--benchmark', BENCH, `${VLMEVALKIT}DemoVLM_NeuroMCQ.xlsx`, '--out', out, '--json'], c.io)).toBe(0);
    expect(JSON.parse(c.out())).toMatchObject({ harness: 'vlmevalkit', model: 'DemoVLM', items: 6, matched: 6, unmatched: 0, duplicates: 0, failed: 1 });
    const e = parseRunExport(readFileSync(out, 'utf8'), out);
    expect(e.provenance!.imported).toMatchObject({ harness: 'vlmevalkit', file: `${VLMEVALKIT}DemoVLM_NeuroMCQ.xlsx`, model: 'DemoVLM' });
    expect(e.responses).toHaveLength(6);
    const s = capture();
    expect(await main(['score', out, '--json'], s.io)).toBe(0);
    const arm = (JSON.parse(s.out()) as { run: { summary: { arms: { metrics: { metric: string; mean: number }[] }[] } } }).run.summary.arms[0]!;
    expect(arm.metrics.find((m) => m.metric === 'mcq.correct')!.mean).toBe(0.8);
  });

  it('refuses to write anything when items are unmatched, naming them; --map or --allow-unmatched decide', async () => {
    const bundle = await mcqBundle();
    const dir = makeTempDir('cli-import');
    const answers = mcqAnswers(bundle);
    const samples = join(dir, 'llava-ov', '20260701_samples_neuro_mcq.jsonl');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'llava-ov'));
    writeFileSync(samples, lmmsEvalSamplesJsonl([{ ...answers[0]!, docId: 'odd', prompt: 'Worded otherwise' }, ...answers.slice(1), answers[1]!]));
    const out = join(dir, 'run.json');
    const c = capture();
    expect(await main(['import', '--benchmark', BENCH, samples, '--out', out], c.io)).toBe(1);
    expect(c.err()).toContain(`unmatched: ${samples}:1: item "odd"`);
    expect(c.err()).toMatch(/duplicate: .*:7: item "1" answers case "2" question "q1" again \(first at .*:2\); left out/);
    expect(existsSync(out)).toBe(false);
    const map = join(dir, 'map.csv');
    writeFileSync(map, 'doc_id,case\nodd,1\n');
    const ok = capture();
    expect(await main(['import', '--benchmark', BENCH, samples, '--out', out, '--map', map, '--allow-unmatched', '--json'], ok.io)).toBe(0);
    // The model's name comes from the folder lmms-eval writes samples into.
    expect(JSON.parse(ok.out())).toMatchObject({ harness: 'lmms-eval', model: 'llava-ov', matched: 6, unmatched: 0, duplicates: 1 });
  });

  it('exports a run for Inspect AI, lm-eval and Every Eval Ever; each reads back to the same answers', async () => {
    const dir = makeTempDir('cli-export');
    const run = join(dir, 'run.json');
    expect(await main(['import', '--benchmark', BENCH, `${VLMEVALKIT}DemoVLM_NeuroMCQ.tsv`, '--out', run], capture().io)).toBe(0);
    const answers = parseRunExport(readFileSync(run, 'utf8'), run).responses.map((r) => r.rawText);
    for (const format of ['inspect-json', 'inspect-eval', 'lm-eval', 'every-eval-ever']) {
      const out = join(dir, format);
      const c = capture();
      expect(await main(['export', '--format', format, run, '--out', out], c.io), c.err()).toBe(0);
      const files = walk(out);
      expect(files.length).toBeGreaterThan(0);
      const log = readForeign(files.map((f) => ({ name: f, bytes: new Uint8Array(readFileSync(join(out, f))) })));
      expect(log.model).toBe('vlmevalkit:DemoVLM');
      expect(log.items.map((i) => i.answer ?? '')).toEqual(answers);
    }
    const one = capture();
    expect(await main(['export', '--format', 'inspect-json', run], one.io)).toBe(0);
    expect(JSON.parse(one.out()).eval.model).toBe('vlmevalkit:DemoVLM');
    const many = capture();
    expect(await main(['export', '--format', 'lm-eval', run], many.io)).toBe(2);
    expect(many.err()).toContain('give --out <folder>');
  });
});
