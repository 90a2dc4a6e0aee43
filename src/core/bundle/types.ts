/**
 * NeuroEval bundle format v1: the benchmark model every importer produces and
 * every protocol consumes. The JSON Schema in docs/formats/ describes the same
 * shapes for other tools. Changing a field here changes stored data and the
 * content hash: it needs a new format version.
 */

import type { Plane } from '../model/geometry.ts';

export const BUNDLE_FORMAT = 'neuroeval-bundle';
export const BUNDLE_FORMAT_VERSION = 1;

/** What a case asks the model to do. */
export type TaskFamily =
  | 'differential-diagnosis'
  | 'lesion-recognition'
  | 'rationale-generation'
  | 'classification'
  | 'multiple-choice'
  | 'open-question'
  | 'multi-turn';

export const TASK_FAMILIES: readonly TaskFamily[] = [
  'differential-diagnosis',
  'lesion-recognition',
  'rationale-generation',
  'classification',
  'multiple-choice',
  'open-question',
  'multi-turn',
];

export type Laterality = 'left' | 'right' | 'bilateral' | 'midline';

/** Where a stored image came from, when it was rendered from a medical format. */
export interface ImageSource {
  readonly kind: 'dicom' | 'nifti';
  /** Asset (sha256) of the de-identified source kept for re-windowing: pixel data and rendering tags only. */
  readonly asset: string;
  /**
   * Frame (DICOM multi-frame) or slice index (NIfTI) that was rendered. For a
   * DICOM series the asset is a volume and this is the slice in `plane`.
   */
  readonly frame?: number;
  readonly plane?: Plane;
  /** Window used for the rendered PNG. */
  readonly window?: { readonly center: number; readonly width: number; readonly preset?: string };
}

/** One image of a case, in the order it is shown to the model. */
export interface CaseImage {
  /** Path inside the bundle (`images/…`). On import it is replaced by the content hash. */
  readonly path: string;
  /** SHA-256 of the image bytes (hex); the key of the stored asset. */
  readonly sha256?: string;
  readonly mime?: string;
  readonly width?: number;
  readonly height?: number;
  /** MRI sequence or CT kernel label, e.g. `FLAIR`, `T1C+`, `DWI`, `CT`. */
  readonly sequence?: string;
  readonly plane?: Plane | string;
  readonly slice?: number | string;
  readonly label?: string;
  readonly source?: ImageSource;
}

export interface QuestionOption {
  /** Letter or key shown to the model, e.g. `A`. */
  readonly key: string;
  readonly text: string;
  /**
   * An option that is an image (TemMed-Bench's image-pair selection): the
   * index into the case's `images` shown as this option, labelled with its
   * key where the options are listed. `text` may then be empty.
   */
  readonly image?: number;
}

export interface RubricItem {
  readonly id: string;
  readonly text: string;
  /** Signed points; negative items penalise (hallucination, unsafe advice). */
  readonly points: number;
  /** Axes or themes the item belongs to (HealthBench `axis:accuracy`, `theme:emergency_referrals`): rubric points are broken down by tag. */
  readonly tags?: readonly string[];
}

/** Whether a short answer is closed (yes/no, or a choice the question states) or open, as VQA-RAD and SLAKE label questions. */
export type ShortAnswerType = 'open' | 'closed';

/** How a number is compared (scoring/answers/numeric.ts, MedCalc-Bench's rules). */
export type NumericKind = 'decimal' | 'integer' | 'date' | 'weeks-days';

/** A number, date or duration answer. */
export interface NumericAnswer {
  /** The ground truth as written: `17.3`, `08/21/2021`, `(4 weeks, 2 days)`. */
  readonly value: string;
  /** Inclusive limits a decimal answer must fall within (MedCalc-Bench's Lower/Upper Limit). */
  readonly lower?: number;
  readonly upper?: number;
  readonly kind?: NumericKind;
  /** MedCalc-Bench's calculator id: decides the rule as the benchmark's evaluator does. */
  readonly calculatorId?: number;
}

/** How the numbers of a box relate to its image: fractions (0–1), Qwen-VL's 0–1000 grid, or pixels. */
export const BOX_FRAMES = ['fraction', 'grid1000', 'pixels'] as const;
export type BoxFrame = (typeof BOX_FRAMES)[number];

/** A reference box on one of the case's images: x1, y1 (top left), x2, y2 (bottom right). */
export interface ReferenceBox {
  readonly x1: number;
  readonly y1: number;
  readonly x2: number;
  readonly y2: number;
  /** Index into the case's `images` (default 0). */
  readonly image?: number;
  readonly label?: string;
}

/** The answer key of one question. Absent fields are not scored. */
export interface ReferenceAnswer {
  readonly diagnosis?: string;
  /** Equivalent names for the diagnosis: spellings, abbreviations, synonyms. */
  readonly aliases?: readonly string[];
  /** Ranked differential, most likely first. */
  readonly differential?: readonly string[];
  readonly lesion?: {
    readonly type?: string;
    readonly location?: string;
    readonly laterality?: Laterality | null;
    readonly sequence?: string;
  };
  /** Expert narrative the model's rationale is compared with. */
  readonly rationale?: string;
  readonly rubric?: readonly RubricItem[];
  /**
   * Per-field labels (NeuroVLM-Bench: diagnosis_name, diagnosis_detailed,
   * modality, specialized_sequence, plane). `null` means the ground truth is
   * unknown: the field is *not scorable*, never counted wrong.
   */
  readonly labels?: Readonly<Record<string, string | null>>;
  /** Correct option key for multiple choice. */
  readonly answer?: string;
  /** A short free-text answer (VQA-RAD, SLAKE): normalised exact match and token recall, split by answer type. */
  readonly short?: { readonly text: string; readonly type?: ShortAnswerType };
  /** A number, date or duration (MedCalc-Bench). */
  readonly numeric?: NumericAnswer;
  /** Boxes on the case's images (grounding: MedSG-Bench), with the frame their numbers are in (default `pixels`). */
  readonly boxes?: readonly ReferenceBox[];
  readonly boxFrame?: BoxFrame;
}

/** A follow-up turn of a multi-round case, revealed after the model's previous answer. */
interface FollowUp {
  readonly id: string;
  readonly text: string;
  /** Indices into `images` shown with this turn (new findings revealed mid-dialogue). */
  readonly images?: readonly number[];
  readonly reference?: ReferenceAnswer;
}

export interface Question {
  readonly id: string;
  readonly text: string;
  /** BCP-47 language tag when known, e.g. `zh`; text is kept exactly as given. */
  readonly lang?: string;
  readonly options?: readonly QuestionOption[];
  readonly followUps?: readonly FollowUp[];
  /** Items that only count together (MediConfusion pairs) share a `pairId`. */
  readonly pairId?: string;
  readonly reference?: ReferenceAnswer;
}

export interface BenchCase {
  readonly id: string;
  /** Split or level, e.g. `direct`, `complex`, `multi-round`, `test`, `few-shot`. */
  readonly split?: string;
  readonly taskFamily: TaskFamily;
  /** Imaging modality, e.g. `MRI`, `CT`. */
  readonly modality?: string;
  readonly sequences?: readonly string[];
  /** Disease group for breakdowns, e.g. `tumor`, `stroke`, `multiple sclerosis`, `normal`. */
  readonly diseaseGroup?: string;
  /**
   * The benchmark's own sub-task or question type, for the breakdown its
   * paper reports (MedSG-Bench's `task`, OmniMedVQA's `question_type`).
   */
  readonly subtask?: string;
  readonly images: readonly CaseImage[];
  /** Structured EHR fields (age, sex, history…). */
  readonly ehr?: Readonly<Record<string, string | number | boolean | null>>;
  /** Free-text clinical notes / vignette. */
  readonly notes?: string;
  readonly questions: readonly Question[];
  /** Provenance of the row (source dataset, original file path…). Free-form strings. */
  readonly meta?: Readonly<Record<string, string>>;
}

/**
 * What an answer of a benchmark is, and so the protocol that asks for it and
 * scores it: an option key (`choice`), a word or phrase (`short`), a number,
 * date or duration (`numeric`), boxes (`boxes`), rubric points (`rubric`), a
 * ranked differential (`diagnosis`), a NeuroVLM-Bench class (`class`), or free
 * text (`free-text`). docs/formats/bundle.md, "Declaring the task".
 */
export const ANSWER_TYPES = ['choice', 'short', 'numeric', 'boxes', 'rubric', 'diagnosis', 'class', 'free-text'] as const;
export type AnswerType = (typeof ANSWER_TYPES)[number];

/** A numeric answer without limits is right within this distance of the reference: the larger of the absolute one and the relative one × |reference|. */
export interface NumericTolerance {
  readonly absolute?: number;
  readonly relative?: number;
}

/**
 * A benchmark's task, declared instead of coded: its answer type, the prompt
 * it asks with, and its scorer's settings. A hospital team adds its own
 * benchmark with one from the import form; the dataset presets are written
 * in this form.
 */
export interface TaskDeclaration {
  readonly answerType: AnswerType;
  /** The prompt, with the answer type's placeholders (`{{question}}`, `{{options}}`…); absent: the answer type's own prompt. */
  readonly prompt?: { readonly system?: string; readonly user: string };
  /** Scorer settings: a numeric answer without limits is right within this tolerance of the reference (the larger of the two). */
  readonly scorer?: { readonly tolerance?: NumericTolerance };
}

/** Defaults a protocol uses when the user does not override them. */
export interface ProtocolDefaults {
  /** The declared task: its answer type decides the protocol (over `protocol`), its prompt the template. */
  readonly task?: TaskDeclaration;
  /** Protocol id, e.g. `neurovlm-structured`, `nmb-differential`, `mcq`. */
  readonly protocol?: string;
  /** Path of a prompt file inside the bundle (`prompts/…`). */
  readonly prompt?: string;
  /** Case ids used as few-shot exemplars, in order. */
  readonly fewShotCaseIds?: readonly string[];
}

export interface BundleManifest {
  readonly format: typeof BUNDLE_FORMAT;
  readonly formatVersion: typeof BUNDLE_FORMAT_VERSION;
  /** Stable identifier (lower-case letters, digits, `-`, `_`, `.`). */
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly license: string;
  readonly description?: string;
  /** True for generated data that is not clinical (the bundled demo). */
  readonly synthetic?: boolean;
  /** Where the content came from: importer kind, original files, citation. */
  readonly source?: { readonly kind: string; readonly files?: readonly string[]; readonly citation?: string; readonly url?: string };
  readonly protocolDefaults?: ProtocolDefaults;
  /** SHA-256 of the canonical content (see content-hash.ts). */
  readonly contentHash: string;
  readonly caseCount: number;
  readonly imageCount: number;
}

/** A benchmark in memory: manifest, cases, image bytes by path, extra files (prompts). */
export interface Bundle {
  readonly manifest: BundleManifest;
  readonly cases: readonly BenchCase[];
  /** Image bytes keyed by the `path` cases use. */
  readonly images: ReadonlyMap<string, Uint8Array>;
  /** Other files kept with the benchmark (prompt text), keyed by bundle path. */
  readonly files: ReadonlyMap<string, Uint8Array>;
}
