/**
 * The bench report says up front which figures are a GPU's: a reader of
 * docs/BENCHMARKS.md must not take a SwiftShader figure for a GPU's speed.
 */
import { describe, expect, it } from 'vitest';
import type { BenchResult } from '../../../test/bench/harness.ts';
import { type BenchReport, gpuStatement, renderMarkdown } from '../../../test/bench/report.ts';

const machine = (webgpu: string): BenchReport['machine'] => ({ cpu: 'x', cores: 2, ramGiB: 8, os: 'Debian', kernel: 'Linux', node: 'v20', chromium: '156', webgpu });
const row = (how: string): BenchResult => ({ name: `r ${how}`, value: 1, unit: 'tokens/s', how });
const report = (webgpu: string, hows: string[]): BenchReport => ({ schema: 1, date: '2026-11-27T00:00:00Z', command: 'npm run bench', durationS: 1, machine: machine(webgpu), suites: [{ id: 's', title: 'S', description: 'd', results: hows.map(row) }] });

describe('gpuStatement', () => {
  it('says no figure is a GPU\'s on the software adapter', () => {
    const text = gpuStatement(report('swiftshader, vendor google, fallback adapter', ['software adapter (SwiftShader: swiftshader); the app', 'CPU (WASM); direct']));
    expect(text).toMatch(/^\*\*No figure in this report is from a GPU/);
    expect(text).toContain('SwiftShader');
  });

  it('says so when the pages saw no adapter', () => {
    expect(gpuStatement(report('none (navigator.gpu missing)', []))).toContain('no WebGPU adapter');
  });

  it('counts the rows measured on a GPU and says the rest are the software adapter\'s', () => {
    const text = gpuStatement(report('swiftshader, vendor google, fallback adapter', ['GPU: nvidia, hopper; the app', 'GPU: nvidia, hopper; direct', 'CPU (WASM); direct']));
    expect(text).toMatch(/^\*\*2 figures are from a GPU/);
    expect(text).toContain('SwiftShader');
  });

  it('is in the rendered report, under the machine table', () => {
    const md = renderMarkdown(report('swiftshader, vendor google, fallback adapter', ['CPU (WASM); direct']));
    expect(md.indexOf('No figure in this report is from a GPU')).toBeGreaterThan(md.indexOf('## Machine'));
    expect(md.indexOf('No figure in this report is from a GPU')).toBeLessThan(md.indexOf('## S'));
  });
});
