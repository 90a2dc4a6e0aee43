/**
 * Benchmark inputs generated on disk for browser tests: the real NeuroVLM-Bench
 * index with stand-in images, a Neural-MedBench-shaped JSON with an answer key,
 * a VLMEvalKit TSV with multi-image rows, DICOM/NIfTI cases, and bad archives.
 * Each lives in a folder from makeTempDir, deleted when the test ends.
 */
import { strToU8, zipSync } from 'fflate';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { encodePng } from '../../src/core/imaging/png-encode.ts';
import { parseDelimited } from '../../src/core/text/delimited.ts';
import { makeDicom, makeNifti } from './fixtures-imaging/index.ts';
import { makeTempDir } from './temp-dir.ts';

/** Files of the public ChatMED/neurovlm-bench repository, kept beside this repository (never copied into it). */
export const REFERENCE = new URL('../../../shared/reference/neurovlm-bench/', import.meta.url);

function write(path: string, data: Uint8Array | string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, data);
  return path;
}

export function grayPng(seed: number, w = 48, h = 48): Uint8Array {
  return encodePng(Uint8Array.from({ length: w * h }, (_, i) => ((i % w) * seed + Math.floor(i / w) * 3) & 0xff), w, h);
}

/** A folder holding subset_sample.csv, the few-shot list, the prompt, and a stand-in PNG per listed image. */
export function neuroVlmFolder(): string {
  const dir = join(makeTempDir('nvb'), 'neurovlm');
  for (const f of ['subset_sample.csv', 'few_shot_examples.csv', 'prompt_5classes_refined.txt']) {
    mkdirSync(dir, { recursive: true });
    copyFileSync(new URL(f, REFERENCE), join(dir, f));
  }
  let i = 1;
  for (const csv of ['subset_sample.csv', 'few_shot_examples.csv']) {
    for (const row of parseDelimited(readFileSync(new URL(csv, REFERENCE), 'utf8'), ',', csv).rows) {
      write(join(dir, row.values.file_path!), grayPng(i++));
    }
  }
  return dir;
}

/** The full image_mapping.csv with a stand-in image for every `every`-th row; returns the folder and how many rows got one. */
export function imageMappingFolder(every: number): { dir: string; present: number; rows: number } {
  const dir = join(makeTempDir('mapping'), 'neurovlm-full');
  mkdirSync(dir, { recursive: true });
  copyFileSync(new URL('image_mapping.csv', REFERENCE), join(dir, 'image_mapping.csv'));
  const rows = parseDelimited(readFileSync(new URL('image_mapping.csv', REFERENCE), 'utf8'), ',', 'image_mapping.csv').rows;
  let present = 0;
  rows.forEach((row, i) => {
    if (i % every !== 0) return;
    write(join(dir, row.values.file_path!), grayPng(i % 200));
    present++;
  });
  return { dir, present, rows: rows.length };
}

/** Neural-MedBench-shaped JSON: PNG bytes labelled image/jpeg, Chinese questions, placeholders; plus an answer key CSV. */
export function neuralMedBenchFiles(): { json: string; key: string } {
  const dir = makeTempDir('nmb');
  const uri = (seed: number) => `data:image/jpeg;base64,${Buffer.from(grayPng(seed)).toString('base64')}`;
  const cases = [
    { case_id: 'case_1', text: 'A 77-year-old woman with progressive memory loss over three years.', images: [uri(2), uri(3)], questions: [{ question_number: 1, question_text: '根据患者的症状和图片,对疾病进行诊断' }] },
    { case_id: 'case_2', text: 'A 45-year-old man with sudden right-sided weakness.', images: [uri(5)], questions: [{ question_number: 1, question_text: '结合患者的病例和图片,分析并诊断出最可能的疾病。' }] },
    { case_id: 'case_3', text: '', images: [], questions: [{ question_number: 1, question_text: '根据患者的症状和图片,对疾病进行诊断' }] },
    { case_id: 'case_4', text: '', images: [], questions: [{ question_number: 1, question_text: '根据患者的症状和图片,对疾病进行诊断' }] },
  ];
  const json = write(join(dir, 'direct-diagnosis.json'), JSON.stringify(cases, null, 2));
  const key = write(join(dir, 'answers.csv'), 'case_id,question_number,diagnosis,aliases,differential\ncase_1,1,Alzheimer disease,AD|Alzheimer\'s disease,Alzheimer disease|vascular dementia|FTD\ncase_2,1,Ischemic stroke,,Ischemic stroke|hemorrhage\n');
  return { json, key };
}

/** VLMEvalKit TSV: a multi-image row (JSON list of base64) and single-image rows. */
export function vlmEvalKitTsv(): string {
  const b64 = (s: number) => Buffer.from(grayPng(s)).toString('base64');
  const rows = [
    ['index', 'image', 'question', 'A', 'B', 'C', 'D', 'answer', 'category', 'l2-category'],
    ['0', b64(4), 'Which sequence is shown?', 'T1', 'T2', 'FLAIR', 'DWI', 'C', 'MRI', 'sequence'],
    ['1', JSON.stringify([b64(6), b64(8)]), 'Which image shows the lesion?', 'First', 'Second', 'Both', 'Neither', 'B', 'MRI', 'lesion'],
    ['2', b64(10), 'What is the modality?', 'CT', 'MRI', 'PET', 'X-ray', 'A', 'CT', 'modality'],
  ];
  return write(join(makeTempDir('vlm'), 'MedBench.tsv'), rows.map((r) => r.join('\t')).join('\n') + '\n');
}

/** A folder with a CSV and DICOM/NIfTI files it points to. */
export function medicalFolder(): string {
  const dir = join(makeTempDir('med'), 'scans');
  write(join(dir, 'cases.csv'), 'case,prompt,file,group\nct-1,Describe the CT.,ct/head.dcm,stroke\nmr-1,Describe the MRI.,mr/brain.nii.gz,tumor\n');
  write(join(dir, 'ct/head.dcm'), makeDicom({ modality: 'CT', rows: 64, columns: 64, bitsAllocated: 16, signed: true, rescale: { slope: 1, intercept: -1024 }, window: { center: 40, width: 80 }, pixel: (_f, r, c) => 1024 + ((r * 7 + c * 5) % 120) }));
  write(join(dir, 'mr/brain.nii.gz'), makeNifti({ dims: [32, 32, 9], gzip: true, datatype: 'int16' }));
  return dir;
}

/** Archives a bundle reader must refuse. */
export function badArchives(): Record<'traversal' | 'truncated' | 'notZip', string> {
  const dir = makeTempDir('bad');
  const manifest = strToU8(JSON.stringify({ format: 'neuroeval-bundle', formatVersion: 1, id: 'evil', name: 'Evil', version: '1', license: 'MIT' }));
  const good = zipSync({ 'manifest.json': manifest, 'cases.jsonl': strToU8('{}\n'), 'xx/evil.txt': strToU8('x') });
  const evil = good.slice();
  const from = strToU8('xx/evil.txt');
  const to = strToU8('../evil.txt');
  for (let i = 0; i < evil.length - from.length; i++) if (from.every((b, j) => evil[i + j] === b)) evil.set(to, i);
  return {
    traversal: write(join(dir, 'traversal.zip'), evil),
    truncated: write(join(dir, 'truncated.zip'), good.subarray(0, good.length - 40)),
    notZip: write(join(dir, 'photo.zip'), grayPng(1)),
  };
}
