/**
 * Low-level DICOM element walker (PS3.5 §7): reads element headers in either
 * VR mode and byte order, and skips sequences of any nesting without
 * interpreting them. Only the top-level dataset matters for rendering, but
 * sequences must still be walked item by item when their length is undefined
 * because nothing else says where they end.
 */
import { InvalidInputError } from '../../errors.ts';
import { formatTag } from './dictionary.ts';

export const UNDEFINED_LENGTH = 0xffffffff;
const ITEM = 0xfffee000;
const ITEM_DELIMITATION = 0xfffee00d;
const SEQUENCE_DELIMITATION = 0xfffee0dd;

/** VRs with a 2-byte reserved field and a 4-byte length in explicit VR (PS3.5 Table 7.1-1). */
const LONG_VRS = new Set(['OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'SQ', 'SV', 'UC', 'UN', 'UR', 'UT', 'UV']);
const ALL_VRS = new Set([
  ...LONG_VRS,
  ...['AE', 'AS', 'AT', 'CS', 'DA', 'DS', 'DT', 'FD', 'FL', 'IS', 'LO', 'LT', 'PN', 'SH', 'SL', 'SS', 'ST', 'TM', 'UI', 'UL', 'US'],
]);

/** Deeper nesting than this is treated as a malicious or corrupt file rather than risking a stack overflow. */
const MAX_DEPTH = 32;

/** True if the two bytes at `offset` spell a known VR: used to tell explicit from implicit VR encodings. */
export function looksLikeExplicitVR(bytes: Uint8Array, offset: number): boolean {
  if (offset + 2 > bytes.length) return false;
  return ALL_VRS.has(String.fromCharCode(bytes[offset]!, bytes[offset + 1]!));
}

export interface ElementHeader {
  readonly tag: number;
  /** The VR written in the file; empty in implicit VR. */
  readonly vr: string;
  /** Value length in bytes, or {@link UNDEFINED_LENGTH}. */
  readonly length: number;
  /** Offset of the value in the reader's bytes. */
  readonly valueOffset: number;
}

/** A cursor over one encoded dataset. */
export class DicomReader {
  pos: number;
  private readonly view: DataView;

  constructor(
    readonly bytes: Uint8Array,
    public littleEndian: boolean,
    public explicitVR: boolean,
    readonly file?: string,
    start = 0,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = start;
  }

  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  /** An {@link InvalidInputError} explaining that the file is damaged. */
  corrupt(detail: string): InvalidInputError {
    return new InvalidInputError(`This DICOM file is damaged or incomplete: ${detail}.`, this.file ? { file: this.file } : undefined);
  }

  private need(count: number, what: string): void {
    if (this.pos + count > this.bytes.length) throw this.corrupt(`${what} at byte ${this.pos} runs past the end of the file`);
  }

  /** Reads a tag without moving the cursor. */
  peekTag(): number {
    this.need(4, 'a tag');
    const group = this.view.getUint16(this.pos, this.littleEndian);
    const element = this.view.getUint16(this.pos + 2, this.littleEndian);
    return ((group << 16) | element) >>> 0;
  }

  /** Reads the next element header and leaves the cursor on its value. */
  readElementHeader(): ElementHeader {
    const tag = this.peekTag();
    this.pos += 4;
    // Items and delimiters never carry a VR, even in explicit VR syntaxes.
    if (!this.explicitVR || tag >>> 16 === 0xfffe) {
      this.need(4, `the length of element ${formatTag(tag)}`);
      const length = this.view.getUint32(this.pos, this.littleEndian);
      this.pos += 4;
      return { tag, vr: '', length, valueOffset: this.pos };
    }
    this.need(4, `the header of element ${formatTag(tag)}`);
    const vr = String.fromCharCode(this.bytes[this.pos]!, this.bytes[this.pos + 1]!);
    if (!ALL_VRS.has(vr)) {
      throw this.corrupt(`element ${formatTag(tag)} has an unknown value representation "${vr.replace(/[^\x20-\x7e]/g, '?')}"`);
    }
    let length: number;
    if (LONG_VRS.has(vr)) {
      // VR (2), reserved (2), length (4).
      this.need(8, `the length of element ${formatTag(tag)}`);
      length = this.view.getUint32(this.pos + 4, this.littleEndian);
      this.pos += 8;
    } else {
      length = this.view.getUint16(this.pos + 2, this.littleEndian);
      this.pos += 4;
    }
    return { tag, vr, length, valueOffset: this.pos };
  }

  /** Moves past an element's value, walking it if its length is undefined. */
  skipValue(el: ElementHeader, depth = 0): void {
    if (el.length !== UNDEFINED_LENGTH) {
      this.need(el.length, `the value of element ${formatTag(el.tag)}`);
      this.pos = el.valueOffset + el.length;
      return;
    }
    // PS3.5 §6.2.2: a UN element of undefined length holds a sequence encoded in Implicit VR Little Endian.
    if (el.vr === 'UN') {
      const saved = [this.littleEndian, this.explicitVR] as const;
      this.littleEndian = true;
      this.explicitVR = false;
      try {
        this.skipItems(depth + 1);
      } finally {
        [this.littleEndian, this.explicitVR] = saved;
      }
      return;
    }
    // SQ, implicit-VR sequences and encapsulated pixel data all end with a sequence delimiter.
    this.skipItems(depth + 1);
  }

  /** Skips items up to and including the sequence delimitation item. */
  private skipItems(depth: number): void {
    if (depth > MAX_DEPTH) throw this.corrupt(`sequences are nested more than ${MAX_DEPTH} levels deep`);
    for (;;) {
      const start = this.pos;
      const item = this.readElementHeader();
      if (item.tag === SEQUENCE_DELIMITATION) return;
      if (item.tag !== ITEM) throw this.corrupt(`expected a sequence item at byte ${start}, found ${formatTag(item.tag)}`);
      if (item.length === UNDEFINED_LENGTH) this.skipItemElements(depth);
      else {
        this.need(item.length, 'a sequence item');
        this.pos += item.length;
      }
    }
  }

  /** Skips the elements of an undefined-length item, up to and including its item delimiter. */
  private skipItemElements(depth: number): void {
    for (;;) {
      if (this.peekTag() === ITEM_DELIMITATION) {
        this.readElementHeader();
        return;
      }
      this.skipValue(this.readElementHeader(), depth);
    }
  }
}
