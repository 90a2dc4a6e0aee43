import { parseMappingOption, parseTaskOption } from '../mapping-option.ts';
import { existsSync } from 'node:fs';
import { readBuildInfo } from '../../../build/build-info.ts';
import { jsonOutputRecord } from '../../core/protocols/json-output.ts';
import { PROTOCOL_IDS } from '../../core/protocols/registry.ts';
import type { BenchCase, Bundle } from '../../core/bundle/types.ts';
import type { RunStatus, ResponseRecord } from '../../core/model/answer.ts';
import { InvalidInputError } from '../../core/errors.ts';
import { getProtocol, protocolFor } from '../../core/protocols/index.ts';
import { answerBudget } from '../../core/protocols/budgets.ts';
import type { RunConfig } from '../../core/runner/config.ts';
import { RunController, memoryRunLock } from '../../core/runner/control.ts';
import { planRun, planSummary, selectCases } from '../../core/runner/plan.ts';
import { AUTO_PROTOCOL, runProtocol } from '../../core/runner/protocol-adapter.ts';
import { buildProvenance, type Provenance } from '../../core/runner/provenance.ts';
import { runRun } from '../../core/runner/runner.ts';
import type { CaseFilters, RunOutcome, RunPlan, RunSpec, Variant } from '../../core/runner/types.ts';
import { parseRunExport, type RunExport } from '../../core/scoring/io/run-export.ts';
import { checkVariants } from '../../core/runner/variants.ts';
import { runtimeOfSpec, specFiles } from '../../core/engines/spec.ts';
import type { CliCommand, CliIo } from '../command.ts';
import { readUnicodeFile } from '../files.ts';
import { parseRunArgs, type RunArgs } from '../run/args.ts';
import { bundleImageLoader, loadBenchmark } from '../run/benchmark.ts';
import { chooseDevice, cliEngineOptionsOf, cliFilesHash, cliModelsOf, createCliEngineFactory, type CliDevice } from '../run/engines.ts';
import { firstDifference, identityOf, runIdOf, type RunIdentity } from '../run/identity.ts';
import { JOURNAL_FORMAT, JournalWriter, journalRunStore, readJournal, type JournalHeader, type JournalState } from '../run/journal.ts';
import { journalExport, journalPathOf, lockOutput, writeRunExport } from '../run/output.ts';
import { ProgressReporter } from '../run/progress.ts';
import { parseShard, shardPlan, type Shard } from '../run/shard.ts';
import { addTally, answerTally, decodeSpeed, NO_DECODE } from '../../core/runner/decode-speed.ts';

const HELP = [
  'Usage: neuroeval run --benchmark <input> --model <model> [--model …] --out <run.json> [options]',
  '',
  'Asks every planned item (case × question × model × variant × sample) with the',
  'same runner, protocols and plan as the app, and writes a run export the app',
  'imports (Results → Import run) and `neuroeval score` scores.',
  '',
  'Every answer is appended to <run.json>.journal.jsonl (fsync\'ed) before the next',
  'request. Run the same command again after a crash, a kill or Ctrl-C: it resumes',
  'from the journal, asking only what is missing; it refuses when the options',
  'describe another run, naming the option that differs.',
  '',
  'Inputs:',
  '  --benchmark <path>   A NeuroEval bundle (.zip or folder) or any input',
  '                       `neuroeval validate` reads; repeat for inputs of several files',
  '  --format <kind>, --mapping <json>, --declared-task <json>   As for `neuroeval validate`',
  '  --model <model>      self-test or demo-trained (bundled with the app), a',
  '                       transformers.js model folder, or <id>=<folder>; repeatable',
  '  --out <file>         The run export to write (required)',
  '',
  'An OpenAI-compatible server (vLLM, Ray Serve, Ollama, llama.cpp server, TGI):',
  '  --endpoint <url>     Its base URL with the API prefix, e.g. http://gpu01:8000/v1',
  '  --endpoint-model <name>  A model it serves (as listed at /models); repeatable',
  '  --api-key-env <VAR>  Send the key held in environment variable VAR (never stored)',
  '  --concurrency <n>    Requests in flight at once (default 1; endpoint models only)',
  '  --timeout <s>        Limit of one request, streamed answer included (default 600)',
  '  --retries <n>        Retries of a request answered 429, 5xx or timed out, with',
  '                       back-off honouring Retry-After (default 4); other 4xx stop',
  '',
  'What to ask:',
  '  --protocol <id>      auto (each case\'s default; the default) or a protocol id',
  '  --variants <v,…>     none, text-only, degrade:<kind>:<1-3> (default none)',
  '  --samples <n>        Answers per item (default 1)',
  '  --temperature <t>    Default 0 (greedy)',
  '  --top-p <p>          Default 1',
  '  --seed <n>           Base seed; sample s uses seed + s (default 42)',
  '  --max-tokens <n>     Answer budget (default: what the protocols need, as in the app)',
  '  --split, --task, --disease-group, --modality <v,…>   Case filters',
  '  --cases <id,…>       Only these cases',
  '  --limit <n>          Only the first n selected cases',
  '  --few-shot           Send the benchmark\'s few-shot exemplars',
  '  --json-output <s>    Ask for JSON output (response_format with the protocol\'s',
  '                       schema): benchmark (default: as each benchmark\'s harness;',
  '                       NeuroVLM-Bench sends none), on, or off. The same under',
  '                       --protocol auto and a named protocol; recorded in the',
  '                       provenance and in every export',
  '  --interleave         Every model answers a case before the next case',
  '',
  'How to run:',
  '  --device <d>         cpu (onnxruntime-node), wasm (onnxruntime-web, as in the',
  '                       browser) or auto: cpu where onnxruntime-node loads (default)',
  '  --shard <i>/<n>      Answer only shard i of n (cases k with k mod n = i - 1);',
  '                       join the outputs with `neuroeval merge`',
  '  --name <text>        The run\'s name in the app',
  '  --max-errors <n>     Failed answers in a row that stop the run (default 5)',
  '  --retry-errors       On resume, ask again the items whose answer failed',
  '  --json               Print a JSON summary on stdout',
  '',
  'Progress goes to stderr: a bar with done/total, ETA and decode speed on a terminal,',
  'a plain line every 10 % otherwise. Exit status: 0 when every item of the run (or',
  'shard) is answered, 1 when it stopped early (failed, or paused after errors),',
  '130 after Ctrl-C (the export then says paused), 2 for a usage error.',
].join('\n');

/** The app's default sampling (Runs page). */
const DEFAULTS = { temperature: 0, topP: 1, seed: 42 } as const;

interface Prepared {
  readonly bundle: Bundle;
  readonly plan: RunPlan;
  readonly config: RunConfig;
  readonly provenance: Provenance;
  readonly runId: string;
  readonly name: string;
  readonly shard: Shard | null;
  readonly device: CliDevice;
  readonly engineFor: ReturnType<typeof createCliEngineFactory>['engineFor'];
}

function filtersOf(a: RunArgs, cases: readonly BenchCase[]): CaseFilters {
  const f: { -readonly [K in keyof CaseFilters]: CaseFilters[K] } = {};
  if (a.splits?.length) f.splits = a.splits;
  if (a.tasks?.length) f.taskFamilies = a.tasks;
  if (a.diseaseGroups?.length) f.diseaseGroups = a.diseaseGroups;
  if (a.modalities?.length) f.modalities = a.modalities;
  if (a.cases?.length) f.caseIds = a.cases;
  if (a.limit !== undefined) f.caseIds = selectCases(cases, f).filter((c) => c.questions.length > 0).slice(0, a.limit).map((c) => c.id);
  return f;
}

/** The answer budget the app's form picks: the largest the selected cases' protocols need. */
function defaultBudget(protocolId: string, cases: readonly BenchCase[], bundle: Bundle): number {
  const fixed = protocolId === AUTO_PROTOCOL ? null : getProtocol(protocolId);
  const ids = fixed ? [fixed.id] : [...new Set(cases.map((c) => protocolFor(c, bundle.manifest.protocolDefaults).id))];
  return ids.length ? Math.max(...ids.map((id) => answerBudget(id))) : answerBudget('');
}

const ENVIRONMENT = () => ({
  userAgent: `neuroeval-cli Node.js ${process.version} (${process.platform} ${process.arch})`,
  crossOriginIsolated: false,
  wasmThreads: null,
  adapter: null,
});

async function prepare(a: RunArgs, io: CliIo): Promise<Prepared> {
  if (a.benchmarks.length === 0) throw new InvalidInputError('give the benchmark with --benchmark <bundle.zip | folder | file>', { field: '--benchmark' });
  if (a.models.length === 0 && a.endpoint === undefined) throw new InvalidInputError('give at least one --model (self-test, demo-trained, or a model folder) or an --endpoint with --endpoint-model', { field: '--model' });
  if (a.protocol !== AUTO_PROTOCOL && !getProtocol(a.protocol)) throw new InvalidInputError(`--protocol: unknown protocol "${a.protocol}"`, { field: '--protocol' });
  const shard = a.shard === undefined ? null : parseShard(a.shard);
  const variants = checkVariants((a.variants ?? ['none']) as Variant[]);
  const device = chooseDevice(a.device);
  const mapping = parseMappingOption(a.mapping);
  const task = parseTaskOption(a.declaredTask);
  const models = cliModelsOf(a);
  const seen = new Set<string>();
  for (const m of models) {
    if (seen.has(m.id)) throw new InvalidInputError(`--model: "${m.id}" is given twice; name one with <id>=<folder>.`, { field: '--model' });
    seen.add(m.id);
  }
  const engines = createCliEngineFactory(models, cliEngineOptionsOf(a, device));

  const bundle = await loadBenchmark({ targets: a.benchmarks, ...(a.format ? { format: a.format } : {}), ...(mapping || task ? { options: { ...(mapping ? { mapping } : {}), ...(task ? { task } : {}) } } : {}) });
  const benchmarkId = bundle.manifest.id;
  const filters = filtersOf(a, bundle.cases);
  const selected = selectCases(bundle.cases, filters).filter((c) => c.questions.length > 0);
  const spec: RunSpec = {
    benchmarkId,
    filters,
    models: models.map((m) => ({ id: m.id, filesHash: cliFilesHash(m) })),
    variants,
    samples: a.samples ?? 1,
    sampling: {
      temperature: a.temperature ?? DEFAULTS.temperature,
      topP: a.topP ?? DEFAULTS.topP,
      seed: a.seed ?? DEFAULTS.seed,
      maxTokens: a.maxTokens ?? defaultBudget(a.protocol, selected, bundle),
    },
    ...(a.interleave ? { interleave: true } : {}),
  };
  const plan = planRun(spec, bundle.cases);
  if (plan.missingCaseIds.length) {
    throw new InvalidInputError(`--cases: the benchmark has no case ${plan.missingCaseIds.slice(0, 5).map((id) => `"${id}"`).join(', ')}${plan.missingCaseIds.length > 5 ? ', …' : ''}`, { field: '--cases' });
  }
  if (plan.items.length === 0) throw new InvalidInputError('The selection holds no questions: widen the filters or pick another benchmark.', { field: 'filters' });
  const jsonOutput = a.jsonOutput ?? 'benchmark';
  const config: RunConfig = { spec, protocolId: a.protocol, fewShot: a.fewShot, engines: engines.specs, jsonOutput };
  const defaults = bundle.manifest.protocolDefaults;
  const protocol = runProtocol(a.protocol, { jsonOutput, ...(defaults ? { defaults } : {}) });
  const build = readBuildInfo(new URL('../../../', import.meta.url).pathname);
  const provenance = buildProvenance({
    app: { version: build.version, commit: build.commit },
    runtimes: engines.runtimes,
    environment: ENVIRONMENT(),
    models: engines.specs.map((e) => ({ id: e.id, label: e.label, runtime: runtimeOfSpec(e), files: specFiles(e) })),
    protocol: { id: protocol.id, version: protocol.version, templateHashes: { [protocol.id]: protocol.templateHash } },
    sampling: spec.sampling,
    samples: plan.samples,
    variants: plan.variants,
    benchmark: { id: benchmarkId, name: bundle.manifest.name, version: bundle.manifest.version, contentHash: bundle.manifest.contentHash },
    selection: filters,
    jsonOutput: jsonOutputRecord(jsonOutput, a.protocol === AUTO_PROTOCOL ? PROTOCOL_IDS : [a.protocol]),
  });
  const runId = runIdOf(identityOf(config, provenance, planSummary(plan)));
  const name = a.name ?? `${bundle.manifest.name} · ${models.map((m) => m.label).join(', ')} (command line)`;
  if (!a.json) io.err.write(`${bundle.manifest.name}: ${plan.counts.cases} case(s), ${plan.counts.items} item(s)${shard ? `; shard ${shard.index}/${shard.count}` : ''} · ${models.map((m) => m.id).join(', ')} on ${device}\n`);
  return { bundle, plan, config, provenance, runId, name, shard, device, engineFor: engines.engineFor };
}

/** Refuses to go on with a journal (or export) of another run, naming what differs. */
function checkSameRun(p: Prepared, h: Pick<JournalHeader, 'identity' | 'shard' | 'run'>, source: string, identity: RunIdentity, shard: JournalHeader['shard']): void {
  const diff = firstDifference(h.identity, identity);
  if (diff) {
    throw new InvalidInputError(
      `${source}: cannot resume: it holds another run (${diff.field} was ${diff.was}, now ${diff.now}). Give the options it was started with, or another --out.`,
      { file: source, field: diff.field },
    );
  }
  const shardDiff = firstDifference(h.shard, shard, 'shard');
  if (shardDiff) {
    const show = (s: JournalHeader['shard']) => (s ? `--shard ${s.index}/${s.count}` : 'no --shard');
    throw new InvalidInputError(`${source}: cannot resume: it was started with ${show(h.shard)}, now ${show(shard)}.`, { file: source, field: 'shard' });
  }
  h.run.config.engines.forEach((e, i) => {
    const now = p.config.engines[i];
    if (e.kind === 'transformers' && now?.kind === 'transformers' && e.device !== now.device) {
      throw new InvalidInputError(`${source}: cannot resume: engines[${i}].device was ${e.device}, now ${now.device}; give --device ${e.device}.`, { file: source, field: `engines[${i}].device` });
    }
  });
}

/**
 * An output written before whose journal is gone (deleted, or the export
 * copied alone to another machine): its answers start a new journal, so they
 * are neither asked again nor overwritten. A file that is not a run export
 * of this run is refused, never replaced.
 */
function headerFromExport(out: string): { header: JournalHeader; answers: ResponseRecord[] } | null {
  if (!existsSync(out)) return null;
  let e: RunExport;
  try {
    e = parseRunExport(readUnicodeFile(out), out);
  } catch (error) {
    throw new InvalidInputError(`${out} exists and is not a run export (${error instanceof Error ? error.message : String(error)}); give another --out, or remove it.`, { file: out, field: '--out' });
  }
  if (!e.provenance || !e.run.config) throw new InvalidInputError(`${out} exists and is not the output of \`neuroeval run\` (no provenance or configuration); give another --out.`, { file: out, field: '--out' });
  const { shard, ...provenance } = e.provenance;
  const header: JournalHeader = {
    kind: 'header',
    format: JOURNAL_FORMAT,
    version: 1,
    run: { id: e.run.id, name: e.run.name, benchmarkId: e.run.benchmarkId, createdAt: e.run.createdAt, config: e.run.config, plan: e.run.plan },
    provenance,
    identity: identityOf(e.run.config, e.provenance, e.run.plan),
    shard: shard ?? null,
  };
  return { header, answers: [...e.responses] };
}

/** Opens the output's journal: resumes one that matches this run, starts one when there is none; refuses one of another run. */
function openJournal(p: Prepared, out: string, journal: string, io: CliIo, quiet: boolean): { state: JournalState; writer: JournalWriter } {
  const identity = identityOf(p.config, p.provenance, planSummary(p.plan));
  const sliced = shardPlan(p.plan, p.shard);
  const shard = p.shard ? { index: p.shard.index, count: p.shard.count, items: sliced.items.length } : null;
  const existing = readJournal(journal);
  if (existing) {
    for (const note of existing.notes) io.err.write(`note: ${note}\n`);
    checkSameRun(p, existing.header, journal, identity, shard);
    if (!quiet) io.err.write(`Resuming from ${journal}: ${existing.answers.size} of ${sliced.items.length} item(s) already answered.\n`);
    return { state: existing, writer: JournalWriter.resume(journal, existing) };
  }
  const previous = headerFromExport(out);
  if (previous) checkSameRun(p, previous.header, out, identity, shard);
  const header: JournalHeader = previous?.header ?? {
    kind: 'header',
    format: JOURNAL_FORMAT,
    version: 1,
    run: { id: p.runId, name: p.name, benchmarkId: p.plan.benchmarkId, createdAt: Date.now(), config: p.config, plan: planSummary(p.plan) },
    provenance: p.provenance,
    identity,
    shard,
  };
  const writer = JournalWriter.create(journal, header);
  const state: JournalState = { header, answers: new Map(), provenance: header.provenance, status: null, notes: [], validBytes: 0 };
  for (const row of previous?.answers ?? []) {
    writer.append({ kind: 'answer', row });
    state.answers.set(row.itemKey, row);
  }
  if (previous && !quiet) io.err.write(`Resuming from ${out} (it has no journal beside it): ${state.answers.size} of ${sliced.items.length} item(s) already answered.\n`);
  return { writer, state };
}

/** The exported status: `done` only when the whole run is answered (a finished shard is a paused run until merged). */
function exportStatus(outcome: RunOutcome | null, state: JournalState, plan: RunPlan, interrupted: boolean): RunStatus {
  const answered = plan.items.filter((i) => state.answers.has(i.itemKey)).length;
  if (answered >= plan.items.length) return 'done';
  if (!outcome || interrupted) return 'paused';
  return outcome.status === 'done' ? 'paused' : outcome.status;
}

/**
 * `neuroeval run`: a run from the command line, headless, with the app's
 * runner core (`runRun`), plan, protocols, cache keys and provenance, over a
 * journal store (run/journal.ts) instead of IndexedDB. Output format: see
 * run/output.ts.
 */
export const runCommand: CliCommand = {
  name: 'run',
  usage: 'run --benchmark <input> --model <m> --out <run.json>',
  summary: 'Run models on a benchmark headless; resumable, shardable, writes a run export',
  help: HELP,
  async run(args, io) {
    let a: RunArgs;
    try {
      a = parseRunArgs(args);
      if (!a.out) throw new InvalidInputError('give the output file with --out <run.json>', { field: '--out' });
    } catch (error) {
      io.err.write(`neuroeval run: ${error instanceof Error ? error.message : String(error)}\n`);
      return 2;
    }
    const out = a.out!;
    const started = Date.now();
    const p = await prepare(a, io);
    const journal = journalPathOf(out);
    const release = lockOutput(journal);
    let writer: JournalWriter | null = null;
    const controller = new RunController();
    let interrupted = false;
    const onSignal = () => {
      if (!interrupted) {
        interrupted = true;
        controller.pause();
        io.err.write('\nStopping after the current answer (press Ctrl-C again to stop at once)…\n');
      } else controller.cancel();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      const opened = openJournal(p, out, journal, io, a.json);
      writer = opened.writer;
      const { state } = opened;
      const plan = shardPlan(p.plan, p.shard);
      const stderr = process.stderr as NodeJS.WriteStream;
      const progress = new ProgressReporter(io.err, { tty: io.err === process.stderr && stderr.isTTY === true, columns: stderr.columns ?? 80 });
      let decoded = NO_DECODE;
      const outcome = await runRun({
        runId: p.runId,
        plan,
        engineFor: p.engineFor,
        protocol: runProtocol(p.config.protocolId, { ...fewShotOf(p), ...(p.bundle.manifest.protocolDefaults ? { defaults: p.bundle.manifest.protocolDefaults } : {}), jsonOutput: p.config.jsonOutput ?? 'benchmark' }),
        store: journalRunStore(state, writer, { retryErrors: a.retryErrors }),
        images: bundleImageLoader(p.bundle),
        lock: memoryRunLock(),
        control: controller,
        ...(a.maxErrors !== undefined ? { maxConsecutiveErrors: a.maxErrors } : {}),
        // Endpoint models only (cliModelsOf refuses more for a local engine): keeps the server's batch full.
        concurrency: a.concurrency ?? 1,
        onProgress: (ev) => {
          const r = ev.latest;
          if (r && !r.reusedFrom) decoded = addTally(decoded, answerTally(r));
          if (!a.json) progress.update(ev);
        },
      });
      if (!a.json) progress.end();
      const status = exportStatus(outcome, state, p.plan, interrupted);
      const now = Date.now();
      writeRunExport(out, journalExport(state, { status, error: outcome.error, updatedAt: now, exportedAt: now, order: p.plan.items.map((i) => i.itemKey), cases: p.bundle.cases }));
      const answered = plan.items.filter((i) => state.answers.has(i.itemKey)).length;
      const errors = plan.items.filter((i) => state.answers.get(i.itemKey)?.finishReason === 'error').length;
      const summary = {
        runId: p.runId,
        out,
        journal,
        status: outcome.status,
        exportStatus: status,
        error: outcome.error,
        shard: p.shard,
        items: plan.items.length,
        answered,
        errors,
        generated: outcome.generated,
        seconds: (now - started) / 1000,
        decodeTps: decodeSpeed(decoded),
        device: p.device,
      };
      if (a.json) io.out.write(`${JSON.stringify(summary, null, 2)}\n`);
      else {
        io.err.write(`${answered}/${plan.items.length} item(s) answered (${outcome.generated} now, ${errors} failed) · ${outcome.status}${outcome.error ? `: ${outcome.error}` : ''}\n`);
        const next = status === 'done'
          ? ''
          : answered >= plan.items.length
            ? `; shard ${p.shard!.index}/${p.shard!.count} is complete: join the shards with \`neuroeval merge\``
            : `; run the same command to resume${p.shard ? ', then `neuroeval merge` the shards' : ''}`;
        io.err.write(`Wrote ${out}${next}\n`);
      }
      if (interrupted) return 130;
      return answered >= plan.items.length ? 0 : 1;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      writer?.close();
      release();
    }
  },
};

function fewShotOf(p: Prepared): { fewShot?: readonly BenchCase[] } {
  if (!p.config.fewShot) return {};
  const ids = p.bundle.manifest.protocolDefaults?.fewShotCaseIds ?? [];
  const fewShot = ids.map((id) => p.bundle.cases.find((c) => c.id === id)).filter((c): c is BenchCase => !!c);
  return fewShot.length ? { fewShot } : {};
}
