/**
 * VLMEvalKit TSV (GMAI-MMBench, MMRareBench, MedFrameQA…): columns index,
 * image, question, A…J (any subset), answer, category, l2-category, hint,
 * optional image_path and split. `image` holds base64, or a list of base64
 * strings (JSON or Python repr) for multi-image rows. VLMEvalKit's dedup
 * convention: a short, all-digit `image` names the `index` of the row whose
 * image it reuses. Without an `image` column, `image_path` names files among
 * the inputs (matched as in path-match.ts).
 */
import { count } from '../text/plural.ts';
import type { ErrorLocation } from '../errors.ts';
import type { CaseImage, QuestionOption, ReferenceAnswer } from '../bundle/types.ts';
import { decodeBase64, identifyImage } from './image-data.ts';
import { extensionOf, type Importer } from '../bundle/importer.ts';
import { PathImages } from './path-images.ts';
import { CaseIds, Issues, Ticker, draftManifest, firstLine, guessCjkLang, headText, newParts, readTable, safeSegment, stem, stringOption, toDraft, type DraftParts, type TableRow } from './support.ts';

const OPTION_KEYS = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J'] as const;

/** VLMEvalKit treats an image cell of at most 64 characters as a reference to another row. */
function indexReference(cell: string): string | undefined {
  const t = cell.trim();
  return t.length > 0 && t.length <= 64 && /^\d+$/.test(t) ? t : undefined;
}

/** One cell → its base64 strings: a JSON list, a Python list repr, or one string. */
export function splitImageCell(cell: string): string[] {
  const t = cell.trim();
  if (!(t.startsWith('[') && t.endsWith(']'))) return t ? [t] : [];
  try {
    const v: unknown = JSON.parse(t);
    if (Array.isArray(v)) return v.map((x) => String(x));
  } catch {
    // Python repr (single quotes); base64 holds no quotes, so a regex is exact.
  }
  return [...t.matchAll(/['"]([^'"]*)['"]/g)].map((m) => m[1]!);
}

function present(v: string | undefined): v is string {
  return v !== undefined && v.trim() !== '' && v.trim().toLowerCase() !== 'nan';
}

export const vlmEvalKitImporter: Importer = {
  kind: 'vlmevalkit',
  label: 'VLMEvalKit TSV (multiple choice with base64 images)',

  async detect(files) {
    for (const f of files) {
      if (extensionOf(f.path) !== 'tsv') continue;
      // pandas' to_csv(quoting=QUOTE_ALL), as VLMEvalKit itself writes TSVs, quotes the header cells too.
      const cells = firstLine(await headText(f, 4096)).split('\t').map((c) => c.trim().replace(/^"(.*)"$/, '$1'));
      if (cells.includes('index') && (cells.includes('image') || cells.includes('image_path')) && cells.includes('question')) return 0.9;
    }
    return 0;
  },

  async read(files, ctx) {
    const issues = new Issues();
    const parts = newParts();
    const ids = new CaseIds(issues);
    const sheets: { file: string; header: readonly string[]; rows: readonly TableRow[] }[] = [];
    for (const f of files) {
      if (extensionOf(f.path) !== 'tsv') continue;
      const table = readTable(await f.text(), '\t', f.path, issues);
      const missing = ['index', 'question'].filter((c) => !table.header.includes(c));
      if (!table.header.includes('image') && !table.header.includes('image_path')) missing.push('image');
      for (const c of missing) issues.error(`The TSV has no "${c}" column (required).`, { file: f.path, line: 1, field: c });
      if (!missing.length) sheets.push({ file: f.path, ...table });
    }
    if (sheets.length === 0 && !issues.list.length) issues.error('No VLMEvalKit TSV found (a .tsv with index, image and question columns).', { file: files[0]?.path ?? '' });

    const ticker = new Ticker(ctx, sheets.reduce((n, s) => n + s.rows.length, 0));
    const noAnswer: string[] = [];
    for (const sheet of sheets) {
      const byPath = sheet.header.includes('image') ? undefined : new PathImages(files, sheet.rows.flatMap((r) => splitImageCell(r.values.image_path ?? '')), issues, parts);
      const images = new ImageTable(sheet.file, sheet.rows, issues, parts, byPath);
      const optionKeys = OPTION_KEYS.filter((k) => sheet.header.includes(k));
      const hasAnswer = sheet.header.includes('answer');
      let emptyAnswers = 0;
      let strayAnswers = 0;
      let firstStray: number | undefined;
      for (const row of sheet.rows) {
        await ticker.step();
        const v = row.values;
        const at = (field: string): ErrorLocation => ({ file: sheet.file, line: row.line, field });
        const id = (v.index ?? '').trim();
        if (!id) {
          issues.error('This row has no index.', at('index'));
          continue;
        }
        if (!ids.claim(id, at('index'))) continue;
        const question = v.question ?? '';
        if (!question.trim()) {
          issues.error(`Row ${id} has no question text.`, at('question'));
          continue;
        }
        const caseImages = await images.forRow(row);
        if (!caseImages) continue;
        const options: QuestionOption[] = optionKeys.filter((k) => present(v[k])).map((k) => ({ key: k, text: v[k]! }));
        let reference: ReferenceAnswer | undefined;
        if (hasAnswer && present(v.answer)) {
          const answer = v.answer.trim();
          reference = { answer };
          if (options.length && !options.some((o) => o.key === answer)) {
            strayAnswers++;
            firstStray ??= row.line;
          }
        } else if (hasAnswer) emptyAnswers++;
        const lang = guessCjkLang(question);
        const meta: Record<string, string> = {};
        for (const key of ['l2-category', 'split', 'image_path'] as const) if (present(v[key])) meta[key] = v[key].trim();
        const split = present(v.split) ? v.split.trim() : (stringOption(ctx, 'split') ?? stem(sheet.file));
        parts.cases.push({
          id,
          split,
          taskFamily: options.length ? 'multiple-choice' : 'open-question',
          ...(present(v.category) ? { diseaseGroup: v.category.trim() } : {}),
          images: caseImages,
          ...(present(v.hint) ? { notes: v.hint } : {}),
          questions: [{ id: 'q1', text: question, ...(lang ? { lang } : {}), ...(options.length ? { options } : {}), ...(reference ? { reference } : {}) }],
          ...(Object.keys(meta).length ? { meta } : {}),
        });
      }
      byPath?.report();
      if (!hasAnswer) noAnswer.push(sheet.file);
      if (emptyAnswers) issues.warn(`${count(emptyAnswers, 'row')} have an empty answer and cannot be scored.`, { file: sheet.file, field: 'answer' });
      if (strayAnswers) {
        issues.warn(`${count(strayAnswers, 'answer')} name no option of their row (first: line ${firstStray}).`, { file: sheet.file, line: firstStray!, field: 'answer' });
      }
    }
    ticker.finish();
    for (const file of noAnswer) {
      issues.warn('This file has no "answer" column (a test split): its cases are imported without answers and cannot be scored.', { file, field: 'answer' });
    }
    const name = stem(sheets[0]?.file ?? 'vlmevalkit');
    const manifest = draftManifest(ctx, {
      id: name,
      name,
      version: '1',
      license: 'unknown',
      source: { kind: 'vlmevalkit', files: sheets.map((s) => s.file) },
      protocolDefaults: { protocol: 'mcq' },
    });
    return toDraft(manifest, parts, issues);
  },
};

/** Decodes each row's images once; rows referring to another row's index reuse its images (and bundle paths). */
class ImageTable {
  private readonly owners = new Map<string, TableRow>();
  private readonly decoded = new Map<string, CaseImage[] | null>();

  constructor(
    private readonly file: string,
    rows: readonly TableRow[],
    private readonly issues: Issues,
    private readonly parts: DraftParts,
    private readonly paths: PathImages | undefined,
  ) {
    for (const r of rows) {
      const index = (r.values.index ?? '').trim();
      if (index && !this.owners.has(index) && !indexReference(r.values.image ?? '')) this.owners.set(index, r);
    }
  }

  /** The row's images, or null when they could not be read (errors already reported). */
  async forRow(row: TableRow): Promise<CaseImage[] | null> {
    if (this.paths) return this.fromPaths(row, this.paths);
    const ref = indexReference(row.values.image ?? '');
    const own = (row.values.index ?? '').trim();
    if (ref === undefined) return this.decode(own, row);
    const target = this.owners.get(ref);
    if (!target) {
      this.issues.error(`The image cell refers to row index ${ref}, which has no image of its own.`, { file: this.file, line: row.line, field: 'image' });
      return null;
    }
    return this.decode(ref, target);
  }

  private decode(index: string, row: TableRow): CaseImage[] | null {
    const cached = this.decoded.get(index);
    if (cached !== undefined) return cached;
    const loc: ErrorLocation = { file: this.file, line: row.line, field: 'image' };
    const cells = splitImageCell(row.values.image ?? '');
    let result: CaseImage[] | null = [];
    if (cells.length === 0) this.issues.warn(`Row ${index} has no image.`, loc);
    for (let n = 0; n < cells.length && result; n++) {
      const bytes = decodeBase64(cells[n]!);
      const what = cells.length > 1 ? `Image ${n + 1} of row ${index}` : `The image of row ${index}`;
      if (!bytes) {
        this.issues.error(`${what} is not valid base64.`, loc);
        result = null;
        break;
      }
      const kind = identifyImage(bytes);
      if ('error' in kind) {
        this.issues.error(`${what} ${kind.error}.`, loc);
        result = null;
        break;
      }
      const path = `images/${safeSegment(index)}${cells.length > 1 ? `-${n + 1}` : ''}.${kind.ext}`;
      this.parts.images.set(path, bytes);
      result.push({ path, mime: kind.mime });
    }
    this.decoded.set(index, result);
    return result;
  }

  private async fromPaths(row: TableRow, paths: PathImages): Promise<CaseImage[] | null> {
    const loc: ErrorLocation = { file: this.file, line: row.line, field: 'image_path' };
    const refs = splitImageCell(row.values.image_path ?? '');
    const missing = refs.filter((r) => !paths.file(r));
    if (missing.length) {
      this.issues.error(`Image not found: ${missing.join(', ')}.`, loc);
      return null;
    }
    const out: CaseImage[] = [];
    for (const r of refs) {
      const image = await paths.load(r, loc);
      if (!image) return null;
      out.push(image);
    }
    return out;
  }
}
