/**
 * The safety view and failure gallery on a real run: the demo-trained model
 * answers a held-out drawn set (normal controls among its five classes), on
 * the images and text-only, so both arms make mistakes and some on normal
 * controls. The page's false-finding and missed-abnormality counts must be
 * those of the stored answers, the gallery must show wrong answers with their
 * image, most confident first, and the HTML report must carry the "Safety"
 * and "Failures" sections, with images as data: URLs or, when left out, none.
 */
import { readFileSync } from 'node:fs';
import { expect, openApp, test } from '../support/fixtures.ts';
import { readStore } from '../support/app-db.ts';
import { heldOutZip, importBundle, runDemoTrained } from '../support/demo-trained-run.ts';

interface Row { runId: string; responseId: string; caseId: string; variant: string; scoreSetId: string; primary: string | null; metrics: Record<string, { value: number | null }>; confidence: number | null }
interface Response { id: string; runId: string; variant: string; parsed: unknown; parseError: string | null }
interface Case { id: string; benchmarkId: string; questions: { reference?: { labels?: Record<string, string | null> } }[] }

const classOf = (v: unknown): 'normal' | 'abnormal' | null => (typeof v !== 'string' || v.trim() === '' ? null : v.trim().toLowerCase() === 'normal' ? 'normal' : 'abnormal');

test('the safety view counts what the stored answers say; the gallery shows confident mistakes with images; the report has both sections', async ({ page, server }) => {
  test.setTimeout(600_000);
  const cases = 20;
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  await importBundle(page, heldOutZip(cases), cases);
  const run = await runDemoTrained(page, server.url, { device: 'wasm', variants: ['text-only'] });
  // A second run that sees every image inverted (the transformers worker's test-only switch) names wrong classes.
  const worker = page.workers().find((w) => /transformers/.test(w.url()));
  expect(worker, 'the transformers worker is running').toBeDefined();
  await worker!.evaluate(() => {
    (globalThis as unknown as { neuroevalDiagnostics: { imageTransform: string | null } }).neuroevalDiagnostics.imageTransform = 'invert';
  });
  const inverted = await runDemoTrained(page, server.url, { device: 'wasm', force: true });
  const arms = [[run.runId, 'none'], [run.runId, 'text-only'], [inverted.runId, 'none']] as const;

  await page.getByRole('link', { name: '← Benchmark results' }).click();
  const safety = page.getByTestId('safety');
  // The section reads the answers when it comes near the screen.
  await safety.scrollIntoViewIfNeeded();
  await expect(safety.getByTestId('safety-arms')).toBeVisible({ timeout: 60_000 });

  // What the stored answers say, computed here from IndexedDB.
  const [rows, responses, stored] = await Promise.all([readStore<Row>(page, 'scores'), readStore<Response>(page, 'responses'), readStore<Case>(page, 'cases')]);
  const runIds = new Set([run.runId, inverted.runId]);
  const own = rows.filter((r) => runIds.has(r.runId));
  const reference = new Map(stored.map((c) => [c.id, classOf(c.questions[0]?.reference?.labels?.diagnosis_name)]));
  const answered = new Map(responses.filter((r) => runIds.has(r.runId)).map((r) => [r.id, r.parseError === null && r.parsed && typeof r.parsed === 'object' ? classOf((r.parsed as Record<string, unknown>).diagnosis_name) : null]));
  expect([...reference.values()].filter((c) => c === 'normal').length, 'the held-out set has normal controls').toBeGreaterThan(0);

  let anyFinding = false;
  for (const [runId, variant] of arms) {
    const arm = own.filter((r) => r.runId === runId && r.variant === variant);
    expect(arm.length).toBe(cases);
    const readable = (want: 'normal' | 'abnormal') => arm.filter((r) => reference.get(r.caseId) === want && answered.get(r.responseId) !== null);
    const normals = readable('normal');
    const abnormals = readable('abnormal');
    const findings = normals.filter((r) => answered.get(r.responseId) === 'abnormal').length;
    const missed = abnormals.filter((r) => answered.get(r.responseId) === 'normal').length;
    anyFinding ||= findings + missed > 0;
    const row = safety.getByTestId('safety-arms').locator(`tr[data-arm="${runId}|demo-trained${variant === 'none' ? '' : ` [${variant}]`}"]`);
    await expect(row.getByTestId('false-finding')).toHaveAttribute('data-count', String(findings));
    await expect(row.getByTestId('false-finding')).toHaveAttribute('data-n', String(normals.length));
    await expect(row.getByTestId('missed-abnormality')).toHaveAttribute('data-count', String(missed));
    await expect(row.getByTestId('missed-abnormality')).toHaveAttribute('data-n', String(abnormals.length));
    await expect(row.getByTestId('false-finding')).toContainText(normals.length ? `(${findings}/${normals.length})` : 'no cases');
    // Answers with no class (text-only answers abstain) are counted apart, not as findings.
    const unreadable = (want: 'normal' | 'abnormal') => arm.filter((r) => reference.get(r.caseId) === want && answered.get(r.responseId) === null).length;
    await expect(row.getByTestId('unreadable')).toHaveText(`${unreadable('normal')} / ${unreadable('abnormal')}`);
  }
  expect(anyFinding, 'answers on inverted images make false findings or miss abnormalities').toBe(true);
  await expect(safety.getByTestId('safety-groups').locator('tr[data-group="normal"]')).toBeVisible();
  await expect(safety.getByTestId('risk-coverage').locator('svg')).toBeVisible();

  // The gallery: wrong answers only, each with its image, most confident first.
  const wrong = new Set(own.filter((r) => r.primary && r.metrics[r.primary]?.value === 0).map((r) => r.caseId));
  const gallery = page.getByTestId('failures');
  const cards = gallery.getByTestId('failure-card');
  await expect(cards.first()).toBeVisible();
  for (const card of await cards.all()) {
    expect(wrong.has((await card.getAttribute('data-case'))!)).toBe(true);
    await expect(card.locator('img')).toHaveJSProperty('complete', true);
    expect(await card.locator('img').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  }
  for (const list of await gallery.getByTestId('failure-gallery').all()) {
    const shown = (await list.getByTestId('failure-card').allInnerTexts()).map((t) => Number(/confidence (\d+)%/.exec(t)?.[1] ?? -1));
    expect(shown).toEqual([...shown].sort((a, b) => b - a));
  }

  // The report: both sections after the criteria, images as data: URLs; none when left out.
  const [withImages] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-html').click()]);
  const html = readFileSync(await withImages.path(), 'utf8');
  expect(html).toContain('<h2>Safety</h2>');
  expect(html).toContain('<h2>Failures</h2>');
  expect(html).toContain("img-src data:");
  const images = [...html.matchAll(/<img src="([^"]*)"/g)].map((m) => m[1]!);
  expect(images.length).toBeGreaterThan(0);
  for (const src of images) {
    expect(src.startsWith('data:image/png;base64,')).toBe(true);
    // Downscaled: the PNG's IHDR width and height fit 160 px.
    const png = Buffer.from(src.slice('data:image/png;base64,'.length), 'base64');
    expect(Math.max(png.readUInt32BE(16), png.readUInt32BE(20))).toBeLessThanOrEqual(160);
  }

  await page.getByTestId('report-no-images').check();
  const [without] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-html').click()]);
  const bare = readFileSync(await without.path(), 'utf8');
  expect(bare).toContain('<h2>Safety</h2>');
  expect(bare).toContain('<h2>Failures</h2>');
  expect(bare).toContain('Images were left out of this report.');
  expect(bare).not.toContain('<img');
});
