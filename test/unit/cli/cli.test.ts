import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { makeTempDir, removeTempDirs } from '../../support/temp-dir.ts';

afterEach(removeTempDirs);

function capture() {
  let out = '';
  let err = '';
  return { io: { out: { write: (t: string) => (out += t) }, err: { write: (t: string) => (err += t) } }, out: () => out, err: () => err };
}

const BIN = new URL('../../../bin/neuroeval.js', import.meta.url).pathname;

describe('neuroeval CLI', () => {
  it('prints help listing its commands', async () => {
    const c = capture();
    expect(await main(['--help'], c.io)).toBe(0);
    expect(c.out()).toContain('Usage: neuroeval <command>');
    expect(c.out()).toMatch(/hash <file…>/);
  });

  it('rejects an unknown command with exit code 2', async () => {
    const c = capture();
    expect(await main(['frobnicate'], c.io)).toBe(2);
    expect(c.err()).toContain('unknown command "frobnicate"');
  });

  it('hashes files with the app\'s streaming SHA-256', async () => {
    const dir = makeTempDir('cli');
    const file = join(dir, 'weights.bin');
    const bytes = Buffer.alloc(5 * 1024 * 1024 + 17, 7);
    writeFileSync(file, bytes);
    const c = capture();
    expect(await main(['hash', file, '--json'], c.io)).toBe(0);
    const [row] = JSON.parse(c.out()) as { sha256: string; bytes: number; name: string }[];
    expect(row).toMatchObject({ name: 'weights.bin', bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
  });

  it('names the file that cannot be read', async () => {
    const c = capture();
    expect(await main(['hash', '/nonexistent/model.onnx'], c.io)).toBe(1);
    expect(c.err()).toContain('/nonexistent/model.onnx');
  });

  it('runs as the installed bin script', () => {
    const out = execFileSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' });
    expect(out).toContain('NeuroEval');
    const version = spawnSync(process.execPath, [BIN, '--version'], { encoding: 'utf8' });
    expect(version.status).toBe(0);
    expect(version.stdout).toMatch(/^neuroeval \d+\.\d+\.\d+/);
  });
});
