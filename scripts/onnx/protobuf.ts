/**
 * A minimal protocol-buffers *writer* (no reader): just the wire types ONNX
 * files use. Enough to emit ModelProto bytes without a protobuf dependency.
 * Field order is the call order, so the output is byte-for-byte reproducible.
 */

const WIRE_VARINT = 0;
const WIRE_BYTES = 2;
const WIRE_FIXED32 = 5;

const utf8 = new TextEncoder();

export class ProtoWriter {
  private readonly chunks: Uint8Array[] = [];
  private length = 0;

  private push(bytes: Uint8Array): void {
    this.chunks.push(bytes);
    this.length += bytes.length;
  }

  private tag(field: number, wire: number): void {
    this.rawVarint(BigInt((field << 3) | wire));
  }

  /** Base-128 varint of a 64-bit value; negatives use two's complement (10 bytes), as protobuf int64 does. */
  private rawVarint(value: bigint): void {
    let v = BigInt.asUintN(64, value);
    const out: number[] = [];
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v !== 0n) byte |= 0x80;
      out.push(byte);
    } while (v !== 0n);
    this.push(Uint8Array.from(out));
  }

  /** int32 / int64 / enum / bool field. */
  int(field: number, value: number | bigint): this {
    this.tag(field, WIRE_VARINT);
    this.rawVarint(typeof value === 'bigint' ? value : BigInt(value));
    return this;
  }

  /** `float` field (fixed32, little-endian IEEE 754). */
  float(field: number, value: number): this {
    this.tag(field, WIRE_FIXED32);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.push(b);
    return this;
  }

  /** `bytes` field. */
  bytes(field: number, value: Uint8Array): this {
    this.tag(field, WIRE_BYTES);
    this.rawVarint(BigInt(value.length));
    this.push(value);
    return this;
  }

  /** `string` field (UTF-8). */
  string(field: number, value: string): this {
    return this.bytes(field, utf8.encode(value));
  }

  /** Embedded message field. The child's pieces are shared, not copied, so a large message costs no second copy. */
  message(field: number, value: ProtoWriter): this {
    this.tag(field, WIRE_BYTES);
    this.rawVarint(BigInt(value.length));
    for (const chunk of value.chunks) this.push(chunk);
    return this;
  }

  /** Total encoded length in bytes. */
  get byteLength(): number {
    return this.length;
  }

  /** The encoded bytes, in pieces (write them in order to get {@link finish}'s bytes). */
  get pieces(): readonly Uint8Array[] {
    return this.chunks;
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.length);
    let offset = 0;
    for (const chunk of this.chunks) {
      out.set(chunk, offset);
      offset += chunk.length;
    }
    return out;
  }
}
