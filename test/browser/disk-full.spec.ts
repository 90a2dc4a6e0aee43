/**
 * A full disk mid-run, on a real (small) disk: the browser's IndexedDB
 * folder is a 48 MiB tmpfs, filled with `fallocate` while a run is going.
 * The run stops with a message that says why and what is kept; while the
 * disk is full the app says it cannot open the database and why; once space
 * is freed, stored runs and benchmarks are all there; and every stored answer
 * is in the backup folder the user chose.
 *
 * Only the IndexedDB folder is on the small disk: with the whole profile on
 * a full disk Chromium itself stops (it cannot write its own state), which
 * no page can prevent. Mounting needs root (CI runs as root); without it the
 * test fails and says so. The folder picker is the one seam faked: the page
 * gets a directory handle whose files land in a host folder, so the app's
 * own backup code (getFileHandle, createWritable, write, close) runs as is.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type BrowserContext } from '@playwright/test';
import { CHROMIUM_ARGS } from '../../scripts/chromium.ts';
import { startServer } from '../../scripts/serve.mjs';
import { readStore } from '../support/app-db.ts';
import { DIST, chromiumPath, expect, openApp, test } from '../support/fixtures.ts';
import { makeTempDir } from '../support/temp-dir.ts';

function mountSmallDisk(dir: string, mib: number): void {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${mib}m`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (e) {
    throw new Error(`This test needs a small disk: mounting a ${mib} MiB tmpfs failed (run it as root): ${String((e as { stderr?: Buffer }).stderr ?? e)}`, { cause: e });
  }
}

/** Fills the disk, leaving `leave` bytes. */
function fill(dir: string, leave: number): void {
  const avail = Number(execFileSync('df', ['-B1', '--output=avail', dir]).toString().trim().split('\n').at(-1));
  execFileSync('fallocate', ['-l', String(Math.max(1, avail - leave)), join(dir, 'filler')]);
}

test('a full disk stops the run cleanly; runs and benchmarks survive; the backup folder holds every stored answer', async () => {
  test.setTimeout(300_000);
  const root = makeTempDir('disk-full');
  const profile = join(root, 'profile');
  const idb = join(profile, 'Default', 'IndexedDB');
  const backup = join(root, 'backup');
  mkdirSync(idb, { recursive: true });
  mkdirSync(backup);
  mountSmallDisk(idb, 48);
  const server = await startServer({ root: DIST });
  let context: BrowserContext | undefined;
  try {
    const executablePath = chromiumPath();
    context = await chromium.launchPersistentContext(profile, {
      ...(executablePath ? { executablePath } : {}),
      args: CHROMIUM_ARGS,
      headless: true,
      viewport: { width: 1280, height: 800 },
    });
    // The folder picker: a directory handle whose files are written to `backup` on the host.
    await context.exposeFunction('__writeBackup', (name: string, text: string) => writeFileSync(join(backup, name.replace(/[/\\]/g, '_')), text));
    await context.addInitScript(() => {
      const w = window as unknown as { showDirectoryPicker: () => Promise<unknown>; __writeBackup: (n: string, t: string) => Promise<void> };
      w.showDirectoryPicker = async () => ({
        name: 'USB backup',
        kind: 'directory',
        getFileHandle: async (name: string) => ({
          createWritable: async () => {
            let text = '';
            return { write: async (d: string) => void (text += d), close: () => w.__writeBackup(name, text) };
          },
        }),
        queryPermission: async () => 'granted',
        requestPermission: async () => 'granted',
      });
    });
    const page = context.pages()[0] ?? (await context.newPage());
    await openApp(page, server.url, '#/benchmarks');
    await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 60_000 });

    // The user chooses a backup folder.
    await page.goto(`${server.url}#/settings`);
    await page.getByTestId('backup-choose').click();
    await expect(page.getByTestId('backup-state')).toContainText('Backups go to the folder USB backup');

    // A first, finished run.
    const startRun = async (families: string[]) => {
      await page.goto(`${server.url}#/runs`);
      const form = page.getByTestId('new-run');
      await expect(form.getByTestId('run-plan')).toContainText('requests');
      await expect(form.getByTestId('run-storage')).toContainText('the folder "USB backup" receives this run\'s answers as they come');
      await form.locator('select[name="device"]').selectOption('wasm');
      for (const f of families) await form.locator('[data-facet="taskFamily"] label', { hasText: f }).locator('input').check();
      await form.getByRole('button', { name: 'Start the run' }).click();
    };
    await startRun(['classification']);
    await expect(page.getByTestId('run-status')).toHaveText('done', { timeout: 120_000 });
    const firstRun = page.url();

    // A second run: the disk fills once it has stored a few answers.
    await startRun(['classification', 'differential-diagnosis', 'multi-turn']);
    await expect(page.getByTestId('run-count')).toHaveText(/^([3-9]|\d\d+) of \d+$/, { timeout: 120_000 });
    // 16 KiB left: a few more answers at most, however slowly the machine answers (64 KiB took over two minutes on a busy one).
    fill(idb, 16 * 1024);
    const error = page.getByTestId('run-error');
    // Which the app meets first is a race: its own write refused for lack of space, or the browser closing the database
    // because a write (its own background compaction included) hit the full disk. Either way the message names the disk.
    await expect(error).toContainText(
      /Stopped: the (disk is full, and the browser refused to store the next answer|browser closed the database, as it does when it cannot write to the disk \(most often because the disk is full\))\./,
      { timeout: 120_000 },
    );
    await expect(error).toContainText(/\d+ of \d+ answers are stored and kept/);
    await expect(page.getByTestId('run-status')).not.toHaveText('running');

    // While the disk is full the browser cannot even open the database: the app says so, and what to do.
    await page.reload();
    await page.waitForSelector('html[data-ready="true"]');
    await expect(page.getByRole('alert').first()).toContainText('The disk may be full: free space on it and reload the page. Stored data is not deleted by this.');
    // With space freed, nothing stored is gone, and nothing says it is.
    rmSync(join(idb, 'filler'));
    await page.reload();
    await page.waitForSelector('html[data-ready="true"]');
    await page.goto(`${server.url}#/benchmarks`);
    await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)');
    await expect(page.getByTestId('data-missing')).toHaveCount(0);
    const runs = await readStore<{ id: string; status: string }>(page, 'runs');
    expect(runs).toHaveLength(2);
    await page.goto(firstRun);
    await expect(page.getByTestId('run-status')).toHaveText('done');

    // Every stored answer is in the backup folder.
    const stored = await readStore<{ runId: string; itemKey: string }>(page, 'responses');
    expect(stored.length).toBeGreaterThan(3);
    const files = readdirSync(backup);
    expect(files).toHaveLength(2);
    const backedUp = new Set(files.flatMap((f) => (JSON.parse(readFileSync(join(backup, f), 'utf8')) as { responses: { runId: string; itemKey: string }[] }).responses.map((r) => `${r.runId} ${r.itemKey}`)));
    const missing = stored.filter((r) => !backedUp.has(`${r.runId} ${r.itemKey}`));
    expect(missing).toEqual([]);
  } finally {
    await context?.close();
    await server.close();
    try {
      execFileSync('umount', [idb]);
    } catch {
      // Already unmounted.
    }
    rmSync(root, { recursive: true, force: true });
  }
});

test('data that vanished since the last visit is reported at start-up, once', async ({ page, server }) => {
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 60_000 });
  await expect(page.getByTestId('data-missing')).toHaveCount(0);
  // What the record says this browser held before the browser deleted the site's storage.
  await page.evaluate(() => localStorage.setItem('neuroeval.storedData', JSON.stringify({ benchmarks: 2, runs: 3, answers: 120, at: '2026-11-20T10:00:00.000Z' })));
  await page.reload();
  const notice = page.getByTestId('data-missing');
  await expect(notice).toContainText('this browser held 2 benchmarks, 3 runs and 120 answers for NeuroEval');
  await expect(notice).toContainText('Now 1 benchmark, 3 runs and 120 answers of them are gone.');
  await notice.getByRole('button', { name: 'I have read this' }).click();
  await expect(notice).toHaveCount(0);
  await page.reload();
  await page.waitForSelector('html[data-ready="true"]');
  await expect(page.getByTestId('data-missing')).toHaveCount(0);
});
