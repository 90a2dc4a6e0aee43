/**
 * A strict, minimal baseline JPEG reader for tests: walks the segment
 * structure (checking every length), then Huffman-decodes the whole scan,
 * dequantises and inverse-transforms it, so a test can prove the encoder's
 * output is a complete, decodable JPEG and measure its fidelity. Written
 * independently of the encoder (own zig-zag table, textbook IDCT).
 */
import { type RawImage, rawImage } from '../../../../../src/core/imaging/degrade/pixels.ts';

const ZIGZAG = [
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
  35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];

export interface FrameComponent {
  id: number;
  h: number;
  v: number;
  tq: number;
}

export interface ParsedJpeg {
  /** Marker codes in file order (0xd8 = SOI … 0xd9 = EOI). */
  markers: number[];
  width: number;
  height: number;
  precision: number;
  components: FrameComponent[];
  quant: Map<number, Uint16Array>; // zig-zag order
  huffman: Map<number, Map<string, number>>; // (class << 4 | id) → "length:code" → symbol
  scan: { components: { id: number; td: number; ta: number }[]; data: Uint8Array; stuffedBytes: number };
}

export function parseJpeg(bytes: Uint8Array): ParsedJpeg {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) throw new Error('no SOI');
  const out: Partial<ParsedJpeg> & { markers: number[]; quant: Map<number, Uint16Array>; huffman: ParsedJpeg['huffman'] } = {
    markers: [0xd8],
    quant: new Map(),
    huffman: new Map(),
  };
  let pos = 2;
  while (pos < bytes.length) {
    if (bytes[pos] !== 0xff) throw new Error(`expected a marker at ${pos}`);
    const marker = bytes[pos + 1]!;
    out.markers.push(marker);
    if (marker === 0xd9) {
      if (pos + 2 !== bytes.length) throw new Error('bytes after EOI');
      if (!out.scan || out.width === undefined) throw new Error('EOI before frame and scan');
      return out as ParsedJpeg;
    }
    const length = view.getUint16(pos + 2);
    const body = bytes.subarray(pos + 4, pos + 2 + length);
    if (pos + 2 + length > bytes.length) throw new Error(`segment ${marker.toString(16)} overruns the file`);
    if (marker === 0xdb) {
      for (let o = 0; o < body.length; o += 65) out.quant.set(body[o]! & 15, Uint16Array.from(body.subarray(o + 1, o + 65)));
    } else if (marker === 0xc4) {
      for (let o = 0; o < body.length; ) {
        const counts = body.subarray(o + 1, o + 17);
        const total = counts.reduce((n, c) => n + c, 0);
        const symbols = body.subarray(o + 17, o + 17 + total);
        const table = new Map<string, number>();
        let code = 0;
        let k = 0;
        for (let len = 1; len <= 16; len++) {
          for (let i = 0; i < counts[len - 1]!; i++) table.set(`${len}:${code++}`, symbols[k++]!);
          code <<= 1;
        }
        out.huffman.set(body[o]!, table);
        o += 17 + total;
      }
    } else if (marker === 0xc0) {
      out.precision = body[0]!;
      out.height = view.getUint16(pos + 5);
      out.width = view.getUint16(pos + 7);
      out.components = [];
      for (let i = 0; i < body[5]!; i++) {
        const c = body.subarray(6 + i * 3);
        out.components.push({ id: c[0]!, h: c[1]! >> 4, v: c[1]! & 15, tq: c[2]! });
      }
      if (length !== 8 + 3 * out.components.length) throw new Error('SOF0 length mismatch');
    } else if (marker >= 0xc1 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      throw new Error(`not baseline: SOF${marker - 0xc0}`);
    } else if (marker === 0xda) {
      const n = body[0]!;
      if (length !== 6 + 2 * n) throw new Error('SOS length mismatch');
      const components = Array.from({ length: n }, (_, i) => ({ id: body[1 + i * 2]!, td: body[2 + i * 2]! >> 4, ta: body[2 + i * 2]! & 15 }));
      // Entropy-coded data runs to the next marker that is not a stuffed 0xFF00.
      let end = pos + 2 + length;
      const data: number[] = [];
      let stuffedBytes = 0;
      for (;;) {
        if (end >= bytes.length) throw new Error('scan data runs past the end of the file');
        if (bytes[end] === 0xff) {
          if (bytes[end + 1] !== 0) break;
          data.push(0xff);
          stuffedBytes++;
          end += 2;
        } else data.push(bytes[end++]!);
      }
      out.scan = { components, data: Uint8Array.from(data), stuffedBytes };
      pos = end;
      continue;
    }
    pos += 2 + length;
  }
  throw new Error('no EOI');
}

/** Decodes a parsed baseline JPEG to gray (1 component) or RGB pixels. Throws if the scan is not exactly consumed. */
export function decodeJpeg(jpeg: ParsedJpeg): RawImage {
  const { width, height, components, scan } = jpeg;
  const hMax = Math.max(...components.map((c) => c.h));
  const vMax = Math.max(...components.map((c) => c.v));
  const mcusX = Math.ceil(width / (8 * hMax));
  const mcusY = Math.ceil(height / (8 * vMax));
  let bitPos = 0;
  const bit = () => {
    if (bitPos >= scan.data.length * 8) throw new Error('scan data ended early');
    const b = (scan.data[bitPos >> 3]! >> (7 - (bitPos & 7))) & 1;
    bitPos++;
    return b;
  };
  const receive = (n: number) => {
    let v = 0;
    for (let i = 0; i < n; i++) v = (v << 1) | bit();
    return n > 0 && v < 1 << (n - 1) ? v - (1 << n) + 1 : v;
  };
  const decode = (table: Map<string, number>) => {
    let code = 0;
    for (let len = 1; len <= 16; len++) {
      code = (code << 1) | bit();
      const sym = table.get(`${len}:${code}`);
      if (sym !== undefined) return sym;
    }
    throw new Error('invalid Huffman code');
  };
  const planes = components.map((c) => ({ c, w: mcusX * 8 * c.h, data: new Float64Array(mcusX * 8 * c.h * mcusY * 8 * c.v), pred: 0 }));
  const coef = new Float64Array(64);
  for (let my = 0; my < mcusY; my++) {
    for (let mx = 0; mx < mcusX; mx++) {
      for (const [i, p] of planes.entries()) {
        const sc = scan.components[i]!;
        const q = jpeg.quant.get(p.c.tq)!;
        for (let by = 0; by < p.c.v; by++) {
          for (let bx = 0; bx < p.c.h; bx++) {
            coef.fill(0);
            p.pred += receive(decode(jpeg.huffman.get(sc.td)!));
            coef[0] = p.pred * q[0]!;
            for (let k = 1; k < 64; ) {
              const rs = decode(jpeg.huffman.get(0x10 | sc.ta)!);
              if ((rs & 15) === 0) {
                if (rs === 0xf0) k += 16;
                else break;
                continue;
              }
              k += rs >> 4;
              if (k > 63) throw new Error('AC run past the end of a block');
              coef[ZIGZAG[k]!] = receive(rs & 15) * q[k]!;
              k++;
            }
            idctInto(coef, p.data, p.w, (mx * p.c.h + bx) * 8, (my * p.c.v + by) * 8);
          }
        }
      }
    }
  }
  const rest = scan.data.length * 8 - bitPos;
  if (rest >= 8) throw new Error(`${rest} bits of scan data left over`);
  for (let i = bitPos; i < scan.data.length * 8; i++) if (((scan.data[i >> 3]! >> (7 - (i & 7))) & 1) !== 1) throw new Error('padding bits are not 1s');
  const at = (pi: number, x: number, y: number) => {
    const p = planes[pi]!;
    return p.data[Math.floor((y * p.c.v) / vMax) * p.w + Math.floor((x * p.c.h) / hMax)]!;
  };
  const ch = components.length === 1 ? 1 : 3;
  const out = new Uint8Array(width * height * ch);
  const clamp = (v: number) => Math.max(0, Math.min(255, Math.round(v)));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const Y = at(0, x, y);
      if (ch === 1) {
        out[y * width + x] = clamp(Y);
        continue;
      }
      const cb = at(1, x, y) - 128;
      const cr = at(2, x, y) - 128;
      out.set([clamp(Y + 1.402 * cr), clamp(Y - 0.344136 * cb - 0.714136 * cr), clamp(Y + 1.772 * cb)], (y * width + x) * 3);
    }
  }
  return rawImage(width, height, ch, out);
}

/** Textbook 8×8 inverse DCT, level-shifted back to 0…255. */
function idctInto(coef: Float64Array, plane: Float64Array, planeW: number, x0: number, y0: number): void {
  const C = (u: number) => (u === 0 ? Math.SQRT1_2 : 1);
  for (let y = 0; y < 8; y++) {
    for (let x = 0; x < 8; x++) {
      let s = 0;
      for (let v = 0; v < 8; v++) {
        for (let u = 0; u < 8; u++) {
          const c = coef[v * 8 + u]!;
          if (c !== 0) s += C(u) * C(v) * c * Math.cos(((2 * x + 1) * u * Math.PI) / 16) * Math.cos(((2 * y + 1) * v * Math.PI) / 16);
        }
      }
      plane[(y0 + y) * planeW + x0 + x] = s / 4 + 128;
    }
  }
}
