/**
 * Driving the real app with the demo-trained model on a held-out set drawn
 * by the demo generator: import the bundle, start a run from the Runs page's
 * form, score it, and read the NeuroVLM scorer's figures and the speed of its
 * answers from IndexedDB. Shared by the browser test
 * (test/browser/demo-trained.spec.ts) and the bench (test/bench/suites/demo-trained.ts).
 */
import type { Locator, Page } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { finalizeBundle } from '../../src/core/bundle/finalize.ts';
import { writeBundleZip } from '../../src/core/bundle/zip-write.ts';
import { buildDrawnDraft, type DrawnTask } from '../../src/core/demo/index.ts';
import { confirmImport, openRunForm, runAndScore } from './app-run.ts';
import { makeTempDir } from './temp-dir.ts';

/** The held-out seed (training used 1000 and 1001). */
export const HELD_OUT_SEED = 7;

/** Writes a held-out bundle of `count` drawn cases to a temporary folder (removeTempDirs deletes it); `task` lesion asks them for the main lesion. */
export function heldOutZip(count: number, seed = HELD_OUT_SEED, task: DrawnTask = 'classification'): string {
  const { bundle } = finalizeBundle(buildDrawnDraft(seed, count, task), { inputName: 'held-out' });
  if (!bundle) throw new Error('the drawn bundle did not finalize');
  const file = join(makeTempDir('held-out'), task === 'lesion' ? `neuroeval-demo-lesion-s${seed}.zip` : `neuroeval-demo-s${seed}.zip`);
  writeFileSync(file, writeBundleZip(bundle));
  return file;
}

/**
 * A drawn bundle whose first `exemplars` cases are its NeuroVLM-Bench few-shot
 * exemplars (the run form then offers few-shot), written like {@link heldOutZip}.
 */
export function fewShotZip(count: number, exemplars: number, seed = HELD_OUT_SEED): string {
  const draft = buildDrawnDraft(seed, count);
  const manifest = { ...draft.manifest, id: `${draft.manifest.id}-few-shot`, name: `${draft.manifest.name} with few-shot exemplars`, protocolDefaults: { protocol: 'neurovlm-structured', fewShotCaseIds: draft.cases.slice(0, exemplars).map((c) => c.id) } };
  const { bundle } = finalizeBundle({ ...draft, manifest }, { inputName: 'few-shot' });
  if (!bundle) throw new Error('the drawn bundle did not finalize');
  const file = join(makeTempDir('few-shot'), `neuroeval-demo-few-shot-s${seed}.zip`);
  writeFileSync(file, writeBundleZip(bundle));
  return file;
}

/** Imports a bundle ZIP on the Benchmarks page (already open) and waits for the import to finish. */
export async function importBundle(page: Page, file: string, count: number): Promise<void> {
  await page.getByTestId('import-files').setInputFiles(file);
  await confirmImport(page, count);
}

export interface ArmFigures {
  readonly variant: string;
  /** Plain accuracy of diagnosis_name (NeuroEval's NeuroVLM scorer; the benchmark's evaluator reports balanced accuracy). */
  readonly accuracy: number;
  readonly scored: number;
  readonly jsonValid: number;
  readonly ece: number;
}

export interface RunFigures {
  readonly runId: string;
  readonly arms: readonly ArmFigures[];
  readonly answers: number;
  readonly medianTtftMs: number | null;
  readonly medianDecodeTps: number | null;
  /** From the first stored answer to the last. */
  readonly spanMs: number;
}

export interface DemoRunOptions {
  readonly device: 'wasm' | 'webgpu';
  readonly seed?: number;
  readonly variants?: readonly string[];
  /** Ask again even where an identical request has a stored answer. */
  readonly force?: boolean;
  readonly timeoutMs?: number;
}

/**
 * Opens the Runs page's form with the benchmark whose name holds `benchmark`
 * (by default the held-out set of seed 7) and the demo-trained model (only)
 * on `device` chosen; the caller adds what its run needs and starts it.
 */
export function demoTrainedRunForm(page: Page, url: string, device: 'wasm' | 'webgpu', benchmark = `seed ${HELD_OUT_SEED}`): Promise<Locator> {
  return openRunForm(page, url, benchmark, { device, models: ['demo-trained'] });
}

/** A run of the demo-trained model (only) on the held-out benchmark, scored; its figures. */
export async function runDemoTrained(page: Page, url: string, options: DemoRunOptions): Promise<RunFigures> {
  const form = await demoTrainedRunForm(page, url, options.device, `seed ${options.seed ?? HELD_OUT_SEED}`);
  for (const v of options.variants ?? []) await form.locator(`input[name="variant"][value="${v}"]`).check();
  if (options.force) await form.locator('input[name="force"]').check();
  const runId = await runAndScore(page, form, options.timeoutMs);
  return page.evaluate(async (id) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open('neuroeval');
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const byRun = <T,>(store: string) =>
      new Promise<T[]>((resolve, reject) => {
        const req = db.transaction(store).objectStore(store).index('runId').getAll(id);
        req.onsuccess = () => resolve(req.result as T[]);
        req.onerror = () => reject(req.error);
      });
    type Arm = { variant: string; neurovlm?: { jsonValid: { rate: number }; fields: { diagnosis_name: { scored: number; accuracy: { value: number } } }; calibration: { ece: number } } };
    const sets = await byRun<{ summary: { arms: Arm[] } }>('scoreSets');
    const responses = await byRun<{ createdAt: number; latencyMs: number; usage: { ttftMs: number | null; decodeTps: number | null } }>('responses');
    db.close();
    const median = (xs: number[]) => {
      if (xs.length === 0) return null;
      const s = [...xs].sort((a, b) => a - b);
      const m = Math.floor(s.length / 2);
      return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
    };
    const starts = responses.map((r) => r.createdAt - r.latencyMs);
    return {
      runId: id,
      arms: sets[0]!.summary.arms.map((a) => ({
        variant: a.variant,
        accuracy: a.neurovlm!.fields.diagnosis_name.accuracy.value,
        scored: a.neurovlm!.fields.diagnosis_name.scored,
        jsonValid: a.neurovlm!.jsonValid.rate,
        ece: a.neurovlm!.calibration.ece,
      })),
      answers: responses.length,
      medianTtftMs: median(responses.flatMap((r) => (r.usage.ttftMs === null ? [] : [r.usage.ttftMs]))),
      medianDecodeTps: median(responses.flatMap((r) => (r.usage.decodeTps ? [r.usage.decodeTps] : []))),
      spanMs: Math.max(...responses.map((r) => r.createdAt)) - Math.min(...starts),
    };
  }, runId);
}
