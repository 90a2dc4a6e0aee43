/** Decodes the PNGs our own encoder writes (8-bit, filters None/Up) so tests can check rendered pixels. */
import { unzlibSync } from 'fflate';

export interface DecodedPng {
  readonly width: number;
  readonly height: number;
  readonly channels: number;
  readonly pixels: Uint8Array;
}

export function decodeOwnPng(png: Uint8Array): DecodedPng {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let pos = 8;
  let width = 0;
  let height = 0;
  let channels = 1;
  const idat: Uint8Array[] = [];
  while (pos < png.length) {
    const length = view.getUint32(pos);
    const type = String.fromCharCode(...png.subarray(pos + 4, pos + 8));
    const data = png.subarray(pos + 8, pos + 8 + length);
    if (type === 'IHDR') {
      width = view.getUint32(pos + 8);
      height = view.getUint32(pos + 12);
      channels = { 0: 1, 2: 3, 6: 4 }[data[9]!] ?? 0;
    } else if (type === 'IDAT') idat.push(data);
    pos += 12 + length;
  }
  const compressed = new Uint8Array(idat.reduce((n, d) => n + d.length, 0));
  let o = 0;
  for (const d of idat) {
    compressed.set(d, o);
    o += d.length;
  }
  const raw = unzlibSync(compressed);
  const stride = width * channels;
  const pixels = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    for (let x = 0; x < stride; x++) {
      const v = raw[y * (stride + 1) + 1 + x]!;
      if (filter === 0) pixels[y * stride + x] = v;
      else if (filter === 2) pixels[y * stride + x] = (v + (y > 0 ? pixels[(y - 1) * stride + x]! : 0)) & 0xff;
      else throw new Error(`unexpected PNG filter ${filter}`);
    }
  }
  return { width, height, channels, pixels };
}
