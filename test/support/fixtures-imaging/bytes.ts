/** Growable byte buffer with endian-aware writers, shared by the imaging fixture generators. */
export class ByteWriter {
  private buf = new Uint8Array(1024);
  private view = new DataView(this.buf.buffer);
  length = 0;

  constructor(readonly littleEndian = true) {}

  private ensure(extra: number): void {
    if (this.length + extra <= this.buf.length) return;
    const grown = new Uint8Array(Math.max(this.buf.length * 2, this.length + extra));
    grown.set(this.buf.subarray(0, this.length));
    this.buf = grown;
    this.view = new DataView(grown.buffer);
  }

  u8(v: number): this {
    this.ensure(1);
    this.view.setUint8(this.length, v & 0xff);
    this.length += 1;
    return this;
  }

  u16(v: number, le = this.littleEndian): this {
    this.ensure(2);
    this.view.setUint16(this.length, v & 0xffff, le);
    this.length += 2;
    return this;
  }

  u32(v: number, le = this.littleEndian): this {
    this.ensure(4);
    this.view.setUint32(this.length, v >>> 0, le);
    this.length += 4;
    return this;
  }

  bytes(b: ArrayLike<number>): this {
    this.ensure(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
    return this;
  }

  ascii(s: string): this {
    return this.bytes(Array.from(s, (c) => c.charCodeAt(0)));
  }

  /** Writes one sample of a numeric type. */
  sample(type: 'uint8' | 'int8' | 'uint16' | 'int16' | 'uint32' | 'int32' | 'float32' | 'float64', v: number, le = this.littleEndian): this {
    const size = { uint8: 1, int8: 1, uint16: 2, int16: 2, uint32: 4, int32: 4, float32: 4, float64: 8 }[type];
    this.ensure(size);
    const o = this.length;
    const d = this.view;
    switch (type) {
      case 'uint8': d.setUint8(o, v); break;
      case 'int8': d.setInt8(o, v); break;
      case 'uint16': d.setUint16(o, v, le); break;
      case 'int16': d.setInt16(o, v, le); break;
      case 'uint32': d.setUint32(o, v, le); break;
      case 'int32': d.setInt32(o, v, le); break;
      case 'float32': d.setFloat32(o, v, le); break;
      case 'float64': d.setFloat64(o, v, le); break;
    }
    this.length += size;
    return this;
  }

  /** A copy of the bytes written so far. */
  toBytes(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

/** The ASCII bytes of a string, for "does this text appear anywhere" assertions. */
export function asciiBytes(s: string): Uint8Array {
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

/** True if `needle` occurs anywhere in `haystack`. */
export function containsBytes(haystack: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}
