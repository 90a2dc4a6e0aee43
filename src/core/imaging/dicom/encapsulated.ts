/**
 * Encapsulated (compressed) pixel data, PS3.5 §A.4: a Basic Offset Table
 * item, then fragments, then a sequence delimiter. This module finds each
 * frame's bytes and hands them to the codecs; what comes back goes through
 * the same masking and sign extension as native pixel data.
 */
import { InvalidInputError } from '../../errors.ts';
import { decodeCompressedFrame } from '../codecs/index.ts';
import { maskAndSign } from './pixels.ts';
import type { DicomImageHeader, DicomPixelArray } from './types.ts';

const ITEM = 0xfffee000;
const SEQUENCE_DELIMITATION = 0xfffee0dd;

/** The items of an encapsulated PixelData element. */
export interface EncapsulatedPixelData {
  /** Basic Offset Table: each frame's first byte, counted from the first fragment's item tag. Often empty. */
  readonly offsets: readonly number[];
  readonly fragments: readonly { readonly offset: number; readonly bytes: Uint8Array }[];
  /** Where the element ends (past the sequence delimiter), for the caller's cursor. */
  readonly end: number;
}

/** Reads the items of encapsulated pixel data that start at `valueOffset` (always little-endian). */
export function readEncapsulated(data: Uint8Array, valueOffset: number, file?: string): EncapsulatedPixelData {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const damaged = (detail: string) => new InvalidInputError(`This DICOM file's compressed pixel data is damaged: ${detail}.`, file ? { file } : undefined);
  let pos = valueOffset;
  const items: { offset: number; bytes: Uint8Array }[] = [];
  for (;;) {
    if (pos + 8 > data.length) {
      // Some writers stop after the last fragment: accept it when at least one fragment is whole.
      if (items.length >= 2) break;
      throw damaged('it ends before its first fragment');
    }
    const tag = ((view.getUint16(pos, true) << 16) | view.getUint16(pos + 2, true)) >>> 0;
    const length = view.getUint32(pos + 4, true);
    if (tag === SEQUENCE_DELIMITATION) {
      pos += 8;
      break;
    }
    if (tag !== ITEM) throw damaged(`expected a fragment at byte ${pos}`);
    if (pos + 8 + length > data.length) throw damaged(`fragment ${items.length} runs past the end of the file`);
    items.push({ offset: pos - valueOffset, bytes: data.subarray(pos + 8, pos + 8 + length) });
    pos += 8 + length;
  }
  const [table, ...fragments] = items;
  if (!table || fragments.length === 0) throw damaged('it holds no compressed frame');
  const offsets: number[] = [];
  const tableView = new DataView(table.bytes.buffer, table.bytes.byteOffset, table.bytes.byteLength);
  for (let o = 0; o + 4 <= table.bytes.length; o += 4) offsets.push(tableView.getUint32(o, true));
  // Offsets count from the first fragment's item tag.
  const first = fragments[0]!.offset;
  return { offsets, fragments: fragments.map((f) => ({ offset: f.offset - first, bytes: f.bytes })), end: pos };
}

/** Groups fragments into frames: one frame takes them all; otherwise the offset table, one per frame, or frame start markers decide. */
function frameStreams(pixel: EncapsulatedPixelData, frames: number, file?: string): Uint8Array[] {
  const { fragments, offsets } = pixel;
  if (frames === 1) return [concat(fragments.map((f) => f.bytes))];
  if (fragments.length === frames) return fragments.map((f) => f.bytes);
  let starts: number[];
  if (offsets.length === frames) {
    starts = offsets.map((o) => fragments.findIndex((f) => f.offset === o));
  } else {
    // No usable table: a JPEG frame starts with SOI (FFD8), a JPEG 2000 codestream with SOC (FF4F).
    starts = fragments.flatMap((f, i) => (f.bytes[0] === 0xff && (f.bytes[1] === 0xd8 || f.bytes[1] === 0x4f) ? [i] : []));
  }
  if (starts.length !== frames || starts.some((s) => s < 0) || starts[0] !== 0) {
    throw new InvalidInputError(
      `This DICOM file declares ${frames} frames but its ${fragments.length} compressed fragments cannot be split into them (the offset table and the fragments disagree).`,
      file ? { file } : undefined,
    );
  }
  return starts.map((s, i) => concat(fragments.slice(s, starts[i + 1] ?? fragments.length).map((f) => f.bytes)));
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Decodes every frame of encapsulated pixel data into stored values, laid
 * out as native pixel data would be (frames in order, samples interleaved).
 */
export function decodeEncapsulatedPixelData(pixel: EncapsulatedPixelData, h: DicomImageHeader, file?: string): DicomPixelArray {
  const streams = frameStreams(pixel, h.numberOfFrames, file);
  const perFrame = h.rows * h.columns * h.samplesPerPixel;
  const first = decodeCompressedFrame(h.transferSyntaxUID, streams[0]!, h, file);
  const all = streams.length === 1 ? first : new (first.constructor as new (n: number) => typeof first)(perFrame * streams.length);
  if (all !== first) {
    all.set(first);
    for (let f = 1; f < streams.length; f++) all.set(decodeCompressedFrame(h.transferSyntaxUID, streams[f]!, h, file), f * perFrame);
  }
  // Codecs return plain values: no bits above BitsStored to shift away, so HighBit is BitsStored − 1 whatever the header says.
  return maskAndSign(all, { ...h, highBit: h.bitsStored - 1 });
}
