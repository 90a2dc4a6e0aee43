/**
 * One reviewer's session on one run: the queue they walk, the answer on
 * screen with its case, and the verdict form. The component renders it and
 * wires the keys; everything a reviewer does is a method here, so it is
 * tested without a page (test/unit/features/review/review-session.test.ts).
 *
 * The answer and case on screen are only ever the current item's: `current`
 * is null while the next one loads, so the page never shows one case's image
 * under another's name.
 */
import type { CaseRecord } from '../../core/bundle/records.ts';
import type { Repositories } from '../../core/db/index.ts';
import type { ResponseRecord } from '../../core/model/answer.ts';
import type { ReviewRecord } from '../../core/model/review.ts';
import { machineVerdict } from '../../core/results/agreement.ts';
import type { RunRecord } from '../../core/runner/records.ts';
import { ERROR_CLASSES } from '../../core/scoring/equivalence/taxonomy.ts';
import type { ScoreRecord } from '../../core/scoring/run/records.ts';
import { isReviewVerdict } from '../../core/scoring/run/types.ts';
import { blindLabels, reviewQueue, type QueueFilter } from './review-queue.ts';

type Verdict = 'correct' | 'incorrect';
/** Rubric answers: the reviewer's mark per rubric item id ('' = leave it to the judge). */
type RubricMark = '' | 'met' | 'not-met';

/** What a save did: stored, or why not (the component then puts the focus where the reviewer must act). */
export type SaveOutcome = 'saved' | 'needs-verdict' | 'needs-reason' | 'nothing';

export class ReviewSession {
  filter = $state<QueueFilter>('unreviewed');
  showModels = $state(false);
  showHelp = $state(false);
  /** The run and its current score rows; null when it has no scores, undefined until read. */
  base = $state.raw<{ run: RunRecord; items: ScoreRecord[]; version: number } | null | undefined>(undefined);
  queue = $state.raw<ScoreRecord[]>([]);
  index = $state(0);
  #loaded = $state.raw<{ response: ResponseRecord; kase: CaseRecord | undefined } | null>(null);

  // The form for the current answer.
  verdict = $state<Verdict | null>(null);
  classes = $state<string[]>([]);
  rating = $state<number | null>(null);
  rubricMarks = $state<Record<string, RubricMark>>({});
  reason = $state('');
  /** The last save, named by its answer: shown as "stored" on the next answer, never as that answer's own state. */
  lastSaved = $state<{ responseId: string; text: string } | null>(null);
  /** What the last review deleted here removed. */
  deletedReview = $state<string | null>(null);
  problem = $state<string | null>(null);

  readonly labels = $derived(this.base ? blindLabels(this.base.run.id, this.base.items.map((i) => i.modelId)) : blindLabels('', []));
  readonly item = $derived(this.queue[this.index]);
  /** The loaded answer and case, only while they are the current item's. */
  readonly current = $derived(this.item && this.#loaded?.response.id === this.item.responseId ? this.#loaded : null);
  readonly machine = $derived(this.item ? machineVerdict(this.item) : null);
  readonly mine = $derived.by(() => (this.item ? this.reviews()?.find((r) => r.responseId === this.item!.responseId && r.reviewerId === this.reviewerId) : undefined));
  readonly others = $derived.by(() => (this.item ? (this.reviews() ?? []).filter((r) => r.responseId === this.item!.responseId && r.reviewerId !== this.reviewerId) : []));
  readonly isOverride = $derived(this.verdict !== null && this.machine !== null && (this.verdict === 'correct') !== this.machine.correct);
  /** The machine's verdict (and the scores behind it) stay hidden until the reviewer has given theirs, so it cannot anchor them. */
  readonly revealed = $derived(this.verdict !== null || !!this.mine);

  /**
   * @param reviews every review of the run as storage has them now (the page's
   *   live query), read where the session needs them: never copied into it.
   */
  constructor(
    readonly runId: string,
    readonly reviewerId: string,
    private readonly repos: () => Promise<Repositories>,
    readonly reviews: () => readonly ReviewRecord[] | undefined,
  ) {}

  /** Reads the run and its current score set. */
  async load(): Promise<void> {
    const db = await this.repos();
    const run = await db.runs.get(this.runId);
    const set = run ? await db.scores.latestSet(this.runId) : undefined;
    this.base = run && set ? { run, items: await db.scores.listBySet(set.id), version: set.version } : null;
  }

  /**
   * The queue for the chosen filter, from the reviews stored now. A snapshot:
   * saving a review does not reshuffle what the reviewer is walking through.
   */
  rebuildQueue(stored: readonly ReviewRecord[]): void {
    if (!this.base) return;
    this.queue = reviewQueue(this.base.items, stored, this.reviewerId, this.filter, this.labels);
    this.index = 0;
  }

  /**
   * Resets the form to this reviewer's saved review of the current answer (or
   * an empty one) and loads the answer and its case. The saved review is read
   * once per answer: one saved meanwhile (here or in another tab) must not
   * wipe what is being typed.
   */
  async open(): Promise<void> {
    const it = this.item;
    this.problem = null;
    if (!it || !this.base) {
      this.#loaded = null;
      return;
    }
    const saved = this.mine;
    this.verdict = saved && isReviewVerdict(saved.verdict) ? saved.verdict : null;
    // The judge's proposed classes hint at its verdict: they are filled in when the reviewer gives theirs (choose).
    this.classes = saved ? [...saved.errorClasses] : [];
    this.rating = saved?.rationaleRating ?? null;
    this.rubricMarks = Object.fromEntries(Object.entries(saved?.rubricMet ?? {}).map(([k, v]) => [k, v ? 'met' : 'not-met']));
    this.reason = saved?.reason ?? '';
    const benchmarkId = this.base.run.benchmarkId;
    const db = await this.repos();
    const response = await db.responses.get(it.responseId);
    const kase = await db.cases.get(benchmarkId, it.caseId);
    // Only if the reviewer is still on this answer: a late read never replaces the next one's.
    if (this.item === it && response) this.#loaded = { response, kase };
  }

  go(delta: number): void {
    this.index = Math.max(0, Math.min(this.queue.length - 1, this.index + delta));
  }

  /** The reviewer's verdict; the first one on an answer also brings in the judge's proposed error classes. */
  choose(v: Verdict): void {
    if (!this.revealed && this.item && this.classes.length === 0) this.classes = [...(this.item.taxonomy?.classes ?? [])];
    this.verdict = v;
  }

  toggleClass(cls: string): void {
    this.classes = this.classes.includes(cls) ? this.classes.filter((c) => c !== cls) : [...this.classes, cls];
  }

  /** Stores the review of the current answer and moves to the next; an override needs a reason. */
  async save(): Promise<SaveOutcome> {
    const item = this.item;
    if (!item) return 'nothing';
    const chosen = this.verdict;
    if (!chosen) {
      this.problem = "Give your verdict first: correct (c) or incorrect (i). The machine's is shown once you have.";
      return 'needs-verdict';
    }
    const overriding = this.machine !== null && (chosen === 'correct') !== this.machine.correct;
    if (overriding && this.reason.trim() === '') {
      this.problem = 'An override needs a reason: say why the machine was wrong.';
      return 'needs-reason';
    }
    const db = await this.repos();
    const marked = Object.entries(this.rubricMarks).filter(([, v]) => v !== '');
    const rubricMet = marked.length ? Object.fromEntries(marked.map(([k, v]) => [k, v === 'met'])) : null;
    await db.reviews.record({ responseId: item.responseId, runId: this.runId, reviewerId: this.reviewerId, verdict: chosen, errorClasses: [...this.classes], rationaleRating: this.rating, ...(rubricMet ? { rubricMet } : {}), reason: this.reason.trim() });
    this.lastSaved = { responseId: item.responseId, text: `Stored your verdict on case ${item.caseId}, question ${item.questionId}: ${chosen}${overriding ? ' (override)' : ''}.` };
    this.problem = null;
    if (this.index < this.queue.length - 1) this.index++;
    return 'saved';
  }

  /** How a model is named on screen: its blind label unless the reviewer chose to see model names. */
  label(modelId: string): string {
    return this.showModels ? modelId : (this.labels.get(modelId) ?? 'Model');
  }

  /**
   * A key pressed outside a text field (see the component for the rest):
   * true when it was one of the session's shortcuts.
   */
  key(k: string): boolean {
    if (k === 'j' || k === 'ArrowRight') this.go(1);
    else if (k === 'k' || k === 'ArrowLeft') this.go(-1);
    else if (k === 'c') this.choose('correct');
    else if (k === 'i') this.choose('incorrect');
    else if (k === '+' || k === '=') this.rating = Math.min(5, (this.rating ?? 0) + 1);
    else if (k === '-') this.rating = this.rating === null ? null : Math.max(1, this.rating - 1);
    else if (k === 'u') this.rating = null;
    else if (k === 'm') this.showModels = !this.showModels;
    else if (k === '?') this.showHelp = !this.showHelp;
    else if (/^[0-9]$/.test(k)) {
      const cls = ERROR_CLASSES[(Number(k) + 9) % 10];
      if (cls) this.toggleClass(cls.id);
    } else return false;
    return true;
  }
}
