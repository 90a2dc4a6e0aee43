/**
 * Where the answers cannot give a figure, the results say which and why, and
 * never print NaN: the benchmark evaluator's NaN figures read "no value" with
 * the reason read from the figures; the leaderboard's and the report's notes
 * name each metric, its models and its reason; an empty failure gallery says
 * answers could not be marked instead of "No wrong answers".
 */
import { describe, expect, it } from 'vitest';
import type { BenchCase } from '../../../../src/core/bundle/types.ts';
import type { ScoreRecord } from '../../../../src/core/scoring/run/records.ts';
import { agreementReport } from '../../../../src/core/results/agreement.ts';
import { benchNoValueNotes, benchNoValueReason } from '../../../../src/core/results/bench-no-value.ts';
import type { ScoredRun } from '../../../../src/core/results/leaderboard.ts';
import { rowModelName } from '../../../../src/core/results/model-names.ts';
import { noValueNotes } from '../../../../src/core/results/no-value.ts';
import { overviewOf, type LoadedResults } from '../../../../src/core/results/overview.ts';
import { buildHtmlReport } from '../../../../src/core/results/report-html.ts';
import { safetyView } from '../../../../src/core/stored/safety.ts';
import type { ResponseRecord } from '../../../../src/core/model/answer.ts';
import { NEUROVLM_BENCH_HEADLINE } from '../../../../src/core/scoring/neurovlm/evaluator/index.ts';
import { scoreRun } from '../../../../src/core/scoring/run/score-run.ts';
import { answer, nvbCase, nvbResponse } from '../scoring/neurovlm/fixtures.ts';

const HEADLINE = NEUROVLM_BENCH_HEADLINE.map((h) => h.key);
const ids = ['p1', 'p2', 'p3', 'p4', 'p5'];
/** Own cases imported with the class mapped as an answer: nothing classification scoring reads. */
const unlabelled: BenchCase[] = ids.map((id) => ({ ...nvbCase(id, {}), questions: [{ id: 'q1', text: 'What is the diagnosis?', reference: { answer: 'Tumour' } }] }));
const labelled: BenchCase[] = ids.map((id) => nvbCase(id, { diagnosis_name: 'tumor' }));
const selfTest = ids.map((id, i) => nvbResponse('r1', i === 0 ? { caseId: id, modelId: 'self-test', parsed: answer({ diagnosis_name: 'stroke', diagnosis_confidence: 0.3 }) } : { caseId: id, modelId: 'self-test', parseError: 'no JSON object' }, i));
const demo = ids.map((id, i) => nvbResponse('r1', { caseId: id, modelId: 'demo-trained', parsed: answer({ diagnosis_name: 'tumor', diagnosis_confidence: 0.9 }) }, 10 + i));

async function loaded(cases: readonly BenchCase[], responses: readonly ResponseRecord[]): Promise<{ data: LoadedResults; answers: Map<string, ResponseRecord> }> {
  const r = await scoreRun({ protocolId: 'auto', cases, responses }, { resamples: 20 });
  const setId = 'r1/v1';
  const run: ScoredRun = {
    run: { id: 'r1', name: 'Own cases', benchmarkId: 'b', status: 'done', createdAt: 1 },
    set: { id: setId, runId: 'r1', version: 1, createdAt: 1, durationMs: 1, config: r.config, summary: r.summary },
    items: r.items.map((it): ScoreRecord => ({ ...it, id: `${setId}|${it.responseId}`, scoreSetId: setId, runId: 'r1' })),
  };
  const data: LoadedResults = {
    benchmark: { id: 'b', name: 'Own cases', version: '1', caseCount: cases.length, contentHash: 'f'.repeat(64) } as never,
    runs: [{ id: 'r1', name: 'Own cases', status: 'done', createdAt: 1, answers: run.items.length, scoreVersion: 1, scoredAt: 1, judge: null, encoder: null, newReviews: 0, reader: null }],
    scored: [run], cases: new Map(cases.map((c) => [c.id, c])), reviews: [], answers: [], signature: '',
  };
  return { data, answers: new Map(responses.map((x) => [x.id, x])) };
}

function report(data: LoadedResults, answers: Map<string, ResponseRecord>, metric: string): string {
  const safety = safetyView(data, answers);
  return buildHtmlReport({
    overview: overviewOf(data), metric, comparisons: [], breakdowns: [], agreement: agreementReport([], []), generatedAt: new Date(0), appVersion: 'test',
    safety: { report: safety.report, gallery: safety.gallery, thumbnails: null },
  });
}

describe("NeuroVLM-Bench's own figures without a value", () => {
  it("say why where the evaluator gives NaN (an AUC with only right answers), and name the evaluator's own failure where it stops", async () => {
    // No ground-truth class, or no successful call: the evaluator itself stops on the file (np.column_stack), so there are no figures to explain.
    const none = (await scoreRun({ protocolId: 'neurovlm-structured', cases: unlabelled, responses: demo }, { resamples: 10 })).summary.neurovlmBench!;
    expect(none.all).toEqual({});
    expect(none.failure?.message).toMatch(/column_stack/);
    const failed = ids.map((id, i) => nvbResponse('r', { caseId: id, callError: 'engine stopped' }, i));
    const noCall = (await scoreRun({ protocolId: 'neurovlm-structured', cases: labelled, responses: failed }, { resamples: 10 })).summary.neurovlmBench!;
    expect(noCall.all).toEqual({});
    expect(noCall.failure).toBeDefined();

    const right = (await scoreRun({ protocolId: 'neurovlm-structured', cases: labelled, responses: demo }, { resamples: 10 })).summary.neurovlmBench!.all['demo-trained']!;
    expect(right.accuracy).toBe(1);
    expect(benchNoValueReason(right, 'json_valid_pct')).toBeNull();
    expect(benchNoValueNotes({ 'demo-trained': right }, HEADLINE)).toEqual([
      { model: 'demo-trained', figures: ['auc'], reason: 'every answer was right, or every answer was wrong: the AUC needs both' },
    ]);
  });
});

describe('the leaderboard notes and the report', () => {
  it('name each metric without a value, its models and the reason, and the report prints no NaN', async () => {
    const { data, answers } = await loaded(unlabelled, [...selfTest, ...demo]);
    const overview = overviewOf(data);
    const notes = noValueNotes(overview.leaderboard.rows, rowModelName);
    expect(notes.map((n) => [n.label, n.models, n.reason])).toEqual([
      ['Class (diagnosis_name)', ['Self-test (random weights)'], expect.stringMatching(/^no case has a reference class \(diagnosis_name\) to score against; 4 of the 5 answers did not parse\./)],
      ['Class (diagnosis_name)', [rowModelName({ modelId: 'demo-trained', variant: 'none' })], expect.stringMatching(/^no case has a reference class \(diagnosis_name\) to score against\./)],
    ]);

    const html = report(data, answers, 'json_valid');
    // NaN appears only where the note says what the benchmark's evaluator gives.
    expect(html.replaceAll('(the evaluator gives NaN)', '')).not.toMatch(/NaN/);
    const note = /<div class="no-value" data-note="no-value"><p>These figures have no value[^]*?<\/div>/.exec(html)?.[0] ?? '';
    expect(note).toContain('<strong>Class (diagnosis_name)</strong> — Self-test (random weights): no case has a reference class (diagnosis_name) to score against; 4 of the 5 answers did not parse.');
    // The failure gallery is empty because nothing could be marked, and says so.
    const failures = html.slice(html.indexOf('<h2>Failures</h2>'), html.indexOf('<h2>', html.indexOf('<h2>Failures</h2>') + 5));
    expect(failures).not.toContain('No wrong answers');
    expect(failures).toContain('that does not mean none was wrong');
    // The benchmark's figures: its evaluator stops on cases without a class, and the report says so instead of printing figures.
    const bench = html.slice(html.indexOf("<h2>NeuroVLM-Bench: the benchmark's own figures</h2>"));
    expect(bench).toContain('stops on this file, so there are no NeuroVLM-Bench figures for it');
  });

  it('are absent once the cases have their class, and the failure gallery lists the wrong answers', async () => {
    const { data, answers } = await loaded(labelled, [...selfTest, ...demo]);
    expect(noValueNotes(overviewOf(data).leaderboard.rows, rowModelName)).toEqual([]);
    const html = report(data, answers, 'neurovlm.diagnosis_name');
    expect(html).not.toContain('data-note="no-value"');
    expect(html).toContain('Self-test (random weights): 5 wrong');
  });
});
