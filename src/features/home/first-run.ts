/**
 * The newcomer's path on Home: try the demo → get a real model → import your
 * cases → run → review → report. Each step's state comes from what is stored,
 * so the list shows what is already done instead of repeating advice.
 */
import { count } from '../../core/text/plural.ts';
import type { BenchmarkRecord } from '../../core/bundle/records.ts';
import type { ModelRecord } from '../../core/models/record.ts';
import type { RunRecord } from '../../core/runner/records.ts';
import { DEMO_SOURCE } from '../../core/demo/source.ts';

/** The first three names, and how many more: "a, b, c and 2 more". */
function firstFew(names: readonly string[]): string {
  return `${names.slice(0, 3).join(', ')}${names.length > 3 ? ` and ${names.length - 3} more` : ''}`;
}

/** What the path reads from the database. */
export interface StoredFacts {
  readonly benchmarks: readonly Pick<BenchmarkRecord, 'id' | 'name' | 'source' | 'synthetic' | 'caseCount'>[];
  /** Models downloaded or imported into this browser. */
  readonly models: readonly Pick<ModelRecord, 'id' | 'label' | 'source'>[];
  /** On-prem OpenAI-compatible servers added on the Models page. */
  readonly endpoints: readonly { readonly model: string; readonly baseUrl: string }[];
  readonly runs: readonly Pick<RunRecord, 'id' | 'benchmarkId' | 'status'>[];
  readonly reviews: number;
  /** Runs with at least one stored score set. */
  readonly scoredRuns: number;
}

/** `ready`: nothing records whether it was done, but everything it needs is there. */
export type StepState = 'done' | 'todo' | 'ready';

export interface PathStep {
  readonly id: 'demo' | 'model' | 'import' | 'run' | 'review' | 'report';
  readonly title: string;
  readonly state: StepState;
  /** One sentence about where this step stands, in the user's terms. */
  readonly detail: string;
  /** Where to act: a route path and its segments. */
  readonly link: { readonly label: string; readonly path: string; readonly params?: readonly string[] };
}


/** The host of an endpoint's address, or the address itself when it is not a URL. */
const hostOf = (url: string) => (URL.canParse(url) ? new URL(url).host : url);


/** The six steps, each with its state read from `facts`. */
export function firstRunPath(facts: StoredFacts): PathStep[] {
  const demo = facts.benchmarks.find((b) => b.source === DEMO_SOURCE);
  const demoRuns = demo ? facts.runs.filter((r) => r.benchmarkId === demo.id) : [];
  // "Your cases": anything that is neither the demo nor drawn by its generator.
  const own = facts.benchmarks.filter((b) => b.source !== DEMO_SOURCE && !b.synthetic);
  const finished = facts.runs.filter((r) => r.status === 'done');
  // The random-weight self-test model checks the wiring; it is not a model to evaluate.
  const models = [...facts.models.filter((m) => m.source !== 'self-test').map((m) => m.label), ...facts.endpoints.map((e) => `${e.model} on ${hostOf(e.baseUrl)}`)];
  const unfinished = facts.runs.length - finished.length;

  return [
    {
      id: 'demo',
      title: 'Try the demo',
      state: demoRuns.length > 0 ? 'done' : 'todo',
      detail: !demo
        ? 'The demo benchmark is not stored in this browser. Load it from Benchmarks.'
        : demoRuns.length > 0
          ? `You ran the demo benchmark (${count(demoRuns.length, 'run')}).`
          : `The demo benchmark (${count(demo.caseCount, 'synthetic case')}) is loaded. Start a run with the bundled demo-trained model to see the whole job in a minute.`,
      link: demo && demoRuns.length === 0 ? { label: 'Start a demo run', path: '/runs', params: ['new', 'demo'] } : { label: 'Open the demo', path: '/benchmarks', ...(demo ? { params: [demo.id] } : {}) },
    },
    {
      id: 'model',
      title: 'Get a real model',
      state: models.length > 0 ? 'done' : 'todo',
      detail:
        models.length > 0
          ? `Ready to run: ${firstFew(models)}.`
          : 'Only the bundled self-test and demo models are here; they are not medical models. Download one from the catalogue or import model files.',
      link: { label: models.length > 0 ? 'Models' : 'Get a model', path: '/models' },
    },
    {
      id: 'import',
      title: 'Import your cases',
      state: own.length > 0 ? 'done' : 'todo',
      detail:
        own.length > 0
          ? `Imported: ${firstFew(own.map((b) => `${b.name} (${count(b.caseCount, 'case')})`))}.`
          : 'Import DICOM, NIfTI or PNG cases with notes, or a Neural-MedBench, NeuroVLM-Bench or VLMEvalKit file. Everything stays in this browser.',
      link: { label: own.length > 0 ? 'Benchmarks' : 'Import cases', path: '/benchmarks' },
    },
    {
      id: 'run',
      title: 'Run the models',
      state: finished.length > 0 ? 'done' : 'todo',
      detail:
        finished.length > 0
          ? `${count(finished.length, 'run')} finished${unfinished ? `, ${unfinished} not finished` : ''}.`
          : unfinished > 0
            ? `${count(unfinished, 'run')} started but not finished: resume from Runs.`
            : 'Choose a benchmark and models, then start a run. Every answer is saved as it arrives.',
      link: { label: facts.runs.length > 0 ? 'Runs' : 'Start a run', path: '/runs' },
    },
    {
      id: 'review',
      title: 'Review the answers',
      state: facts.reviews > 0 ? 'done' : 'todo',
      detail:
        facts.reviews > 0
          ? `${count(facts.reviews, 'review')} recorded.`
          : facts.runs.length > 0
            ? 'A clinician grades the answers of a run, blinded to the model.'
            : 'Once a run has answers, a clinician grades them here, blinded to the model.',
      link: { label: 'Review', path: '/review' },
    },
    {
      id: 'report',
      title: 'Export a report',
      state: facts.scoredRuns > 0 ? 'ready' : 'todo',
      detail:
        facts.scoredRuns > 0
          ? `${facts.scoredRuns === 1 ? '1 run is' : `${facts.scoredRuns} runs are`} scored: download the HTML report or the answers as CSV from Results.`
          : 'Score a finished run on Results, then download the HTML report for your committee.',
      link: { label: 'Results', path: '/results' },
    },
  ];
}
