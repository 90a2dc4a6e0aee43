/**
 * Parquet files as Hugging Face publishes datasets (`data/test-00000-of-00001.parquet`),
 * read with hyparquet (pure JavaScript; snappy, zstd, gzip, brotli and LZ4
 * pages through hyparquet-compressors) one row group at a time: only that
 * group's column chunks are read from the file (through `InputFile.slice`
 * where the caller offers it), so a file of several gigabytes is never held
 * whole beside what the import keeps.
 *
 * Values come as hyparquet gives them, with two changes: binary columns stay
 * bytes (an image struct's `bytes`), and 64-bit integers become numbers
 * (strings past 2⁵³, so an id is never rounded).
 */
import { parquetMetadataAsync, parquetReadObjects, parquetSchema, type AsyncBuffer, type FileMetaData, type SchemaTree } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { InvalidInputError } from '../errors.ts';
import type { InputFile } from '../bundle/importer.ts';

const MAGIC = 'PAR1';

/** A file as hyparquet reads it: slices on demand where the input can give them, else its bytes once. */
function asyncBuffer(file: InputFile): AsyncBuffer {
  let whole: Promise<Uint8Array> | undefined;
  const copy = (b: Uint8Array): ArrayBuffer => b.slice().buffer;
  return {
    byteLength: file.size,
    async slice(start: number, end?: number): Promise<ArrayBuffer> {
      const stop = end ?? file.size;
      if (file.slice) return copy(await file.slice(start, stop));
      whole ??= file.bytes();
      return copy((await whole).subarray(start, stop));
    },
  };
}

/** Whether bytes begin (and a file ends) like Parquet: "PAR1" at both ends. */
export function looksLikeParquet(head: Uint8Array): boolean {
  return head.length >= 4 && String.fromCharCode(head[0]!, head[1]!, head[2]!, head[3]!) === MAGIC;
}

/** Plain JavaScript values for the importer: bigints as numbers (or strings when too large), nested values likewise. */
function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
  if (value instanceof Uint8Array) return value;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = plain(v);
    return out;
  }
  return value;
}

export interface ParquetColumn {
  readonly name: string;
  /** `struct` (an image cell `{bytes, path}`), `list`, or the leaf type. */
  readonly shape: 'struct' | 'list' | 'value';
  /** Field names of a struct column. */
  readonly fields?: readonly string[];
}

function columnOf(tree: SchemaTree): ParquetColumn {
  const e = tree.element;
  const list = e.converted_type === 'LIST' || e.logical_type?.type === 'LIST' || e.repetition_type === 'REPEATED';
  if (list) return { name: e.name, shape: 'list' };
  if (tree.children.length) return { name: e.name, shape: 'struct', fields: tree.children.map((c) => c.element.name) };
  return { name: e.name, shape: 'value' };
}

export class ParquetSource {
  private constructor(
    readonly file: string,
    private readonly buffer: AsyncBuffer,
    private readonly metadata: FileMetaData,
    readonly columns: readonly ParquetColumn[],
  ) {}

  /** Opens the file's footer (schema, row groups); nothing else is read yet. */
  static async open(input: InputFile): Promise<ParquetSource> {
    const buffer = asyncBuffer(input);
    if (input.size < 12) throw new InvalidInputError(`${input.path} is too short to be a Parquet file (${input.size} bytes).`, { file: input.path });
    const head = new Uint8Array(await buffer.slice(0, 4));
    const tail = new Uint8Array(await buffer.slice(input.size - 4));
    if (!looksLikeParquet(head) || !looksLikeParquet(tail)) throw new InvalidInputError(`${input.path} is not a Parquet file: it does not start and end with "PAR1".`, { file: input.path });
    let metadata: FileMetaData;
    try {
      metadata = await parquetMetadataAsync(buffer);
    } catch (error) {
      throw new InvalidInputError(`${input.path}: the Parquet footer cannot be read (${error instanceof Error ? error.message : String(error)}).`, { file: input.path });
    }
    const columns = parquetSchema(metadata).children.map(columnOf);
    return new ParquetSource(input.path, buffer, metadata, columns);
  }

  get rowCount(): number {
    return Number(this.metadata.num_rows);
  }

  get rowGroups(): number {
    return this.metadata.row_groups.length;
  }

  /**
   * Rows one row group at a time, each with its row number in the file
   * (from 1). `columns` limits what is read (every column by default).
   */
  async *rowGroupRows(columns?: readonly string[]): AsyncGenerator<{ readonly row: number; readonly values: Record<string, unknown> }[]> {
    let start = 0;
    for (const group of this.metadata.row_groups) {
      const end = start + Number(group.num_rows);
      let rows: Record<string, unknown>[];
      try {
        rows = await parquetReadObjects({
          file: this.buffer,
          metadata: this.metadata,
          rowStart: start,
          rowEnd: end,
          utf8: false,
          compressors,
          ...(columns ? { columns: [...columns] } : {}),
        });
      } catch (error) {
        throw new InvalidInputError(`${this.file}: rows ${start + 1}–${end} cannot be read (${error instanceof Error ? error.message : String(error)}).`, { file: this.file, line: start + 1 });
      }
      yield rows.map((r, i) => ({ row: start + i + 1, values: plain(r) as Record<string, unknown> }));
      start = end;
    }
  }
}
