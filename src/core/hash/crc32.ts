/**
 * CRC-32 (IEEE 802.3, the polynomial ZIP and PNG use), computed in pieces so
 * a ZIP entry can be checked while it is inflated, without a second pass.
 */

const TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** Running CRC-32: feed chunks to {@link update}, read {@link value} at the end. */
export class Crc32 {
  private c = 0xffffffff;

  update(bytes: Uint8Array): void {
    let c = this.c;
    for (let i = 0; i < bytes.length; i++) c = TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
    this.c = c;
  }

  /** The CRC-32 of everything fed so far, as an unsigned 32-bit number. */
  get value(): number {
    return (this.c ^ 0xffffffff) >>> 0;
  }
}

/** CRC-32 of one buffer. */
export function crc32(bytes: Uint8Array): number {
  const c = new Crc32();
  c.update(bytes);
  return c.value;
}
