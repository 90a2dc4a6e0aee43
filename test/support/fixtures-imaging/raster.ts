/**
 * Hand-assembled headers of ordinary image formats, just enough for header
 * parsing (the pixel data is not decodable).
 */
import { ByteWriter } from './bytes.ts';

/**
 * A JPEG up to its frame header: SOI, APP0 (JFIF), a comment whose bytes
 * contain a fake SOF marker (to catch parsers that scan instead of skipping
 * segments), DQT, optional fill bytes, then SOFn with the size.
 */
export function makeJpeg(width: number, height: number, options: { sof?: number; fillBytes?: number } = {}): Uint8Array {
  const w = new ByteWriter(false);
  w.u8(0xff).u8(0xd8);
  w.u8(0xff).u8(0xe0).u16(16).ascii('JFIF\0').u8(1).u8(1).u8(0).u16(1).u16(1).u8(0).u8(0);
  const comment = [0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x01, 0x00, 0x01];
  w.u8(0xff).u8(0xfe).u16(2 + comment.length).bytes(comment);
  w.u8(0xff).u8(0xdb).u16(67).u8(0).bytes(new Uint8Array(64).fill(1));
  for (let i = 0; i < (options.fillBytes ?? 0); i++) w.u8(0xff);
  w.u8(0xff).u8(options.sof ?? 0xc0).u16(17).u8(8).u16(height).u16(width).u8(3);
  for (let c = 1; c <= 3; c++) w.u8(c).u8(0x11).u8(0);
  w.u8(0xff).u8(0xda).u16(12).u8(3).bytes([1, 0, 2, 0x11, 3, 0x11, 0, 63, 0]);
  w.u8(0xff).u8(0xd9);
  return w.toBytes();
}

function riff(chunk: string, payload: Uint8Array): Uint8Array {
  const w = new ByteWriter(true);
  const padded = payload.length + (payload.length % 2);
  w.ascii('RIFF').u32(4 + 8 + padded).ascii('WEBP').ascii(chunk).u32(payload.length).bytes(payload);
  if (payload.length % 2) w.u8(0);
  return w.toBytes();
}

/** Lossy WebP: a VP8 key frame header. */
export function makeWebpVp8(width: number, height: number): Uint8Array {
  const p = new ByteWriter(true);
  p.u8(0x10).u8(0x02).u8(0x00); // frame tag: key frame, version 0, show_frame
  p.u8(0x9d).u8(0x01).u8(0x2a);
  p.u16(width & 0x3fff).u16(height & 0x3fff);
  p.bytes(new Uint8Array(10));
  return riff('VP8 ', p.toBytes());
}

/** Lossless WebP: the VP8L signature and packed 14-bit sizes. */
export function makeWebpVp8l(width: number, height: number): Uint8Array {
  const p = new ByteWriter(true);
  p.u8(0x2f).u32(((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14));
  p.bytes(new Uint8Array(6));
  return riff('VP8L', p.toBytes());
}

/** Extended WebP: the VP8X canvas size (24-bit fields). */
export function makeWebpVp8x(width: number, height: number): Uint8Array {
  const p = new ByteWriter(true);
  p.u8(0x10).bytes([0, 0, 0]);
  p.u8((width - 1) & 0xff).u8(((width - 1) >> 8) & 0xff).u8(((width - 1) >> 16) & 0xff);
  p.u8((height - 1) & 0xff).u8(((height - 1) >> 8) & 0xff).u8(((height - 1) >> 16) & 0xff);
  return riff('VP8X', p.toBytes());
}

/** A GIF logical screen descriptor. */
export function makeGif(width: number, height: number): Uint8Array {
  return new ByteWriter(true).ascii('GIF89a').u16(width).u16(height).u8(0).u8(0).u8(0).u8(0x3b).toBytes();
}

/** A BMP file and BITMAPINFOHEADER (negative height = top-down). */
export function makeBmp(width: number, height: number): Uint8Array {
  const w = new ByteWriter(true);
  w.ascii('BM').u32(54).u32(0).u32(54);
  w.u32(40).u32(width).u32(height).u16(1).u16(24).u32(0).u32(0).u32(2835).u32(2835).u32(0).u32(0);
  return w.toBytes();
}
