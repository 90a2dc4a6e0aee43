/**
 * NeuroVLM-Bench (arXiv 2603.24846): an index CSV (`image_mapping.csv`, a
 * `subset_*.csv`) with columns dataset, file_path, class, original_class,
 * subclass, modality, modality_subtype, plane in any order (file_path and
 * class are required), plus the image folder the user picked; optionally the
 * benchmark's prompt (`prompt*.txt`) and few-shot list (`few_shot*.csv`).
 *
 * Image lookup follows path-match.ts: exact relative path, else one folder
 * offset (picked above or below the CSV's root) chosen for the whole import.
 * Empty ground truth stays `null` (not scorable); spellings such as
 * `neurocitoma` are kept verbatim: normalising them is the scorer's job.
 * Labels outside the benchmark's label set are warned about (formulas are
 * refused): see neurovlm-labels.ts.
 */
import { count } from '../text/plural.ts';
import type { ErrorLocation } from '../errors.ts';
import type { BenchCase, CaseImage } from '../bundle/types.ts';
import { baseName, extensionOf, type Importer } from '../bundle/importer.ts';
import { NeuroVlmLabelCheck } from './neurovlm-labels.ts';
import { PathImages } from './path-images.ts';
import { CaseIds, Issues, Ticker, draftManifest, firstLine, headText, newParts, readTable, stem, stringOption, toDraft, type TableRow } from './support.ts';

const REQUIRED = ['file_path', 'class'] as const;
const FEW_SHOT_SPLIT = 'few-shot';
/** Few-shot exemplars get their own ids: the same image may also be an evaluation case. */
export const FEW_SHOT_ID_PREFIX = 'few-shot/';
/** Short stand-in question; the protocol supplies the benchmark's real prompt. */
const NVB_QUESTION = 'Classify this head scan: modality, MRI sequence, plane, diagnosis and subtype.';
const PROMPT_MARKER = 'OUTPUT (strict JSON schema)';

interface Sheet {
  readonly file: string;
  readonly fewShot: boolean;
  readonly split: string;
  readonly rows: readonly TableRow[];
}

function headerCells(text: string): string[] {
  return firstLine(text)
    .split(/[,\t]/)
    .map((h) => h.trim().replace(/^"|"$/g, ''));
}

function isFewShotName(path: string): boolean {
  return /^few[-_ ]?shot/i.test(baseName(path));
}

export const neuroVlmBenchImporter: Importer = {
  kind: 'neurovlm-bench',
  label: 'NeuroVLM-Bench (index CSV + image folder)',

  async detect(files) {
    for (const f of files) {
      if (extensionOf(f.path) !== 'csv') continue;
      const cells = headerCells(await headText(f, 4096));
      if (cells.includes('file_path') && cells.includes('class')) return 0.9;
    }
    return 0;
  },

  async read(files, ctx) {
    const issues = new Issues();
    const parts = newParts();
    const sheets: Sheet[] = [];
    let prompt: string | undefined;
    let candidates = 0;
    for (const f of files) {
      const ext = extensionOf(f.path);
      if (ext === 'csv') {
        const text = await f.text();
        const header = headerCells(text);
        if (!header.includes('file_path') && !header.includes('class')) continue;
        candidates++;
        const table = readTable(text, ',', f.path, issues);
        const missing = REQUIRED.filter((c) => !table.header.includes(c));
        for (const c of missing) issues.error(`${baseName(f.path)} has no "${c}" column (required).`, { file: f.path, line: 1, field: c });
        if (missing.length) continue;
        const fewShot = isFewShotName(f.path);
        sheets.push({ file: f.path, fewShot, split: fewShot ? FEW_SHOT_SPLIT : (stringOption(ctx, 'split') ?? stem(f.path)), rows: table.rows });
      } else if (ext === 'txt' && !prompt) {
        const bytes = await f.bytes();
        if (/^prompt/i.test(baseName(f.path)) || (await f.text()).includes(PROMPT_MARKER)) {
          prompt = `prompts/${baseName(f.path)}`;
          parts.files.set(prompt, bytes);
        }
      }
    }
    if (candidates === 0) issues.error('No NeuroVLM-Bench index found: expected a CSV with "file_path" and "class" columns.', { file: files[0]?.path ?? '' });

    // Evaluation sheets first, so a few-shot row never takes an id or an image path before them.
    sheets.sort((a, b) => Number(a.fewShot) - Number(b.fewShot));
    const total = sheets.reduce((n, s) => n + s.rows.length, 0);
    const images = new PathImages(files, sheets.flatMap((s) => s.rows.map((r) => r.values.file_path ?? '')), issues, parts);
    const ids = new CaseIds(issues);
    const ticker = new Ticker(ctx, total);
    const fewShotCaseIds: string[] = [];
    const labels = new NeuroVlmLabelCheck();
    let notFound = 0;
    for (const sheet of sheets) {
      for (const row of sheet.rows) {
        await ticker.step();
        labels.row(sheet.file, row);
        const fp = (row.values.file_path ?? '').trim();
        const loc: ErrorLocation = { file: sheet.file, line: row.line, field: 'file_path' };
        if (!fp) {
          issues.error('This row has no file_path.', loc);
          continue;
        }
        const id = sheet.fewShot ? FEW_SHOT_ID_PREFIX + fp : fp;
        if (!ids.claim(id, loc)) continue;
        if (!images.file(fp)) {
          notFound++;
          parts.skipped.push({ id, reason: `image not found: ${fp}`, location: loc });
          continue;
        }
        const image = await images.load(fp, loc);
        if (!image) continue;
        parts.cases.push(toCase(id, sheet.split, row, image));
        if (sheet.fewShot) fewShotCaseIds.push(id);
      }
    }
    ticker.finish();
    images.report();
    labels.report(issues);
    reportLeaks(sheets, new Set(parts.cases.map((c) => c.id)), issues);
    if (total > 0 && notFound === total) {
      issues.warn(`None of the ${count(total, 'image')} named in the index was found. Pick the folder that holds the dataset folders (e.g. images-17/, stroke/).`, { file: sheets[0]!.file });
    }

    const evalSplits = [...new Set(sheets.filter((s) => !s.fewShot).map((s) => s.split))];
    const manifest = draftManifest(ctx, {
      id: `neurovlm-bench-${evalSplits.join('-') || FEW_SHOT_SPLIT}`,
      name: `NeuroVLM-Bench (${evalSplits.join(', ') || FEW_SHOT_SPLIT})`,
      version: '1',
      license: 'unknown',
      description: '2D brain MRI/CT slices, 5 classes; one structured JSON answer per image. Images keep their source datasets’ licences.',
      source: {
        kind: 'neurovlm-bench',
        files: [...sheets.map((s) => s.file), ...(prompt ? [prompt.slice('prompts/'.length)] : [])],
        citation: 'arXiv:2603.24846',
        url: 'https://github.com/ChatMED/neurovlm-bench',
      },
      protocolDefaults: {
        protocol: 'neurovlm-structured',
        ...(prompt ? { prompt } : {}),
        ...(fewShotCaseIds.length ? { fewShotCaseIds } : {}),
      },
    });
    return toDraft(manifest, parts, issues);
  },
};

function cell(row: TableRow, column: string): string | null {
  const v = row.values[column]?.trim();
  return v ? v : null;
}

function toCase(id: string, split: string, row: TableRow, found: CaseImage): BenchCase {
  const cls = cell(row, 'class');
  const modality = cell(row, 'modality');
  const sequence = cell(row, 'modality_subtype');
  const plane = cell(row, 'plane');
  const image: CaseImage = { ...found, ...(sequence ? { sequence } : {}), ...(plane ? { plane } : {}) };
  const meta: Record<string, string> = { file_path: (row.values.file_path ?? '').trim() };
  for (const key of ['dataset', 'original_class'] as const) {
    const v = cell(row, key);
    if (v) meta[key] = v;
  }
  return {
    id,
    split,
    taskFamily: 'classification',
    ...(cls ? { diseaseGroup: cls } : {}),
    ...(modality ? { modality } : {}),
    ...(sequence ? { sequences: [sequence] } : {}),
    images: [image],
    questions: [
      {
        id: 'q1',
        text: NVB_QUESTION,
        reference: {
          labels: {
            diagnosis_name: cls,
            diagnosis_detailed: cell(row, 'subclass'),
            modality,
            specialized_sequence: sequence,
            plane,
          },
        },
      },
    ],
    meta,
  };
}

/** Few-shot exemplars that are also evaluation cases: the model would see the answer. */
function reportLeaks(sheets: readonly Sheet[], caseIds: ReadonlySet<string>, issues: Issues): void {
  for (const sheet of sheets.filter((s) => s.fewShot)) {
    const leaked = sheet.rows.filter((r) => caseIds.has((r.values.file_path ?? '').trim()));
    if (leaked.length) {
      issues.warn(
        `${count(leaked.length, 'few-shot exemplar')} ${leaked.length === 1 ? 'is' : 'are'} also evaluation cases (first: line ${leaked[0]!.line}); a run that uses them as examples sees those answers.`,
        { file: sheet.file, line: leaked[0]!.line, field: 'file_path' },
      );
    }
  }
}
