/**
 * The new-run form's state: what the user chose (benchmark, cases, models,
 * device, protocol, template edits, variants, sampling, criteria) and what
 * follows from it (the plan, its time estimate, the answer budgets, the
 * prompt preview, the warnings). The component renders it and wires inputs;
 * everything here is tested without a page
 * (test/unit/features/runs/new-run-manager.test.ts).
 *
 * Storage comes in through functions (the page's live queries and the
 * repositories), so the manager never copies what storage holds.
 */
import type { BenchmarkRecord, CaseRecord } from '../../core/bundle/records.ts';
import type { BenchCase } from '../../core/bundle/types.ts';
import type { Repositories } from '../../core/db/index.ts';
import type { WebLlmSpec } from '../../core/engines/spec.ts';
import type { ModelRecord } from '../../core/models/record.ts';
import { answerBudget } from '../../core/protocols/budgets.ts';
import { PROTOCOLS, declaredTemplate, neuroVlmProtocol, protocolFor, type PromptTemplate } from '../../core/protocols/index.ts';
import type { JsonOutputSetting } from '../../core/protocols/json-output.ts';
import { protocolName } from '../../core/protocols/names.ts';
import { dimensionsFor } from '../../core/results/breakdowns.ts';
import { estimateRun, planRun, planWorkloads, selectCases, type CaseFilters, type RunSpec, type Variant } from '../../core/runner/index.ts';
import { AUTO_PROTOCOL, paraphraseRefusal, runProtocol, runTemplates } from '../../core/runner/protocol-adapter.ts';
import type { RunConfig } from '../../core/runner/config.ts';
import { turnImages, turnText } from '../../core/chat/turn.ts';
import { toSet, type CriterionDraft } from '../criteria/criteria-form.ts';
import type { EndpointConfig } from '../models/endpoints.ts';
import { estimateBasis } from './estimate-text.ts';
import { abilityWarnings, engineConfigs, facetValues, modelChoices, questionsPerProtocol } from './new-run.ts';
import { presetFilters, type RunPreset } from './presets.ts';
import { speedRecords, type SpeedBasis } from './speed-records.ts';

export type Device = 'webgpu' | 'wasm';
export const FACETS = ['split', 'taskFamily', 'diseaseGroup', 'modality'] as const;
export type Facet = (typeof FACETS)[number];
type FacetFilters = Record<Facet, string[]>;

const noFilters = (): FacetFilters => ({ split: [], taskFamily: [], diseaseGroup: [], modality: [] });
const toggled = <T>(list: readonly T[], value: T): T[] => (list.includes(value) ? list.filter((v) => v !== value) : [...list, value]);

/** What the form reads from outside: the stored benchmarks and models (live), the repositories, the models already loaded per device. */
export interface NewRunSources {
  readonly benchmarks: () => readonly BenchmarkRecord[] | undefined;
  readonly models: () => readonly ModelRecord[] | undefined;
  readonly repos: () => Promise<Repositories>;
  /** Models already in memory on a device: their estimate needs no load time. */
  readonly warmOn: (device: Device) => ReadonlySet<string>;
}

/** A run as the form asks for it: its name and its configuration, plain (ready to post to a worker). */
export interface NewRunRequest {
  readonly name: string;
  readonly config: RunConfig;
}

export class NewRunManager {
  benchmarkId = $state('');
  cases = $state.raw<CaseRecord[]>([]);
  filters = $state<FacetFilters>(noFilters());
  /** Acceptance criteria written before the run: locked with it (their hash goes into its provenance). */
  criteria = $state<CriterionDraft[]>([]);
  selectedModels = $state<string[]>(['self-test']);
  endpoints = $state.raw<EndpointConfig[]>([]);
  webllm = $state.raw<WebLlmSpec[]>([]);
  device = $state<Device>('wasm');
  /** Why the default device was chosen (a software WebGPU adapter means WASM). */
  deviceReason = $state('');
  /** The one processor setting a run may change: VLMs see each image whole instead of cut into tiles (recorded in provenance). */
  wholeImages = $state(false);
  protocolId = $state(AUTO_PROTOCOL);
  fewShot = $state(false);
  jsonOutput = $state<JsonOutputSetting>('benchmark');
  variants = $state<Variant[]>(['none']);
  samples = $state(1);
  temperature = $state(0);
  topP = $state(1);
  seed = $state(42);
  /** The answer budget the user typed; null = each protocol's own (see src/core/protocols/budgets.ts). */
  budgetOverride = $state<number | null>(null);
  force = $state(false);
  name = $state('');
  editedSystem = $state<string | null>(null);
  editedUser = $state<string | null>(null);
  speeds = $state.raw<Record<string, SpeedBasis>>({});
  error = $state<string | null>(null);
  busy = $state(false);
  /** The user chose a device: the WebGPU probe must not override it when it answers late. */
  #deviceChosen = false;
  /** The preset's benchmark, once; null when there is no preset or it was applied. */
  #pendingPreset = $state.raw<RunPreset | null>(null);

  readonly benchmark = $derived.by(() => this.sources.benchmarks()?.find((b) => b.id === this.benchmarkId));
  /** The benchmark's protocol defaults: its declared task decides protocols and prompt. */
  readonly defaults = $derived(this.benchmark?.manifest.protocolDefaults);
  readonly choices = $derived.by(() => modelChoices(this.sources.models() ?? [], this.endpoints, this.webllm));
  readonly chosen = $derived(this.choices.filter((c) => this.selectedModels.includes(c.id)));
  readonly criteriaDimensions = $derived(dimensionsFor(this.cases));
  readonly criteriaGroups = $derived(Object.fromEntries(FACETS.map((k) => [k, facetValues(this.cases, k)])));
  readonly fewShotCount = $derived(this.benchmark?.manifest.protocolDefaults?.fewShotCaseIds?.length ?? 0);
  readonly hasFewShot = $derived(this.fewShotCount > 0);
  readonly filterSpec = $derived.by((): CaseFilters => {
    const f: { -readonly [K in keyof CaseFilters]: CaseFilters[K] } = {};
    if (this.filters.split.length) f.splits = this.filters.split;
    if (this.filters.taskFamily.length) f.taskFamilies = this.filters.taskFamily;
    if (this.filters.diseaseGroup.length) f.diseaseGroups = this.filters.diseaseGroup;
    if (this.filters.modality.length) f.modalities = this.filters.modality;
    return f;
  });
  readonly selectedCases = $derived(selectCases(this.cases, this.filterSpec));
  readonly fixedProtocol = $derived(this.protocolId === AUTO_PROTOCOL ? null : PROTOCOLS[this.protocolId as keyof typeof PROTOCOLS]);
  /** The template an edit starts from: the benchmark's declared prompt where it is this protocol's, else the protocol's own. */
  readonly baseTemplate = $derived.by(() => {
    const p = this.fixedProtocol;
    if (!p) return null;
    const declared = this.defaults?.task ? declaredTemplate(this.defaults.task) : null;
    return declared?.protocolId === p.id ? declared.template : p.templates[0];
  });
  /** The edited template, under its protocol's id; undefined while nothing is edited. */
  readonly templates = $derived.by((): Record<string, PromptTemplate> | undefined => {
    const p = this.fixedProtocol;
    const base = this.baseTemplate;
    if (!p || !base || (this.editedSystem === null && this.editedUser === null)) return undefined;
    const t: PromptTemplate = { ...base, version: `${base.version}+edited`, ...(this.editedSystem !== null ? { system: this.editedSystem } : {}), ...(this.editedUser !== null ? { user: this.editedUser } : {}) };
    return { [p.id]: t };
  });
  /** The templates the run will ask with: the benchmark's declared prompt, and the user's edit over it. */
  readonly runTemplates = $derived(runTemplates(this.templates, this.defaults).templates);
  // The paraphrase probe has no wording for an edited or declared template: the run is refused rather than probing nothing.
  readonly paraphraseProblem = $derived(paraphraseRefusal(this.variants, this.templates, this.defaults));
  /** Each case's protocol: the chosen one, or under `auto` the case's own (speed records keep item times per protocol). */
  readonly protocolIdOf = $derived((c: BenchCase) => this.fixedProtocol?.id ?? protocolFor(c, this.defaults).id);
  /** The protocols the selected cases will be asked under, with their answer budgets, largest first. */
  readonly budgets = $derived.by(() => {
    const ids = this.fixedProtocol ? [this.fixedProtocol.id] : this.selectedCases.map(this.protocolIdOf).filter((id, i, all) => all.indexOf(id) === i);
    return ids.map((id) => ({ id, label: protocolName(id), tokens: answerBudget(id) })).sort((a, b) => b.tokens - a.tokens);
  });
  // One budget for the run: the largest its protocols need (a model stops at its end of answer well before it).
  readonly maxTokens = $derived(this.budgetOverride ?? this.budgets[0]?.tokens ?? answerBudget(''));
  readonly cannotAnswer = $derived(abilityWarnings(this.chosen, questionsPerProtocol(this.selectedCases, this.protocolIdOf)));
  // Only the NeuroVLM-Bench protocol sends exemplars; the choice is offered where the selected cases are asked under it.
  readonly offersFewShot = $derived(this.budgets.some((b) => b.id === neuroVlmProtocol.id));
  readonly spec = $derived.by(
    (): RunSpec => ({
      benchmarkId: this.benchmarkId,
      filters: this.filterSpec,
      models: this.selectedModels.map((id) => ({ id, filesHash: '' })),
      variants: this.variants,
      samples: this.samples,
      sampling: { temperature: this.temperature, topP: this.topP, seed: this.seed, maxTokens: this.maxTokens },
    }),
  );
  readonly plan = $derived(this.cases.length && this.selectedModels.length && this.variants.length ? planRun(this.spec, this.cases) : null);
  readonly estimate = $derived.by(() => {
    if (!this.plan) return null;
    const protocol = runProtocol(this.protocolId, { ...(this.templates ? { templates: this.templates } : {}), ...(this.defaults ? { defaults: this.defaults } : {}) });
    const workloads = planWorkloads(this.plan, { protocol, protocolIdOf: this.protocolIdOf, fewShot: this.fewShot && this.hasFewShot });
    return estimateRun(workloads, { budget: this.maxTokens, records: this.speeds, warm: this.sources.warmOn(this.device) });
  });
  readonly estimateBasis = $derived(this.estimate ? estimateBasis(this.estimate, this.speeds, (id) => this.labelOf(id), this.device) : '');
  /** The first request of the plan as the model will see it: roles, text, how many images. */
  readonly preview = $derived.by(() => {
    const first = this.plan?.cases[0];
    const q = first?.questions[0];
    if (!first || !q) return null;
    const p = this.fixedProtocol ?? protocolFor(first, this.defaults);
    const template = this.runTemplates?.[p.id];
    const req = p.buildRequest(first, q, { textOnly: this.variants.length === 1 && this.variants[0] === 'text-only', ...(template ? { template } : {}) });
    return { protocol: p.label, caseId: first.id, messages: req.messages.map((m) => ({ role: m.role, text: turnText(m), images: turnImages(m).length })), hash: req.template.hash };
  });

  constructor(
    private readonly sources: NewRunSources,
    preset: RunPreset | null = null,
  ) {
    this.#pendingPreset = preset;
  }

  labelOf(modelId: string): string {
    return this.choices.find((c) => c.id === modelId)?.label ?? modelId;
  }

  /** The probe's default device; a device the user already chose stays. */
  defaultDevice(choice: { device: Device; reason: string }): void {
    this.deviceReason = choice.reason;
    if (!this.#deviceChosen) this.device = choice.device;
  }
  chooseDevice(device: Device): void {
    this.#deviceChosen = true;
    this.device = device;
  }

  /**
   * The stored benchmarks changed (or arrived): the preset's benchmark is
   * chosen once it is there, with the preset's models, protocol and name;
   * otherwise the first benchmark when none is chosen yet.
   */
  benchmarksChanged(list: readonly BenchmarkRecord[] | undefined): void {
    if (!list?.length) return;
    const preset = this.#pendingPreset;
    const wanted = preset ? list.find((b) => preset.benchmark(b)) : undefined;
    if (wanted && preset) {
      this.benchmarkId = wanted.id;
      this.selectedModels = [...preset.models];
      this.protocolId = preset.protocolId;
      this.name = preset.name;
    } else {
      if (!this.benchmarkId) this.benchmarkId = list[0]!.id;
      this.#pendingPreset = null;
    }
  }

  /** Reads the chosen benchmark's cases; the filters start empty, or as a pending preset sets them. */
  async loadCases(): Promise<void> {
    const id = this.benchmarkId;
    if (!id) return;
    const cases = await (await this.sources.repos()).cases.listByBenchmark(id);
    if (id !== this.benchmarkId) return; // another benchmark was chosen meanwhile
    this.cases = cases;
    const preset = this.#pendingPreset;
    this.filters = preset ? presetFilters(preset, cases) : noFilters();
    this.#pendingPreset = null;
  }

  /** Reads the speeds measured for the chosen models on the chosen device (the estimate's basis). */
  async loadSpeeds(): Promise<void> {
    const ids = [...this.selectedModels];
    const device = this.device;
    const speeds = await speedRecords(await this.sources.repos(), ids, device);
    if (device === this.device && ids.join('\n') === this.selectedModels.join('\n')) this.speeds = speeds;
  }

  toggleFacet(key: Facet, value: string): void {
    this.filters[key] = toggled(this.filters[key], value);
  }
  toggleModel(id: string): void {
    this.selectedModels = toggled(this.selectedModels, id);
  }
  toggleVariant(v: Variant): void {
    this.variants = toggled(this.variants, v);
  }
  /** Another protocol: template edits belonged to the old one's template. */
  chooseProtocol(id: string): void {
    this.protocolId = id;
    this.editedSystem = null;
    this.editedUser = null;
  }

  /** The run as the form describes it; throws with the reason a run cannot be asked for. */
  async request(): Promise<NewRunRequest> {
    if (this.paraphraseProblem) throw new Error(this.paraphraseProblem);
    if (!this.plan) throw new Error('Choose a benchmark, at least one model and one variant.');
    const chosen = this.chosen;
    const engines = await engineConfigs(chosen, this.device, this.wholeImages ? { imageSplitting: false } : undefined);
    // Plain copies: reactive proxies cannot be posted to a worker.
    const config: RunConfig = $state.snapshot({
      spec: this.spec,
      protocolId: this.protocolId,
      ...(this.templates ? { templates: this.templates } : {}),
      fewShot: this.fewShot && this.hasFewShot && this.offersFewShot,
      jsonOutput: this.jsonOutput,
      force: this.force,
      engines,
      ...(this.criteria.length ? { criteria: toSet(this.criteria) } : {}),
    });
    const name = this.name.trim() || `${this.benchmark?.name ?? this.benchmarkId} · ${chosen.map((c) => c.label).join(', ')}`;
    return { name, config };
  }

  /**
   * Asks for the run: `create` stores it and returns its id. The form's
   * error says why when it cannot be (`request` refuses the paraphrase probe
   * with an edited or declared prompt); `busy` holds the button meanwhile.
   */
  async submit(create: (request: NewRunRequest) => Promise<string>): Promise<string | null> {
    this.error = null;
    this.busy = true;
    try {
      return await create(await this.request());
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
      return null;
    } finally {
      this.busy = false;
    }
  }
}
