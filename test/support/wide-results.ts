/**
 * A results page as wide as real ones get: two scored runs on the demo
 * benchmark, four models (one run under a long endpoint id, one model in
 * both runs, so its rows carry the run's name), the differential cases
 * answered with ranked hypotheses and the classification cases with
 * NeuroVLM-Bench JSON (every field scored, stated confidences, some answers
 * that do not parse). The leaderboard then has many metric columns, the
 * safety view curves and answers of protocols that name no class, and the
 * report every section. Written to IndexedDB beside the app, then scored by
 * the app itself.
 */
import type { Page } from '@playwright/test';
import { putRows, readStore, seededProvenance } from './app-db.ts';
import { expect, openApp } from './fixtures.ts';

/** Catalogue models (their display names are long) and an endpoint whose id is its name. */
export const WIDE_MODELS = ['demo-trained', 'medgemma-4b-q4', 'smolvlm-256m', 'endpoint:department-mirror-qwen2.5-vl-7b-instruct-awq-long-deployment-name'] as const;

type SeedCase = {
  id: string;
  benchmarkId: string;
  taskFamily: string;
  questions: { id: string; reference?: { diagnosis?: string; labels?: Record<string, string | null> } }[];
};

interface Seeded {
  readonly benchmarkId: string;
  readonly runIds: readonly string[];
}

/** Seeds and scores the two runs; the app must be open on any page with the demo benchmark loaded. */
export async function seedWideResults(page: Page, url: string): Promise<Seeded> {
  const cases = await readStore<SeedCase>(page, 'cases');
  const differential = cases.filter((c) => c.taskFamily === 'differential-diagnosis' && c.questions[0]?.reference?.diagnosis);
  const classification = cases.filter((c) => c.taskFamily === 'classification' && c.questions[0]?.reference?.labels);
  const benchmarkId = differential[0]!.benchmarkId;
  const now = Date.now();
  const usage = (i: number) => ({ promptTokens: 420 + i, completionTokens: 60 + (i % 7) * 9, ttftMs: 900 + (i % 5) * 40, prefillTps: 450, decodeTps: 30 + (i % 4) });
  const runs = [
    { id: 'wide-run-a', name: 'Committee pilot: four local and on-prem models, greedy decoding, original images', models: WIDE_MODELS, cases: [...differential, ...classification] },
    { id: 'wide-run-b', name: 'Repeat of the demo-trained model after the runtime update (same cases, same settings)', models: [WIDE_MODELS[0]], cases: classification },
  ];
  const rows: Record<string, unknown[]> = { runs: [], responses: [] };
  for (const [ri, run] of runs.entries()) {
    const responses = run.cases.flatMap((c, i) =>
      run.models.map((modelId, k) => {
        const q = c.questions[0]!;
        const itemKey = `${c.id}#${q.id}|${modelId}|none|s0`;
        const wrong = (i + k + ri) % 3 === 0;
        let parsed: unknown;
        let parseError: string | null = null;
        if (c.taskFamily === 'classification') {
          const gold = q.reference!.labels!;
          if ((i + k) % 9 === 4) parseError = 'no JSON object found (first "{" to last "}")';
          else parsed = { ...gold, diagnosis_name: wrong ? 'normal' : gold.diagnosis_name, icd10_code: null, severity_score: 0.4, diagnosis_confidence: 0.55 + ((i * 7 + k) % 9) / 20, severity_confidence: 0.5 };
        } else {
          const dx = wrong ? 'Posterior reversible encephalopathy syndrome with haemorrhagic transformation' : q.reference!.diagnosis!;
          parsed = { hypotheses: [{ rank: 1, diagnosis: dx, confidence: 0.6 + ((i + k) % 4) / 10, evidence: 'Bilateral parieto-occipital T2/FLAIR hyperintensities with a thin rim of susceptibility artefact' }] };
        }
        return {
          id: `${run.id}/${itemKey}`, runId: run.id, itemKey, caseId: c.id, questionId: q.id, cacheKey: '', modelId, variant: 'none', sample: 0,
          rawText: parsed ? JSON.stringify(parsed) : 'The image shows a brain MRI slice; I cannot determine the diagnosis with certainty.',
          parsed: parsed ?? null, parseError, usage: usage(i + k), latencyMs: 2400 + (i % 5) * 100, finishReason: 'stop', createdAt: now - 1000 * (run.cases.length - i),
        };
      }),
    );
    const provenance = { ...seededProvenance({ id: benchmarkId }, run.models), startedAt: now - 3_600_000, endedAt: now };
    rows.runs!.push({
      id: run.id, benchmarkId, name: run.name, status: 'done', createdAt: now - 3_700_000 + ri, updatedAt: now, config: null, provenance,
      plan: { cases: run.cases.length, models: run.models.length, variants: 1, samples: 1, items: responses.length },
    });
    rows.responses!.push(...responses);
  }
  await putRows(page, rows);
  for (const run of runs) {
    await openApp(page, url, `#/results/run/${run.id}`);
    await page.reload();
    await page.getByTestId('score-run').click();
    await expect(page.getByTestId('score-summary')).toHaveAttribute('data-version', '1', { timeout: 90_000 });
  }
  return { benchmarkId, runIds: runs.map((r) => r.id) };
}
