/**
 * Column maps of the medical VQA benchmarks as their publishers lay them out,
 * each checked against the dataset card cited here. A preset is recognised
 * from the columns of the chosen files (every `signature` column present) and
 * fills the column mapping; the user can still change it. How to bring each
 * dataset onto an air-gapped machine: docs/datasets.md.
 */
import type { TaskDeclaration } from '../../bundle/types.ts';
import { ROW_NUMBER, type GenericMapping } from '../generic-mapping.ts';

export interface DatasetPreset {
  readonly id: string;
  readonly name: string;
  /** The dataset card the column map was checked against. */
  readonly card: string;
  /** Which files to choose, as the card lays them out. */
  readonly files: string;
  /** Columns that together identify the layout (exact names). */
  readonly signature: readonly string[];
  /** The files have these columns and no others (a layout too plain to tell apart otherwise). */
  readonly exact?: boolean;
  readonly mapping: GenericMapping;
  /** The task, declared as a bundle declares it (its answer type; its prompt and scorer are that type's own). */
  readonly task: TaskDeclaration;
  /** What the answers are scored as, in words. */
  readonly scoredAs: string;
}

export const DATASET_PRESETS: readonly DatasetPreset[] = [
  {
    id: 'slake',
    name: 'SLAKE',
    card: 'https://huggingface.co/datasets/BoKelvin/SLAKE',
    files: 'test.json (or train.json, validation.json) and imgs.zip',
    signature: ['img_name', 'question', 'answer', 'answer_type', 'qid', 'q_lang'],
    mapping: { id: 'qid', question: 'question', image: ['img_name'], shortAnswer: 'answer', answerType: 'answer_type', modality: 'modality' },
    task: { answerType: 'short' },
    scoredAs: 'short answers: exact match (lmms-eval), open and closed questions apart',
  },
  {
    id: 'vqa-rad',
    name: 'VQA-RAD',
    card: 'https://huggingface.co/datasets/flaviagiammarino/vqa-rad',
    files: 'data/test-00000-of-00001-*.parquet (choose the test split)',
    signature: ['image', 'question', 'answer'],
    exact: true,
    // No id column, and questions repeat across images: the row number is the id.
    mapping: { id: ROW_NUMBER, question: 'question', image: ['image'], shortAnswer: 'answer' },
    task: { answerType: 'short' },
    scoredAs: 'short answers: exact match, yes/no answers as closed questions',
  },
  {
    id: 'pmc-vqa',
    name: 'PMC-VQA',
    card: 'https://huggingface.co/datasets/xmcmic/PMC-VQA',
    files: 'test_clean.csv (or test.csv) and the figures from images.zip',
    signature: ['Figure_path', 'Question', 'Choice A', 'Choice B', 'Answer_label'],
    mapping: { id: ROW_NUMBER, question: 'Question', image: ['Figure_path'], options: ['Choice A', 'Choice B', 'Choice C', 'Choice D'], answer: 'Answer_label', defaultTaskFamily: 'multiple-choice' },
    task: { answerType: 'choice' },
    scoredAs: 'multiple choice: the option key A–D',
  },
  {
    id: 'omnimedvqa',
    name: 'OmniMedVQA',
    card: 'https://huggingface.co/datasets/foreverbeliever/OmniMedVQA',
    files: 'a JSON file of QA_information/Open-access/ and the Images folder',
    signature: ['question_id', 'question', 'gt_answer', 'image_path', 'option_A'],
    mapping: { id: 'question_id', question: 'question', image: ['image_path'], options: ['option_A', 'option_B', 'option_C', 'option_D'], answer: 'gt_answer', modality: 'modality_type', subtask: 'question_type', defaultTaskFamily: 'multiple-choice' },
    task: { answerType: 'choice' },
    scoredAs: 'multiple choice: the answer text is stored as its option key',
  },
  {
    id: 'medxpertqa-mm',
    name: 'MedXpertQA MM',
    card: 'https://huggingface.co/datasets/TsinghuaC3I/MedXpertQA',
    files: 'MM/test.jsonl and images.zip',
    signature: ['id', 'question', 'options', 'label', 'images', 'medical_task'],
    mapping: { id: 'id', question: 'question', image: ['images'], options: ['options'], answer: 'label', subtask: 'question_type', defaultTaskFamily: 'multiple-choice' },
    task: { answerType: 'choice' },
    scoredAs: 'multiple choice: the option key A–E',
  },
  {
    id: 'medcalc-bench',
    name: 'MedCalc-Bench',
    card: 'https://huggingface.co/datasets/ncbi/MedCalc-Bench',
    files: 'data/test-00000-of-00001.parquet',
    signature: ['Row Number', 'Calculator ID', 'Patient Note', 'Question', 'Ground Truth Answer', 'Lower Limit', 'Upper Limit'],
    mapping: {
      id: 'Row Number', question: 'Question', notes: 'Patient Note', numericAnswer: 'Ground Truth Answer', numericLower: 'Lower Limit', numericUpper: 'Upper Limit', calculatorId: 'Calculator ID',
      subtask: 'Category',
    },
    task: { answerType: 'numeric' },
    scoredAs: "numbers, dates and durations by MedCalc-Bench's rules",
  },
  {
    id: 'healthbench',
    name: 'HealthBench',
    // OpenAI publishes the JSONL beside simple-evals; this card mirrors the same files and describes their fields.
    card: 'https://huggingface.co/datasets/Tonic/Health-Bench-Eval-OSS-2025-07',
    files: 'the oss_eval JSONL (text only)',
    signature: ['prompt', 'rubrics', 'prompt_id'],
    mapping: { id: 'prompt_id', question: 'prompt', rubric: 'rubrics' },
    task: { answerType: 'rubric' },
    scoredAs: 'rubric points, overall and per tag (axis and theme), items marked by a local judge or in review',
  },
  {
    id: 'medsg-bench',
    name: 'MedSG-Bench',
    // The Parquet upload of the benchmark (its dataset viewer lists these columns); the images are inside, as binary columns.
    card: 'https://huggingface.co/datasets/MedSG-Bench/MedSG-Bench-parquet',
    files: 'the Parquet file(s) of MedSG-Bench-parquet (images inside)',
    signature: ['task', 'question', 'answer_xyxy', 'num_images', 'image_bytes_1', 'image_bytes_2'],
    // `id` is empty in the upload: the row number is the id. Up to six images per question, in order;
    // the reference box is in pixels. It is read on the sequence's last image (the one the question
    // asks about); the card does not say, and for the registered pairs of the difference tasks the
    // two images have one size, so either reads the same.
    mapping: {
      id: ROW_NUMBER, question: 'question', split: 'split', subtask: 'task',
      image: ['image_bytes_1', 'image_bytes_2', 'image_bytes_3', 'image_bytes_4', 'image_bytes_5', 'image_bytes_6'],
      boxes: 'answer_xyxy', boxFrame: 'pixels', boxImage: 'last',
    },
    task: { answerType: 'boxes' },
    scoredAs: 'boxes: IoU with the reference box, and right at IoU ≥ 0.5 (Acc@0.5)',
  },
];

/** The preset whose signature columns the files have (the most specific first), if any. */
export function presetFor(columns: readonly string[]): DatasetPreset | undefined {
  const have = new Set(columns);
  return [...DATASET_PRESETS]
    .sort((a, b) => b.signature.length - a.signature.length)
    .find((p) => p.signature.every((c) => have.has(c)) && (!p.exact || have.size === p.signature.length));
}
