/**
 * What every writer of another tool's format reads from a NeuroEval run: the
 * run export (run, provenance, answers, cases) and, when the run was scored,
 * the score set (item scores and per-arm summaries). Writers make one result
 * per arm (model × variant), since each of those formats describes one model
 * on one task.
 */
import type { BenchCase, Question } from '../../bundle/types.ts';
import { sha256Hex } from '../../hash/sha256.ts';
import type { ResponseRecord } from '../../model/answer.ts';
import type { RunExport } from '../../scoring/io/run-export.ts';
import { isContinuousMetric } from '../../scoring/run/summary.ts';
import type { ArmSummary, ItemScore, RunScoreSummary } from '../../scoring/run/types.ts';

export interface ExportScores {
  readonly items: readonly ItemScore[];
  readonly summary: RunScoreSummary | null;
}

export interface ExportSource {
  readonly exported: RunExport;
  /** The run's current scores, when it has been scored (else the files carry answers without scores). */
  readonly scores: ExportScores | null;
  /** NeuroEval's version, recorded as the writing tool's. */
  readonly appVersion: string;
}

/** One file of an export, at its path inside the export (a folder the user picks, or a ZIP). */
export interface ExportFile {
  readonly path: string;
  readonly data: string | Uint8Array;
}

export interface ArmAnswer {
  readonly response: ResponseRecord;
  readonly kase: BenchCase | undefined;
  readonly question: Question | undefined;
  readonly score: ItemScore | undefined;
}

export interface Arm {
  readonly modelId: string;
  readonly variant: string;
  /** The model's label as the run's provenance names it. */
  readonly modelLabel: string;
  readonly answers: readonly ArmAnswer[];
  readonly summary: ArmSummary | undefined;
}

/** The run's answers grouped per model and variant, in first-seen order, each with its case, question and item score. */
export function armsOf(source: ExportSource): Arm[] {
  const e = source.exported;
  const cases = new Map((e.cases ?? []).map((c) => [c.id, c]));
  const scores = new Map((source.scores?.items ?? []).map((s) => [s.responseId, s]));
  const byArm = new Map<string, ArmAnswer[]>();
  const order: { modelId: string; variant: string }[] = [];
  for (const r of e.responses) {
    const key = `${r.modelId}\u0000${r.variant}`;
    let list = byArm.get(key);
    if (!list) {
      byArm.set(key, (list = []));
      order.push({ modelId: r.modelId, variant: r.variant });
    }
    const kase = cases.get(r.caseId);
    list.push({ response: r, kase, question: kase?.questions.find((q) => q.id === r.questionId), score: scores.get(r.id) });
  }
  return order.map(({ modelId, variant }) => ({
    modelId,
    variant,
    modelLabel: e.provenance?.models.find((m) => m.id === modelId)?.label ?? modelId,
    answers: byArm.get(`${modelId}\u0000${variant}`)!,
    summary: source.scores?.summary?.arms.find((a) => a.modelId === modelId && a.variant === variant),
  }));
}

/** The question as a person reads it, with its options for multiple choice. */
export function promptText(question: Question | undefined): string {
  if (!question) return '';
  const options = question.options?.map((o) => `${o.key}. ${o.text}`) ?? [];
  return options.length ? `${question.text}\n${options.join('\n')}` : question.text;
}

/** The question's reference answer as one text: the option key, diagnosis, class, lesion or rationale. */
export function referenceText(question: Question | undefined): string {
  const r = question?.reference;
  if (!r) return '';
  return r.answer ?? r.diagnosis ?? r.labels?.diagnosis_name ?? r.lesion?.type ?? r.differential?.[0] ?? r.rationale ?? '';
}

/** An item's metric values that were decided (null = not scorable, left out). */
export function decidedMetrics(score: ItemScore | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, m] of Object.entries(score?.metrics ?? {})) if (m.value !== null && Number.isFinite(m.value)) out[k] = m.value;
  return out;
}

/** True for a metric whose values are 0 or 1 (correct / incorrect). */
export const isBinaryMetric = (metric: string): boolean => !isContinuousMetric(metric);

/** The sample id an export gives an answer's question: the case id, or `case#question` when the case asks more than one. */
export function sampleIdOf(a: Pick<ArmAnswer, 'response' | 'kase'>): string {
  return a.kase && a.kase.questions.length <= 1 ? a.response.caseId : `${a.response.caseId}#${a.response.questionId}`;
}

/** A file-name part: letters, digits, `.`, `_`, `-`. */
export function safeName(s: string): string {
  return s.replace(/[^\w.-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 80) || 'x';
}

/** A version-4-shaped UUID derived from a text (the same run and arm always get the same id). */
export function uuidOf(text: string): string {
  const h = sha256Hex(text);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[parseInt(h[16]!, 16) % 4]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** ISO 8601 of a timestamp, or of now's stand-in when there is none. */
export function isoOf(t: number | null | undefined, fallback: number): string {
  return new Date(t !== null && t !== undefined && Number.isFinite(t) ? t : fallback).toISOString();
}
