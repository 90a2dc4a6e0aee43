/**
 * Image files named by path in a table (NeuroVLM-Bench file_path, a generic
 * CSV's image column, VLMEvalKit image_path): found once for the whole table
 * with {@link ImagePathIndex}, read and checked once per file, and stored at
 * `images/<path as written>`.
 */
import { count } from '../text/plural.ts';
import type { ErrorLocation } from '../errors.ts';
import type { CaseImage } from '../bundle/types.ts';
import { identifyImage, normaliseExtension } from './image-data.ts';
import { extensionOf, type InputFile } from '../bundle/importer.ts';
import { ImagePathIndex, normalizePath } from './path-match.ts';
import { type DraftParts, type Issues } from './support.ts';

export class PathImages {
  private readonly found = new Map<string, InputFile | undefined>();
  private readonly cache = new Map<InputFile, CaseImage | null>();
  private readonly index: ImagePathIndex;
  private wrongExtension = 0;
  private firstWrong: ErrorLocation | undefined;

  /** Resolves every reference up front, so one folder offset is chosen for all (see path-match.ts). */
  constructor(
    files: readonly InputFile[],
    refs: readonly string[],
    private readonly issues: Issues,
    private readonly parts: DraftParts,
  ) {
    const unique = [...new Set(refs.map(normalizePath).filter(Boolean))];
    this.index = new ImagePathIndex(files);
    const resolved = this.index.resolveAll(unique);
    unique.forEach((r, i) => this.found.set(r, resolved[i]));
  }

  /** The input file a reference names, if it was found. */
  file(ref: string): InputFile | undefined {
    return this.found.get(normalizePath(ref));
  }

  /**
   * A reference first met while reading (a Parquet image struct with a path
   * and no bytes): exact, else the folder offset the table's other paths
   * chose, else its own.
   */
  late(ref: string): InputFile | undefined {
    const key = normalizePath(ref);
    if (!key) return undefined;
    if (!this.found.has(key)) {
      const offset = this.index.offset;
      const shifted = offset && key.startsWith(offset.rowPrefix) ? this.index.resolveAll([offset.inputPrefix + key.slice(offset.rowPrefix.length)])[0] : undefined;
      this.found.set(key, shifted ?? this.index.resolveAll([key])[0]);
    }
    return this.found.get(key);
  }

  /**
   * Reads and checks the image a reference names; null (with an error at
   * `loc`) when its bytes are not a model-ready image. Call only for found refs.
   */
  async load(ref: string, loc: ErrorLocation): Promise<CaseImage | null> {
    const file = this.file(ref);
    if (!file) return null;
    const cached = this.cache.get(file);
    if (cached !== undefined) return cached;
    const bytes = await file.bytes();
    const kind = identifyImage(bytes);
    let image: CaseImage | null = null;
    if ('error' in kind) this.issues.error(`"${ref}" ${kind.error}.`, loc);
    else {
      image = { path: `images/${normalizePath(ref)}`, mime: kind.mime };
      this.parts.images.set(image.path, bytes);
      this.parts.inputNames.set(image.path, ref.trim());
      if (normaliseExtension(extensionOf(ref)) !== kind.ext) {
        this.wrongExtension++;
        this.firstWrong ??= loc;
      }
    }
    this.cache.set(file, image);
    return image;
  }

  /** One warning for images whose extension lies about their content. */
  report(): void {
    if (this.wrongExtension && this.firstWrong) {
      this.issues.warn(
        `${count(this.wrongExtension, 'image')} have a file extension that does not match their content (first: line ${this.firstWrong.line}); they are stored with the type their bytes show.`,
        this.firstWrong,
      );
    }
  }
}
