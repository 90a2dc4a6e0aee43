/**
 * Small files in the published layouts of the medical VQA benchmarks, made
 * here (never downloaded): Parquet as Hugging Face's `datasets` writes it
 * (image columns as `struct<bytes: binary, path: string>`, option lists as
 * `list<string>`, one file per split shard), JSON arrays, JSONL and CSV.
 * Each dataset's columns follow its card, cited in the presets
 * (src/core/importers/presets/).
 */
import { parquetWriteBuffer } from 'hyparquet-writer';
import { zipSync } from 'fflate';
import { memoryFile, type InputFile } from '../../src/core/bundle/importer.ts';
import { encodePng } from '../../src/core/imaging/png-encode.ts';

type Kind = 'string' | 'int64' | 'double' | 'boolean' | 'binary' | 'image' | 'images' | 'strings' | 'ints';
export interface ParquetColumnSpec {
  readonly name: string;
  readonly kind: Kind;
}

/** A 6×6 grey PNG whose pixels depend on `seed`, so every image is distinct. */
export function seededPng(seed: number): Uint8Array {
  const pixels = new Uint8Array(36);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 29 + seed * 53) & 0xff;
  return encodePng(pixels, 6, 6);
}

function schemaOf(columns: readonly ParquetColumnSpec[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [{ name: 'schema', num_children: columns.length }];
  const str = (name: string) => ({ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' });
  const image = (name: string) => [
    { name, repetition_type: 'OPTIONAL', num_children: 2 },
    { name: 'bytes', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL' },
    { name: 'path', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
  ];
  for (const c of columns) {
    if (c.kind === 'string') out.push(str(c.name));
    else if (c.kind === 'int64') out.push({ name: c.name, type: 'INT64', repetition_type: 'OPTIONAL' });
    else if (c.kind === 'double') out.push({ name: c.name, type: 'DOUBLE', repetition_type: 'OPTIONAL' });
    else if (c.kind === 'boolean') out.push({ name: c.name, type: 'BOOLEAN', repetition_type: 'OPTIONAL' });
    else if (c.kind === 'binary') out.push({ name: c.name, type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL' });
    else if (c.kind === 'ints') {
      out.push({ name: c.name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 }, { name: 'list', repetition_type: 'REPEATED', num_children: 1 }, { name: 'element', type: 'INT64', repetition_type: 'OPTIONAL' });
    }
    else if (c.kind === 'image') out.push(...image(c.name));
    else if (c.kind === 'strings') {
      out.push({ name: c.name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 }, { name: 'list', repetition_type: 'REPEATED', num_children: 1 }, str('element'));
    } else {
      out.push({ name: c.name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 }, { name: 'list', repetition_type: 'REPEATED', num_children: 1 });
      const [struct, ...fields] = image('element');
      out.push(struct!, ...fields);
    }
  }
  return out;
}

/** INT64 values are written as BigInt, in a column of them or a list of them. */
function int64s(kind: Kind, v: unknown): unknown {
  if (kind === 'int64' && typeof v === 'number') return BigInt(v);
  if (kind === 'ints' && Array.isArray(v)) return v.map((x) => (typeof x === 'number' ? BigInt(x) : x));
  return v;
}

/** A Parquet file (snappy pages, `rowGroupSize` rows per group) with Hugging Face's column types. */
export function parquetBytes(columns: readonly ParquetColumnSpec[], rows: readonly Record<string, unknown>[], rowGroupSize = 2): Uint8Array {
  const buffer = parquetWriteBuffer({
    schema: schemaOf(columns) as never,
    columnData: columns.map((c) => ({ name: c.name, data: rows.map((r) => int64s(c.kind, r[c.name] ?? null)) })),
    rowGroupSize,
  });
  return new Uint8Array(buffer);
}

export interface VqaItem {
  readonly question: string;
  readonly answer: string;
}

/**
 * VQA-RAD as flaviagiammarino/vqa-rad publishes it: `data/{train,test}-00000-of-00001-<hash>.parquet`
 * with columns image (struct), question, answer.
 */
export function vqaRadFiles(test: readonly VqaItem[], train: readonly VqaItem[] = [{ question: 'is this a ct?', answer: 'yes' }]): InputFile[] {
  const columns: ParquetColumnSpec[] = [
    { name: 'image', kind: 'image' },
    { name: 'question', kind: 'string' },
    { name: 'answer', kind: 'string' },
  ];
  const rows = (items: readonly VqaItem[], offset: number) => items.map((it, i) => ({ image: { bytes: seededPng(offset + i), path: null }, question: it.question, answer: it.answer }));
  return [
    memoryFile('data/train-00000-of-00001-eb88.parquet', parquetBytes(columns, rows(train, 100))),
    memoryFile('data/test-00000-of-00001-e5bc.parquet', parquetBytes(columns, rows(test, 0))),
  ];
}

export interface SlakeItem extends VqaItem {
  readonly qid: number;
  readonly answerType: 'OPEN' | 'CLOSED';
  readonly lang?: 'en' | 'zh';
}

/**
 * SLAKE as BoKelvin/SLAKE publishes it: `test.json` (a JSON array with
 * img_name, question, answer, answer_type, q_lang, qid…) and the images in
 * `imgs.zip` under `imgs/<folder>/source.jpg`.
 */
export function slakeFiles(items: readonly SlakeItem[]): InputFile[] {
  const rows = items.map((it, i) => ({
    img_id: i,
    img_name: `xmlab${i}/source.jpg`,
    question: it.question,
    answer: it.answer,
    q_lang: it.lang ?? 'en',
    location: 'Brain',
    modality: 'MRI',
    answer_type: it.answerType,
    base_type: 'vqa',
    content_type: 'Organ',
    triple: ['vhead', '_', '_'],
    qid: it.qid,
  }));
  const zip: Record<string, Uint8Array> = {};
  // The images are PNG bytes under a .jpg name, as mislabelled files occur in the wild: the importer sniffs content.
  items.forEach((_, i) => (zip[`imgs/xmlab${i}/source.jpg`] = seededPng(200 + i)));
  return [memoryFile('test.json', JSON.stringify(rows, null, 1)), memoryFile('imgs.zip', zipSync(zip))];
}

export interface McItem {
  readonly question: string;
  readonly choices: readonly [string, string, string, string];
  /** The correct letter. */
  readonly label: 'A' | 'B' | 'C' | 'D';
}

/**
 * PMC-VQA as xmcmic/PMC-VQA publishes it: `test_2.csv` with Figure_path,
 * Question, Answer, Choice A…D (cells that repeat their letter, "A:…"),
 * Answer_label, and the figures in a folder.
 */
export function pmcVqaFiles(items: readonly McItem[]): InputFile[] {
  const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;
  const lines = ['Figure_path,Question,Answer,Choice A,Choice B,Choice C,Choice D,Answer_label'];
  const images: InputFile[] = [];
  items.forEach((it, i) => {
    const figure = `PMC${1000 + i}_F1.jpg`;
    const answer = it.choices['ABCD'.indexOf(it.label)]!;
    lines.push([figure, it.question, answer, ...it.choices.map((c, k) => ` ${'ABCD'[k]}:${c} `), it.label].map((v) => quote(v)).join(','));
    images.push(memoryFile(`images/${figure}`, seededPng(300 + i)));
  });
  return [memoryFile('test_2.csv', `${lines.join('\n')}\n`), ...images];
}

/**
 * OmniMedVQA as its release lays it out: one JSON array per source dataset
 * under `QA_information/Open-access/`, entries with question_id, question,
 * gt_answer, option_A…option_D, image_path, modality_type, question_type.
 */
export function omniMedVqaFiles(items: readonly McItem[]): InputFile[] {
  const rows = items.map((it, i) => ({
    dataset: 'Stand-in',
    question_id: `omni_${i}`,
    question_type: 'Disease Diagnosis',
    question: it.question,
    gt_answer: it.choices['ABCD'.indexOf(it.label)],
    image_path: `Images/Stand-in/${i}.png`,
    option_A: it.choices[0],
    option_B: it.choices[1],
    option_C: it.choices[2],
    option_D: it.choices[3],
    modality_type: 'MR',
  }));
  return [
    memoryFile('QA_information/Open-access/Stand-in.json', JSON.stringify(rows, null, 4)),
    ...items.map((_, i) => memoryFile(`Images/Stand-in/${i}.png`, seededPng(400 + i))),
  ];
}

/**
 * GMAI-MMBench-style multiple choice in Parquet with the options as one
 * `list<string>` column and base64 images in a string column (a layout
 * VLMEvalKit-derived uploads use).
 */
export function optionListParquet(items: readonly McItem[]): InputFile[] {
  const columns: ParquetColumnSpec[] = [
    { name: 'index', kind: 'int64' },
    { name: 'image', kind: 'string' },
    { name: 'question', kind: 'string' },
    { name: 'options', kind: 'strings' },
    { name: 'answer', kind: 'string' },
  ];
  const rows = items.map((it, i) => ({ index: i + 1, image: Buffer.from(seededPng(500 + i)).toString('base64'), question: it.question, options: [...it.choices], answer: it.label }));
  return [memoryFile('test-00000-of-00001.parquet', parquetBytes(columns, rows, 3))];
}

export interface MedCalcItem {
  readonly calculatorId: number;
  readonly question: string;
  readonly note: string;
  readonly answer: string;
  /** Empty for calculators scored exactly (the card stores the limits as strings). */
  readonly lower?: string;
  readonly upper?: string;
}

/**
 * MedCalc-Bench as ncbi/MedCalc-Bench publishes it: `data/{train,test}-00000-of-00001.parquet`
 * with the card's columns (Row Number int64, Calculator ID int64, the rest strings,
 * Lower Limit and Upper Limit included). Text only: no image column.
 */
export function medCalcFiles(items: readonly MedCalcItem[]): InputFile[] {
  const s = (name: string): ParquetColumnSpec => ({ name, kind: 'string' });
  const columns: ParquetColumnSpec[] = [
    { name: 'Row Number', kind: 'int64' }, { name: 'Calculator ID', kind: 'int64' }, s('Calculator Name'), s('Category'), s('Output Type'), s('Note ID'), s('Note Type'),
    s('Patient Note'), s('Question'), s('Relevant Entities'), s('Ground Truth Answer'), s('Lower Limit'), s('Upper Limit'), s('Ground Truth Explanation'),
  ];
  const rows = items.map((it, i) => ({
    'Row Number': i + 1, 'Calculator ID': it.calculatorId, 'Calculator Name': `Calculator ${it.calculatorId}`, Category: 'lab', 'Output Type': it.lower ? 'decimal' : 'integer',
    'Note ID': `pmc-${i}`, 'Note Type': 'Extracted', 'Patient Note': it.note, Question: it.question, 'Relevant Entities': '{}', 'Ground Truth Answer': it.answer,
    'Lower Limit': it.lower ?? it.answer, 'Upper Limit': it.upper ?? it.answer, 'Ground Truth Explanation': 'By the formula.',
  }));
  return [memoryFile('data/test-00000-of-00001.parquet', parquetBytes(columns, rows))];
}

/**
 * MedXpertQA MM as TsinghuaC3I/MedXpertQA publishes it: `MM/test.jsonl` with id, question
 * (the choices written into it), options as an object {"A": …, "E": …}, label, images (file
 * names), medical_task, body_system, question_type; the images in `images.zip`.
 */
export function medXpertQaFiles(items: readonly { question: string; options: readonly string[]; label: string }[]): InputFile[] {
  const keys = 'ABCDE';
  const lines = items.map((it, i) =>
    JSON.stringify({
      id: `MM-${i}`,
      question: `${it.question}\nAnswer Choices: ${it.options.map((o, k) => `(${keys[k]}) ${o}`).join(' ')}`,
      options: Object.fromEntries(it.options.map((o, k) => [keys[k]!, o])),
      label: it.label,
      images: [`MM-${i}-a.jpeg`],
      medical_task: 'Diagnosis',
      body_system: 'Nervous',
      question_type: 'Reasoning',
    }),
  );
  const zip: Record<string, Uint8Array> = {};
  items.forEach((_, i) => (zip[`images/MM-${i}-a.jpeg`] = seededPng(600 + i)));
  return [memoryFile('MM/test.jsonl', `${lines.join('\n')}\n`), memoryFile('images.zip', zipSync(zip))];
}

/**
 * HealthBench as OpenAI's simple-evals reads it: JSONL lines with prompt (a
 * conversation of {role, content}), rubrics ({criterion, points, tags}),
 * example_tags and prompt_id. Text only.
 */
export function healthBenchFiles(items: readonly { id: string; turns: readonly { role: string; content: string }[]; rubrics: readonly { criterion: string; points: number; tags: readonly string[] }[] }[]): InputFile[] {
  const lines = items.map((it) => JSON.stringify({ prompt: it.turns, rubrics: it.rubrics, example_tags: ['theme:emergency_referrals'], prompt_id: it.id }));
  return [memoryFile('2025-05-07-06-14-12_oss_eval.jsonl', `${lines.join('\n')}\n`)];
}

export interface MedSgItem {
  readonly task: string;
  readonly question: string;
  /** The reference box x1, y1, x2, y2 in pixels. */
  readonly box: readonly [number, number, number, number];
  /** Seeds of the sequence's images (2 to 6), in order. */
  readonly images: readonly number[];
}

/**
 * MedSG-Bench as its Parquet upload (MedSG-Bench/MedSG-Bench-parquet) lays it out, per its
 * dataset viewer: split, id (empty), task, question, answer_xyxy (list<int64> of four),
 * answer_from, answer_raw_json, additional_info, need_format, conversations_json, images_json,
 * raw_json, extra_json, num_images, then image_path_1…6 (strings) and image_bytes_1…6 (binary
 * PNG), empty beyond the row's images.
 */
export function medSgFiles(items: readonly MedSgItem[]): InputFile[] {
  const s = (name: string): ParquetColumnSpec => ({ name, kind: 'string' });
  const columns: ParquetColumnSpec[] = [
    s('split'), s('id'), s('task'), s('question'), { name: 'answer_xyxy', kind: 'ints' }, s('answer_from'), s('answer_raw_json'), s('additional_info'),
    { name: 'need_format', kind: 'boolean' }, s('conversations_json'), s('images_json'), s('raw_json'), s('extra_json'), { name: 'num_images', kind: 'int64' },
    ...[1, 2, 3, 4, 5, 6].flatMap((n): ParquetColumnSpec[] => [s(`image_path_${n}`), { name: `image_bytes_${n}`, kind: 'binary' }]),
  ];
  const rows = items.map((it, i) => {
    const paths = it.images.map((seed) => `MedSG-Bench/Task${i + 1}/img_${seed}.png`);
    const row: Record<string, unknown> = {
      split: 'bench', id: null, task: it.task, question: it.question, answer_xyxy: [...it.box], answer_from: 'answer_field', answer_raw_json: JSON.stringify(it.box), additional_info: '',
      need_format: true, conversations_json: null, images_json: JSON.stringify(paths), raw_json: JSON.stringify({ task: it.task, images: paths, question: it.question }), extra_json: null, num_images: it.images.length,
    };
    it.images.forEach((seed, k) => {
      row[`image_path_${k + 1}`] = `/data/${paths[k]}`;
      row[`image_bytes_${k + 1}`] = seededPng(seed);
    });
    return row;
  });
  return [memoryFile('bench/MedSG-Bench-00000-of-00001.parquet', parquetBytes(columns, rows))];
}
