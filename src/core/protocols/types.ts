/**
 * Evaluation protocols: how one benchmark question becomes chat messages for
 * a model, and how the model's raw text becomes a typed answer the scorer can
 * read. Protocols never see image bytes (the runner fills them in from
 * {@link ImageRef}s) and never score: normalisation and metrics live in the
 * scorer.
 */
import type { BenchCase, Question } from '../bundle/types.ts';
import type { Part, Turn } from '../chat/turn.ts';

/** Stable protocol ids. Stored with every run: renaming one breaks stored runs. */
export type ProtocolId =
  | 'neurovlm-structured'
  | 'nmb-differential'
  | 'nmb-lesion'
  | 'nmb-rationale'
  | 'nmb-multi-round'
  | 'structured-review'
  | 'mcq'
  | 'rubric'
  | 'open-question'
  | 'short-answer'
  | 'numeric'
  | 'box';

/** An image of a case, by position; the runner replaces it with the bytes of the stored asset. */
export interface ImageRef {
  /** The case the image belongs to (few-shot exemplars come from other cases). */
  readonly caseId: string;
  /** Index into that case's `images`. */
  readonly index: number;
  /** The image's bundle path (the key of the image bytes). */
  readonly path: string;
  /** SHA-256 of the bytes, when the bundle recorded it. */
  readonly sha256?: string;
  readonly mime?: string;
}

/** One piece of a turn in the order the benchmark sends it (text and images interleaved). */
export type TurnPart = Part<ImageRef>;

/**
 * A chat turn before images are loaded: the one turn type
 * (src/core/chat/turn.ts) with {@link ImageRef}s where the engine gets bytes.
 * Protocols write the parts in the exact order the benchmark's harness sends
 * them (NeuroVLM-Bench few-shot: "Example 1 — class: …", image, "Example 2 …").
 */
export type ProtocolTurn = Turn<ImageRef>;

/**
 * A prompt template users may edit: plain text with `{{placeholders}}` and
 * `{{#name}}…{{/name}}` sections shown only when `name` is not empty. Its
 * hash ({@link templateHash} in template.ts) goes into every run's provenance.
 */
export interface PromptTemplate {
  readonly id: string;
  readonly version: string;
  readonly system?: string;
  /** The (first) user turn. */
  readonly user: string;
  /** Few-shot block: header, one line per exemplar (`{{n}}`, `{{label}}`), footer. */
  readonly fewShotHeader?: string;
  readonly fewShotExample?: string;
  readonly fewShotFooter?: string;
  /** The query turn's text when few-shot exemplars precede it (the user turn otherwise). */
  readonly fewShotQuery?: string;
  /** A revealed follow-up turn of a multi-round case (`{{followUp}}`, `{{turn}}`). */
  readonly followUp?: string;
}

export interface BuildContext {
  /** The user's edited template; the protocol's default when absent. */
  readonly template?: PromptTemplate;
  /** Text-only ablation: the same prompts with no image at all. */
  readonly textOnly?: boolean;
  /** Few-shot exemplar cases, in order (NeuroVLM-Bench: image + class label only). */
  readonly fewShot?: readonly BenchCase[];
  /**
   * Put the output schema into the request so engines constrain decoding.
   * Default: on for the Neural-MedBench JSON protocols, off for NeuroVLM-Bench
   * (the benchmark sent no response_format; its JSON-valid rate is a metric).
   */
  readonly enforceSchema?: boolean;
}

/** Everything the runner needs to call a model for one question (or one turn). */
export interface ProtocolRequest {
  readonly protocol: { readonly id: ProtocolId; readonly version: string };
  readonly template: { readonly id: string; readonly version: string; readonly hash: string };
  readonly messages: readonly ProtocolTurn[];
  /** JSON Schema of the expected answer, for engines that can enforce one. */
  readonly jsonSchema?: Readonly<Record<string, unknown>>;
  /** Things the user should know about this request (an extra image ignored, an index out of range). */
  readonly warnings?: readonly string[];
}

interface ParseOk<T> {
  readonly ok: true;
  readonly value: T;
  /** Problems that did not stop parsing: missing keys, coerced types, dropped items. */
  readonly warnings?: readonly string[];
  /** The JSON was truncated and closed by the repair step. */
  readonly repaired?: boolean;
  /** No JSON: the answer was read from a numbered list or a "Diagnosis:" line. */
  readonly fallback?: boolean;
}

interface ParseFail {
  readonly ok: false;
  /** Why nothing could be read; for MCQ always `invalid` (scored wrong, counted as invalid). */
  readonly error: string;
}

/** The result of `parse(rawText)`. Parsers never throw. */
export type ParseResult<T = unknown> = ParseOk<T> | ParseFail;

export interface Protocol<T = unknown> {
  readonly id: ProtocolId;
  readonly label: string;
  readonly version: string;
  readonly description: string;
  /** The built-in templates; the first is the default. */
  readonly templates: readonly [PromptTemplate, ...PromptTemplate[]];
  /** JSON Schema of the answer; absent for free-text protocols. */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  buildRequest(c: BenchCase, q: Question, ctx?: BuildContext): ProtocolRequest;
  /**
   * Reads the model's raw text. `question` is needed where the answer depends
   * on it (multiple choice: only its option keys count); others ignore it.
   */
  parse(rawText: string, question?: Question): ParseResult<T>;
}

/** A protocol whose questions unfold over several turns (follow-ups revealed after each answer). */
export interface MultiTurnProtocol<T = unknown> extends Protocol<T> {
  /** Number of model turns for a question: 1 + its follow-ups. */
  turnCount(q: Question): number;
  /**
   * Messages for turn `turnIndex` (0 = the opening question). Earlier answers
   * are replayed as assistant turns; follow-up `k` is revealed at turn `k + 1`
   * with its images.
   */
  buildTurn(c: BenchCase, q: Question, turnIndex: number, previousAnswers: readonly string[], ctx?: BuildContext): ProtocolRequest;
  /**
   * The follow-up user turns alone, in order, with their follow-up ids: for a
   * runner that appends the model's answers itself. Turn `k + 1` of
   * `buildTurn` ends with the same turn.
   */
  followUpTurns(c: BenchCase, q: Question, ctx?: BuildContext): readonly FollowUpTurn[];
}

export interface FollowUpTurn {
  /** The case's follow-up id. */
  readonly id: string;
  readonly turn: ProtocolTurn;
}
