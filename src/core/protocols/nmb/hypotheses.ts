/**
 * Reading a ranked differential from a model answer: JSON in any of the
 * shapes models actually write (list under several key names, a bare array,
 * one diagnosis object, Chinese keys), else a numbered list
 * ("1. X — evidence"), else a single "Diagnosis: X" line. The last two are
 * marked `fallback`.
 */
import { Warnings, coerceConfidence, coerceString, pick } from '../coerce.ts';
import { extractJsonObject, isRecord } from '../json.ts';
import { stripThinkDetailed } from '../text.ts';
import type { ParseResult } from '../types.ts';

export interface Hypothesis {
  /** 1 = most likely. */
  readonly rank: number;
  readonly diagnosis: string;
  /** 0–1, or null when the model gave none (or gave something unreadable: see the warnings). */
  readonly confidence: number | null;
  readonly evidence: string | null;
}

export interface DifferentialAnswer {
  /** Most likely first; at most {@link MAX_HYPOTHESES}. */
  readonly hypotheses: readonly Hypothesis[];
  /** Free text that came with the list (`answer`, `reasoning`…, or the prose around a fallback list). */
  readonly text?: string;
}

export const MAX_HYPOTHESES = 5;

const HYPOTHESIS_SCHEMA: Readonly<Record<string, unknown>> = {
  type: 'object',
  properties: {
    diagnosis: { type: 'string' },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
    evidence: { type: 'string' },
  },
  required: ['diagnosis', 'confidence', 'evidence'],
};

export const HYPOTHESES_ARRAY_SCHEMA: Readonly<Record<string, unknown>> = { type: 'array', items: HYPOTHESIS_SCHEMA, minItems: 1, maxItems: MAX_HYPOTHESES };

const LIST_KEYS = [
  'differential', 'differential_diagnosis', 'differential_diagnoses', 'diagnostic_hypotheses', 'hypotheses', 'diagnoses',
  'ranked_differential', 'ddx', '鉴别诊断', '诊断列表',
];
const DIAGNOSIS_KEYS = ['diagnosis', 'name', 'hypothesis', 'dx', 'condition', 'disease', 'label', '诊断', '疾病', '诊断名称'];
const CONFIDENCE_KEYS = ['confidence', 'probability', 'likelihood', 'score', '置信度', '可能性', '概率'];
const EVIDENCE_KEYS = ['evidence', 'supporting_evidence', 'supporting_findings', 'rationale', 'reasoning', 'justification', 'support', '依据', '证据', '理由'];
const RANK_KEYS = ['rank', 'order', '排名', '序号'];
const TEXT_KEYS = ['answer', 'reasoning', 'rationale', 'summary', 'explanation', 'response', '回答', '分析'];

function readItem(item: unknown, i: number, w: Warnings): { h: Omit<Hypothesis, 'rank'>; rank: number | null } | undefined {
  const field = `differential[${i}]`;
  if (typeof item === 'string') {
    const diagnosis = item.trim();
    return diagnosis ? { h: { diagnosis, confidence: null, evidence: null }, rank: null } : undefined;
  }
  if (!isRecord(item)) {
    w.add(`${field}: not a diagnosis; dropped`);
    return undefined;
  }
  const diagnosis = coerceString(pick(item, DIAGNOSIS_KEYS)?.value, `${field}.diagnosis`, w);
  if (!diagnosis) {
    w.add(`${field}: no diagnosis; dropped`);
    return undefined;
  }
  const conf = pick(item, CONFIDENCE_KEYS);
  const evidence = coerceString(pick(item, EVIDENCE_KEYS)?.value, `${field}.evidence`, w);
  const rankValue = pick(item, RANK_KEYS)?.value;
  const rank = typeof rankValue === 'number' ? rankValue : typeof rankValue === 'string' && /^\d+$/.test(rankValue.trim()) ? Number(rankValue) : null;
  return { h: { diagnosis, confidence: coerceConfidence(conf?.value, `${field}.confidence`, w), evidence }, rank };
}

/** Hypotheses from a parsed JSON list; ranked by `rank` when every item has one, else in list order. */
function readHypotheses(list: readonly unknown[], w: Warnings): Hypothesis[] {
  const items = list.flatMap((item, i) => readItem(item, i, w) ?? []);
  if (items.length && items.every((x) => x.rank !== null)) items.sort((a, b) => a.rank! - b.rank!);
  if (items.length > MAX_HYPOTHESES) w.add(`${items.length} hypotheses given; the first ${MAX_HYPOTHESES} were kept`);
  return items.slice(0, MAX_HYPOTHESES).map((x, i) => ({ rank: i + 1, ...x.h }));
}

/** The hypothesis list inside a parsed JSON value, if it has one. */
export function hypothesesFromJson(value: Record<string, unknown> | unknown[], w: Warnings, listKeys: readonly string[] = LIST_KEYS): Hypothesis[] | undefined {
  if (Array.isArray(value)) return readHypotheses(value, w);
  const list = pick(value, listKeys);
  if (list && Array.isArray(list.value)) return readHypotheses(list.value, w);
  if (list && (typeof list.value === 'string' || isRecord(list.value))) {
    w.add(`"${list.key}" is not a list; read as one hypothesis`);
    return readHypotheses([list.value], w);
  }
  if (pick(value, DIAGNOSIS_KEYS)) {
    w.add('one diagnosis object instead of a ranked list');
    return readHypotheses([value], w);
  }
  return undefined;
}

function textFromJson(value: Record<string, unknown> | unknown[], w: Warnings, keys: readonly string[] = TEXT_KEYS): string | undefined {
  if (Array.isArray(value)) return undefined;
  return coerceString(pick(value, keys)?.value, 'answer', w) ?? undefined;
}

const ITEM = /^\s*(?:#{1,6}\s*)?(?:\*\*|__)?\s*(?:[(（](\d{1,2})[)）]|(\d{1,2})\s*[.)、:：])(?!\d)\s*(.+)$/;
const HEADING = /differential|diagnos|鉴别|诊断/i;
const DASH = /\s+[—–]+\s+|——|\s--\s|\s-\s/;
const COLON = /[:：]\s*|[，,]\s*(?=依据|证据|evidence|supported by)/i;
/** Ways a list item states its confidence, most explicit first. */
const CONFIDENCES = [
  /[(（]?\s*(?:confidence|probability|likelihood|置信度|可能性|概率)\s*[:：=]?\s*(\d{1,3}(?:\.\d+)?\s*%|0?\.\d+|1(?:\.0+)?|0)\s*[)）]?/i,
  /[(（]\s*(\d{1,3}(?:\.\d+)?\s*%)\s*[)）]/,
  /[(（]\s*(0?\.\d+)\s*[)）]/,
  /(?<![\w.])(\d{1,3}(?:\.\d+)?\s*%)/,
];

const TRAILING = new Set([...'"\'“”.;。；,，']);

function clean(s: string): string {
  const t = s.replace(/\*\*|__|`/g, '').trim();
  let end = t.length;
  while (end > 0 && (TRAILING.has(t[end - 1]!) || /\s/.test(t[end - 1]!))) end--; // a /[…]+$/ regex is quadratic here
  let start = 0;
  while (start < end && /["'“”]/.test(t[start]!)) start++;
  return t.slice(start, end).trim();
}

interface ListItem {
  readonly n: number;
  readonly line: number;
  readonly text: string;
  readonly extra: string[];
}

function numberedRuns(lines: readonly string[]): ListItem[][] {
  const runs: ListItem[][] = [];
  let current: ListItem[] | undefined;
  let blank = false;
  lines.forEach((line, i) => {
    const m = ITEM.exec(line);
    const n = m ? Number(m[1] ?? m[2]) : NaN;
    if (m && n === 1) runs.push((current = [{ n, line: i, text: m[3]!, extra: [] }]));
    else if (m && current && n === current.length + 1) current.push({ n, line: i, text: m[3]!, extra: [] });
    // Indented or bulleted lines (or text right under an item) continue the item: its evidence.
    else if (current && line.trim() && (/^\s+|^\s*[-*•]/.test(line) || !blank)) current[current.length - 1]!.extra.push(line.trim());
    else if (line.trim()) current = undefined;
    blank = !line.trim();
  });
  return runs;
}

function splitAt(text: string, re: RegExp): [string, string] | undefined {
  const m = re.exec(text);
  return m ? [text.slice(0, m.index), text.slice(m.index + m[0].length)] : undefined;
}

function hypothesisFromItem(item: ListItem, w: Warnings): Omit<Hypothesis, 'rank'> | undefined {
  let text = item.text;
  let confidence: number | null = null;
  for (const re of CONFIDENCES) {
    const m = re.exec(text);
    if (!m) continue;
    confidence = coerceConfidence(m[1]!.replace(/\s+/g, ''), `item ${item.n}.confidence`, new Warnings());
    text = text.replace(m[0], ' ').replace(/[(（]\s*[)）]/g, ' ');
    break;
  }
  const [head, tail] = splitAt(text, DASH) ?? splitAt(text, COLON) ?? [text, ''];
  const diagnosis = clean(head);
  if (!diagnosis) {
    w.add(`list item ${item.n}: no diagnosis; dropped`);
    return undefined;
  }
  const rest = [tail, ...item.extra]
    .map((s) => clean(s.replace(/^[-*•]\s*/, '').replace(/^(?:\*\*)?(evidence|supporting evidence|依据|证据)(?:\*\*)?\s*[:：]\s*/i, '')))
    .filter(Boolean);
  return { diagnosis, confidence, evidence: rest.length ? rest.join('; ') : null };
}

/**
 * The numbered list most likely to be the differential: the one under a
 * "differential"/"diagnosis" heading, else (unless `headedOnly`) the first.
 */
function hypothesesFromList(text: string, w: Warnings, headedOnly = false): Hypothesis[] | undefined {
  const lines = text.split(/\r?\n/);
  const runs = numberedRuns(lines);
  const headed = runs.find((r) => lines.slice(Math.max(0, r[0]!.line - 3), r[0]!.line).some((l) => HEADING.test(l)));
  const run = headed ?? (headedOnly ? undefined : runs[0]);
  if (!run) return undefined;
  const items = run.flatMap((item) => hypothesisFromItem(item, w) ?? []);
  if (!items.length) return undefined;
  if (items.length > MAX_HYPOTHESES) w.add(`${items.length} hypotheses listed; the first ${MAX_HYPOTHESES} were kept`);
  return items.slice(0, MAX_HYPOTHESES).map((h, i) => ({ rank: i + 1, ...h }));
}

const DIAGNOSIS_LINE = /(?:^|\n)[ \t>*#]*(?:\*\*)?(?:(?:most likely|final|primary|leading|working|probable)\s+)?diagnosis(?:\*\*)?\s*(?:is)?\s*[:：]\s*(?:\*\*)?([^\n]+)|(?<!鉴别)(?:最可能的|初步|最终|主要)?诊断(?:为|是|考虑)?\s*[:：]?\s*([^\n。；;]+)/i;

/** One hypothesis from a "Diagnosis: X" (or "诊断：X") line. */
function hypothesisFromDiagnosisLine(text: string): Hypothesis | undefined {
  const m = DIAGNOSIS_LINE.exec(text);
  const found = clean((m?.[1] ?? m?.[2] ?? '').split(/(?<=[a-z)])\.\s|。/i)[0] ?? '');
  return found ? { rank: 1, diagnosis: found, confidence: null, evidence: null } : undefined;
}

/**
 * Parses a ranked differential: reasoning blocks stripped; JSON (fenced, in
 * prose, or truncated and repaired); else a numbered list or a diagnosis line
 * (`fallback: true`). `listKeys`/`textKeys` name where the list and the
 * free-text reply live in the JSON.
 */
export function parseDifferentialText(rawText: string, opts: { listKeys?: readonly string[]; textKeys?: readonly string[] } = {}): ParseResult<DifferentialAnswer> {
  const { text, unterminated } = stripThinkDetailed(rawText);
  const w = new Warnings();
  if (unterminated) w.add('the answer ended inside an unterminated <think> block');
  if (!text) return { ok: false, error: unterminated ? 'only unterminated reasoning, no answer' : 'empty answer' };
  const json = extractJsonObject(text, { allowArray: true });
  if (json.ok) {
    const hypotheses = hypothesesFromJson(json.value, w, opts.listKeys ?? LIST_KEYS);
    if (hypotheses?.length) {
      const reply = textFromJson(json.value, w, opts.textKeys ?? TEXT_KEYS);
      if (json.repaired) w.add('the JSON was truncated and has been closed; the last hypothesis may be incomplete');
      return { ok: true, value: { hypotheses, ...(reply ? { text: reply } : {}) }, ...w.result, ...(json.repaired ? { repaired: true } : {}) };
    }
    w.add('the JSON has no diagnosis list');
  }
  // A list under a diagnosis heading, else a "Diagnosis:" line, else any list (it may be a list of findings).
  const line = hypothesisFromDiagnosisLine(text);
  const listed = hypothesesFromList(text, w, true) ?? (line ? [line] : undefined) ?? hypothesesFromList(text, w);
  if (!listed) return { ok: false, error: json.ok ? 'no hypotheses in the JSON answer' : 'no JSON, numbered list or diagnosis line found' };
  w.add(json.ok ? 'read from the text around the JSON' : 'no JSON: read from the text');
  return { ok: true, value: { hypotheses: listed, text }, ...w.result, fallback: true };
}
