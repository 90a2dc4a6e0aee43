/**
 * A run in lm-evaluation-harness's output layout, per model a folder
 * `<model_name_sanitized>/` with `results_<date>.json` and one
 * `samples_<task>_<date>.jsonl` per task (a task per variant), as
 * `lm_eval/loggers/evaluation_tracker.py` writes them with `--log_samples`.
 *
 * Results: `results[task]["<metric>,none"]` is the metric's mean and
 * `"<metric>_stderr,none"` its standard error as lm-eval's `mean` aggregation
 * computes it (sample standard deviation ÷ √n); `configs`, `versions`, `n-shot`,
 * `higher_is_better`, `n-samples`, `config` (model, arguments, seeds) as
 * lm-eval fills them. Samples: one line per question with `doc_id`, `doc`
 * (the question, its case and NeuroEval's ids), `target`, `arguments`
 * (`gen_args_0`: the prompt and generation settings), `resps` (every sample's
 * raw answer), `filtered_resps`, `filter`, `metrics`, the three hashes, and each
 * metric's value (the mean over samples). lm-eval publishes no JSON Schema:
 * the layout follows its writer (docs/formats/lm-eval.md).
 */
import { sha256Hex } from '../../hash/sha256.ts';
import { LOWER_IS_BETTER } from '../../results/leaderboard.ts';
import { armsOf, decidedMetrics, promptText, referenceText, type Arm, type ArmAnswer, type ExportFile, type ExportSource } from './common.ts';

type Json = Record<string, unknown>;

/** lm-eval `GeneralConfigTracker`: `re.sub(r"[\"<>:/|\\?*\[\]]+", "__", model_name)`. */
export function sanitizeModelName(name: string): string {
  return name.replace(/["<>:/|\\?*[\]]+/g, '__');
}

const finite = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x);

/** lm-eval's stderr of a mean: sample standard deviation (ddof 1) over √n; "N/A" below two values, as lm-eval writes it. */
function stderr(values: readonly number[]): number | 'N/A' {
  const n = values.length;
  if (n < 2) return 'N/A';
  const mean = values.reduce((s, v) => s + v, 0) / n;
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1);
  return Math.sqrt(variance / n);
}

function generationKwargs(source: ExportSource): Json {
  const s = source.exported.provenance?.sampling;
  return {
    until: [],
    do_sample: finite(s?.temperature) ? s.temperature > 0 : false,
    ...(finite(s?.temperature) ? { temperature: s.temperature } : {}),
    ...(finite(s?.topP) ? { top_p: s.topP } : {}),
    ...(finite(s?.maxTokens) ? { max_gen_toks: Math.round(s.maxTokens) } : {}),
    ...(finite(s?.seed) ? { seed: Math.round(s.seed) } : {}),
  };
}

const taskOf = (source: ExportSource, arm: Arm) => `neuroeval_${source.exported.run.benchmarkId}${arm.variant === 'none' ? '' : `_${arm.variant}`}`.replace(/[^\w.-]+/g, '_');

interface Doc {
  readonly answers: ArmAnswer[];
}

/** The arm's answers per question, in first-seen order, samples in order. */
function docsOf(arm: Arm): Doc[] {
  const byQuestion = new Map<string, ArmAnswer[]>();
  for (const a of arm.answers) {
    const key = `${a.response.caseId}\u0000${a.response.questionId}`;
    const list = byQuestion.get(key);
    if (list) list.push(a);
    else byQuestion.set(key, [a]);
  }
  return [...byQuestion.values()].map((answers) => ({ answers: answers.sort((x, y) => x.response.sample - y.response.sample) }));
}

function sampleLine(doc: Doc, docId: number, kwargs: Json): Json {
  const first = doc.answers[0]!;
  const prompt = promptText(first.question);
  const target = referenceText(first.question);
  const perSample = doc.answers.map((a) => decidedMetrics(a.score));
  const names = [...new Set(perSample.flatMap((m) => Object.keys(m)))];
  const means: Record<string, number> = {};
  for (const k of names) {
    const vs = perSample.map((m) => m[k]).filter((v): v is number => v !== undefined);
    means[k] = vs.reduce((s, v) => s + v, 0) / vs.length;
  }
  const kase = first.kase;
  const docBody: Json = {
    case_id: first.response.caseId,
    question_id: first.response.questionId,
    question: first.question?.text ?? '',
    ...(first.question?.options?.length ? { options: first.question.options.map((o) => `${o.key}. ${o.text}`) } : {}),
    reference: target,
    ...(kase?.split ? { split: kase.split } : {}),
    ...(kase?.diseaseGroup ? { disease_group: kase.diseaseGroup } : {}),
    ...(kase?.modality ? { modality: kase.modality } : {}),
    neuroeval: {
      caseId: first.response.caseId,
      questionId: first.response.questionId,
      variant: first.response.variant,
      samples: doc.answers.map((a, k) => ({
        sample: a.response.sample, itemKey: a.response.itemKey, responseId: a.response.id, scores: perSample[k],
        ...(a.response.error ? { error: a.response.error } : {}),
      })),
    },
  };
  const resps = doc.answers.map((a) => a.response.rawText);
  const docText = JSON.stringify(docBody, null, 2);
  return {
    doc_id: docId,
    doc: docBody,
    target,
    arguments: { gen_args_0: { arg_0: prompt, arg_1: kwargs } },
    resps: [resps],
    filtered_resps: resps.length === 1 ? resps : [resps],
    filter: 'none',
    metrics: names,
    doc_hash: sha256Hex(docText),
    prompt_hash: sha256Hex(prompt),
    target_hash: sha256Hex(target),
    ...means,
  };
}

/** The lm-eval folders of a run: per model, a results JSON and a samples JSONL per task (variant). */
export function lmEvalFiles(source: ExportSource): ExportFile[] {
  const e = source.exported;
  const p = e.provenance;
  const kwargs = generationKwargs(source);
  // lm-eval's date id: datetime.now().isoformat() (microseconds) with ':' replaced by '-'.
  const stamp = new Date(p?.endedAt ?? e.run.updatedAt).toISOString().replace(/Z$/, '000').replace(/:/g, '-');
  const byModel = new Map<string, Arm[]>();
  for (const arm of armsOf(source)) {
    const list = byModel.get(arm.modelId);
    if (list) list.push(arm);
    else byModel.set(arm.modelId, [arm]);
  }
  const files: ExportFile[] = [];
  for (const [modelId, arms] of byModel) {
    const folder = sanitizeModelName(modelId);
    const results: Json = {};
    const configs: Json = {};
    const versions: Json = {};
    const nShot: Json = {};
    const higher: Json = {};
    const nSamples: Json = {};
    for (const arm of arms) {
      const task = taskOf(source, arm);
      const docs = docsOf(arm);
      const lines = docs.map((d, i) => sampleLine(d, i, kwargs));
      files.push({ path: `${folder}/samples_${task}_${stamp}.jsonl`, data: lines.map((l) => `${JSON.stringify(l)}\n`).join('') });
      const names = [...new Set(lines.flatMap((l) => l.metrics as string[]))];
      const row: Json = { alias: task };
      for (const k of names) {
        const vs = lines.map((l) => l[k]).filter((v): v is number => typeof v === 'number');
        row[`${k},none`] = vs.reduce((s, v) => s + v, 0) / vs.length;
        row[`${k}_stderr,none`] = stderr(vs);
      }
      results[task] = row;
      configs[task] = {
        task,
        dataset_path: `neuroeval:${e.run.benchmarkId}`,
        test_split: 'test',
        doc_to_text: '{{question}}',
        doc_to_target: '{{reference}}',
        description: '',
        target_delimiter: ' ',
        fewshot_delimiter: '\n\n',
        num_fewshot: 0,
        metric_list: names.map((k) => ({ metric: k, aggregation: 'mean', higher_is_better: !LOWER_IS_BETTER.has(k) })),
        output_type: 'generate_until',
        generation_kwargs: kwargs,
        repeats: p?.samples ?? 1,
        should_decontaminate: false,
        metadata: { version: p?.benchmark.version ?? '1', neuroeval: { protocol: p?.protocol.id ?? null, variant: arm.variant, benchmark: p?.benchmark ?? { id: e.run.benchmarkId } } },
      };
      versions[task] = p?.benchmark.version ?? '1';
      nShot[task] = 0;
      higher[task] = Object.fromEntries(names.map((k) => [k, !LOWER_IS_BETTER.has(k)]));
      nSamples[task] = { original: new Set((e.cases ?? []).flatMap((c) => c.questions.map((q) => `${c.id}#${q.id}`))).size || docs.length, effective: docs.length };
    }
    const seed = p?.sampling.seed;
    const out: Json = {
      results,
      group_subtasks: Object.fromEntries(Object.keys(results).map((t) => [t, []])),
      configs, versions, 'n-shot': nShot, higher_is_better: higher, 'n-samples': nSamples,
      config: {
        model: 'neuroeval',
        model_args: `pretrained=${modelId}`,
        batch_size: 1,
        batch_sizes: [],
        device: null,
        use_cache: null,
        limit: null,
        bootstrap_iters: 0,
        gen_kwargs: null,
        random_seed: finite(seed) ? Math.round(seed) : null,
        numpy_seed: null,
        torch_seed: null,
        fewshot_seed: null,
      },
      git_hash: p?.app.commit ?? null,
      date: (p?.startedAt ?? e.run.createdAt) / 1000,
      neuroeval_version: source.appVersion,
      neuroeval: { runId: e.run.id, runName: e.run.name, model: p?.models.find((m) => m.id === modelId) ?? { id: modelId }, ...(p?.imported ? { imported: p.imported } : {}) },
      task_hashes: {},
      model_source: 'neuroeval',
      model_name: modelId,
      model_name_sanitized: folder,
      start_time: (p?.startedAt ?? e.run.createdAt) / 1000,
      end_time: (p?.endedAt ?? e.run.updatedAt) / 1000,
      total_evaluation_time_seconds: String(((p?.endedAt ?? e.run.updatedAt) - (p?.startedAt ?? e.run.createdAt)) / 1000),
    };
    files.push({ path: `${folder}/results_${stamp}.json`, data: `${JSON.stringify(out, null, 2)}\n` });
  }
  return files;
}
