/**
 * Finds the image file a row names (`file_path` in NeuroVLM-Bench, an image
 * column in a generic CSV) among the files the user picked.
 *
 * The rule, in order:
 * 1. **Exact**: the row's path equals an input path (after normalising `\` to
 *    `/`, dropping a leading `./` or `/`, and Unicode NFC, since macOS hands
 *    out decomposed accents).
 * 2. **One folder offset for the whole import**: the user may have picked the
 *    folder *above* the one the CSV's paths start from (inputs look like
 *    `data/<file_path>`) or a folder *below* it (inputs lack the first
 *    segments of `<file_path>`). For every row not matched exactly, the
 *    longest segment-aligned suffix shared with an input proposes an offset
 *    (input prefix, row prefix); the offset proposed by the most rows wins
 *    and is applied to every row. A single offset keeps `glioma (63).jpg`
 *    from the T1 folder from being matched to the T2 folder's file of the
 *    same name when only the T2 folder was picked.
 * Matching is case-sensitive, like the file systems the datasets come from.
 */
import type { InputFile } from '../bundle/importer.ts';

/** Normalises a relative path for comparison. */
export function normalizePath(path: string): string {
  let p = path.trim().replace(/\\/g, '/').normalize('NFC').replace(/\/{2,}/g, '/');
  while (p.startsWith('./')) p = p.slice(2);
  return p.replace(/^\/+/, '');
}

/** Candidate inputs looked at per row when voting on the offset: bounds the work on ambiguous names. */
const MAX_CANDIDATES = 8;

interface PathOffset {
  /** Prefix the inputs have that the rows' paths lack (the user picked a folder above). */
  readonly inputPrefix: string;
  /** Prefix the rows' paths have that the inputs lack (the user picked a folder below). */
  readonly rowPrefix: string;
}

export class ImagePathIndex {
  private readonly exact = new Map<string, InputFile>();
  private suffixes: Map<string, string[]> | undefined;
  /** The offset chosen by the last resolveAll, when rule 2 was needed and found one. */
  offset: PathOffset | undefined;

  constructor(files: readonly InputFile[]) {
    for (const f of files) this.exact.set(normalizePath(f.path), f);
  }

  /** Resolves every reference at once (the folder offset is voted over all of them). */
  resolveAll(refs: readonly string[]): (InputFile | undefined)[] {
    const norm = refs.map(normalizePath);
    const out: (InputFile | undefined)[] = norm.map((r) => this.exact.get(r));
    const pending: number[] = [];
    norm.forEach((r, i) => {
      if (!out[i] && r) pending.push(i);
    });
    this.offset = undefined;
    if (pending.length === 0) return out;

    // Rows found exactly vote for "no offset", so a few same-named files elsewhere cannot outvote them.
    const exactCount = out.filter(Boolean).length;
    const votes = new Map<string, { offset: PathOffset; count: number }>();
    if (exactCount > 0) votes.set('\u0000', { offset: { inputPrefix: '', rowPrefix: '' }, count: exactCount });
    for (const i of pending) {
      const ref = norm[i]!;
      const proposed = new Set<string>();
      for (const s of segmentSuffixes(ref)) {
        const inputs = this.suffixIndex().get(s);
        if (!inputs) continue;
        for (const input of inputs.slice(0, MAX_CANDIDATES)) {
          const offset = { inputPrefix: input.slice(0, input.length - s.length), rowPrefix: ref.slice(0, ref.length - s.length) };
          const key = `${offset.inputPrefix}\u0000${offset.rowPrefix}`;
          if (proposed.has(key)) continue;
          proposed.add(key);
          const v = votes.get(key);
          if (v) v.count++;
          else votes.set(key, { offset, count: 1 });
        }
        break; // only the longest shared suffix votes
      }
    }
    let best: { offset: PathOffset; count: number } | undefined;
    for (const v of votes.values()) {
      if (!best || v.count > best.count || (v.count === best.count && weight(v.offset) < weight(best.offset))) best = v;
    }
    if (!best || weight(best.offset) === 0) return out;
    const { inputPrefix, rowPrefix } = best.offset;
    this.offset = best.offset;
    for (const i of pending) {
      const ref = norm[i]!;
      if (ref.startsWith(rowPrefix)) out[i] = this.exact.get(inputPrefix + ref.slice(rowPrefix.length));
    }
    return out;
  }

  /** Every segment-aligned suffix of every input path → the input paths that end with it. */
  private suffixIndex(): Map<string, string[]> {
    if (this.suffixes) return this.suffixes;
    const index = new Map<string, string[]>();
    for (const path of this.exact.keys()) {
      for (const s of segmentSuffixes(path)) {
        const list = index.get(s);
        if (list) list.push(path);
        else index.set(s, [path]);
      }
    }
    this.suffixes = index;
    return index;
  }
}

function weight(o: PathOffset): number {
  return o.inputPrefix.length + o.rowPrefix.length;
}

/** `a/b/c.png` → `a/b/c.png`, `b/c.png`, `c.png` (longest first). */
function segmentSuffixes(path: string): string[] {
  const out = [path];
  for (let i = path.indexOf('/'); i >= 0 && i < path.length - 1; i = path.indexOf('/', i + 1)) out.push(path.slice(i + 1));
  return out;
}
