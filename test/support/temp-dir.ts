/**
 * Temporary folders for tests and scripts. Every folder made here is deleted,
 * with what was written into it, by `removeTempDirs()`: unit tests call it in
 * `afterEach`/`afterAll`, browser tests get it from the `tempDirs` fixture
 * (test/support/fixtures.ts), so no run leaves files in the OS temp folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set<string>();

/** A new empty folder `<os temp>/neuroeval-<prefix>-XXXXXX`, deleted by {@link removeTempDirs}. */
export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `neuroeval-${prefix}-`));
  made.add(dir);
  return dir;
}

/** Deletes every folder {@link makeTempDir} has made in this process and not yet deleted. */
export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
}
