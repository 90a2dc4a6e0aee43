/**
 * Joins a foreign log's items to a benchmark's cases. In order, an item is
 * matched by: the NeuroEval item a NeuroEval export named in its metadata;
 * the user's mapping (harness id → case, or case#question); its id equal to a
 * case id (or case#question), when the question it carries agrees with that
 * case's; its question text, when exactly one case asks it (also when its id
 * is a case that asks something else: a harness's position, not our id).
 * Whatever is left
 * is named with the reason, and a second answer to the same item is named as
 * a duplicate: nothing is guessed.
 */
import type { BenchCase } from '../bundle/types.ts';
import { InvalidInputError } from '../errors.ts';
import { parseDelimited, sniffDelimiter } from '../text/delimited.ts';
import type { ForeignItem, ForeignLog } from './types.ts';

export type MatchHow = 'neuroeval' | 'mapping' | 'id' | 'question';

export interface MatchedItem {
  readonly item: ForeignItem;
  readonly caseId: string;
  readonly questionId: string;
  readonly variant: string;
  readonly sample: number;
  readonly how: MatchHow;
}

export interface UnmatchedItem {
  readonly item: ForeignItem;
  readonly why: string;
}

export interface DuplicateItem {
  readonly item: ForeignItem;
  readonly caseId: string;
  readonly questionId: string;
  /** The item that answered the same case, question and sample first. */
  readonly first: ForeignItem;
}

export interface MatchResult {
  readonly matched: readonly MatchedItem[];
  readonly unmatched: readonly UnmatchedItem[];
  readonly duplicates: readonly DuplicateItem[];
}

/** The user's choices: harness sample id → `caseId` or `caseId#questionId`. */
export type IdMapping = Readonly<Record<string, string>>;

/** Question text compared without case, surrounding space or line breaks. */
export function normaliseQuestion(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

interface QuestionRef {
  readonly caseId: string;
  readonly questionId: string;
}

class CaseIndex {
  readonly byId = new Map<string, BenchCase>();
  /** Normalised question text → the questions that ask it. */
  readonly byText = new Map<string, QuestionRef[]>();

  constructor(cases: readonly BenchCase[]) {
    for (const c of cases) {
      this.byId.set(c.id, c);
      for (const q of c.questions) {
        const t = normaliseQuestion(q.text);
        if (!t) continue;
        const list = this.byText.get(t);
        if (list) list.push({ caseId: c.id, questionId: q.id });
        else this.byText.set(t, [{ caseId: c.id, questionId: q.id }]);
      }
    }
  }

  /** Questions whose text the prompt is, or holds (a harness adds its own template around it). */
  asked(prompt: string): QuestionRef[] {
    const p = normaliseQuestion(prompt);
    const exact = this.byText.get(p);
    if (exact) return exact;
    const out: QuestionRef[] = [];
    for (const [t, refs] of this.byText) if (t.length >= 8 && p.includes(t)) out.push(...refs);
    return out;
  }

  /** A `case` or `case#question` reference, resolved against the cases; the reason when it is not one. */
  resolve(ref: string, question: string | null): QuestionRef | string {
    const hash = ref.lastIndexOf('#');
    const direct = this.byId.get(ref);
    const kase = direct ?? (hash > 0 ? this.byId.get(ref.slice(0, hash)) : undefined);
    if (!kase) return `no case "${ref}" in the benchmark`;
    if (!direct) {
      const qid = ref.slice(hash + 1);
      return kase.questions.some((q) => q.id === qid) ? { caseId: kase.id, questionId: qid } : `case "${kase.id}" has no question "${qid}"`;
    }
    if (kase.questions.length === 1) return { caseId: kase.id, questionId: kase.questions[0]!.id };
    if (question !== null) {
      const p = normaliseQuestion(question);
      const hits = kase.questions.filter((q) => normaliseQuestion(q.text) && p.includes(normaliseQuestion(q.text)));
      if (hits.length === 1) return { caseId: kase.id, questionId: hits[0]!.id };
    }
    return `case "${kase.id}" has ${kase.questions.length} questions and the item does not say which; map it to case#question`;
  }

  /** Whether an item's question agrees with the question it is matched to (a harness may wrap it in its own prompt). */
  agrees(ref: QuestionRef, question: string | null): boolean {
    if (question === null) return true;
    const q = this.byId.get(ref.caseId)?.questions.find((x) => x.id === ref.questionId);
    const t = q ? normaliseQuestion(q.text) : '';
    return !t || normaliseQuestion(question).includes(t);
  }
}

const excerpt = (s: string) => (s.length > 60 ? `${s.slice(0, 57)}…` : s);

/** Matches every item of a log to the cases; `mapping` wins over ids and questions. */
export function matchForeign(log: Pick<ForeignLog, 'items'>, cases: readonly BenchCase[], mapping: IdMapping = {}): MatchResult {
  const index = new CaseIndex(cases);
  const matched: MatchedItem[] = [];
  const unmatched: UnmatchedItem[] = [];
  const duplicates: DuplicateItem[] = [];
  const firstOf = new Map<string, ForeignItem>();
  for (const item of log.items) {
    let ref: QuestionRef | null = null;
    let how: MatchHow = 'id';
    let why = '';
    const mapped = mapping[item.id];
    if (item.hint && index.byId.get(item.hint.caseId)?.questions.some((q) => q.id === item.hint!.questionId) && mapped === undefined) {
      ref = { caseId: item.hint.caseId, questionId: item.hint.questionId };
      how = 'neuroeval';
    } else if (mapped !== undefined) {
      const r = index.resolve(mapped, item.question);
      how = 'mapping';
      if (typeof r === 'string') why = `mapped to "${mapped}", but ${r}`;
      else ref = r;
    } else {
      const byId = index.byId.has(item.id) || index.byId.has(item.id.slice(0, Math.max(0, item.id.lastIndexOf('#')))) ? index.resolve(item.id, item.question) : null;
      if (byId && typeof byId !== 'string' && index.agrees(byId, item.question)) ref = byId;
      else if (item.question !== null) {
        // An id that is a case here but asks something else is a coincidence (a harness's 0-based position): the question decides.
        const hits = index.asked(item.question);
        how = 'question';
        const idSays = byId === null ? `no case has id "${item.id}"` : typeof byId === 'string' ? byId : `case "${item.id}" asks another question`;
        if (hits.length === 1) ref = hits[0]!;
        else why = hits.length === 0 ? `${idSays}, and no case asks its question ("${excerpt(item.question)}")` : `${idSays}, and ${hits.length} cases ask its question (first "${hits[0]!.caseId}", "${hits[1]!.caseId}"): map it by hand`;
      } else why = byId === null ? `no case has id "${item.id}", and the item holds no question to match` : (byId as string);
    }
    if (!ref) {
      unmatched.push({ item, why });
      continue;
    }
    const variant = how === 'neuroeval' ? (item.hint!.variant ?? 'none') : 'none';
    const sample = how === 'neuroeval' ? (item.hint!.sample ?? item.sample) : item.sample;
    const key = `${ref.caseId}\u0000${ref.questionId}\u0000${variant}\u0000${sample}`;
    const first = firstOf.get(key);
    if (first) {
      duplicates.push({ item, caseId: ref.caseId, questionId: ref.questionId, first });
      continue;
    }
    firstOf.set(key, item);
    matched.push({ item, caseId: ref.caseId, questionId: ref.questionId, variant, sample, how });
  }
  return { matched, unmatched, duplicates };
}

/**
 * A mapping written by hand: a JSON object `{ "<harness id>": "<case or case#question>" }`,
 * or a CSV/TSV of two columns (harness id, case) with a header row.
 * @throws InvalidInputError naming the file and line of a bad row.
 */
export function parseIdMapping(text: string, file: string): Record<string, string> {
  const t = text.replace(/^\uFEFF/, '').trim();
  const out: Record<string, string> = {};
  if (t.startsWith('{')) {
    let v: unknown;
    try {
      v = JSON.parse(t);
    } catch (error) {
      throw new InvalidInputError(`${file}: not valid JSON (${error instanceof Error ? error.message : String(error)}).`, { file });
    }
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (typeof x !== 'string' || !x.trim()) throw new InvalidInputError(`${file}: ${k}: expected a case id (text), found ${JSON.stringify(x)}.`, { file, field: k });
      out[k] = x.trim();
    }
    return out;
  }
  const table = parseDelimited(t, sniffDelimiter(t), file);
  if (table.header.length !== 2) throw new InvalidInputError(`${file}: expected two columns (the harness's id, then the case), found ${table.header.length}.`, { file, line: 1 });
  const [from, to] = table.header as [string, string];
  for (const row of table.rows) {
    const id = row.values[from]!.trim();
    const target = row.values[to]!.trim();
    if (!id || !target) throw new InvalidInputError(`${file}:${row.line}: both the harness's id and the case are needed.`, { file, line: row.line });
    if (id in out) throw new InvalidInputError(`${file}:${row.line}: id "${id}" is mapped twice.`, { file, line: row.line, field: from });
    out[id] = target;
  }
  return out;
}
