/** Reads the sample precision from a JPEG stream's start-of-frame marker, without decoding it. */

/** SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC). */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/** Bits per sample the stream declares (8, 12, 16…), or `undefined` if no frame header is found. */
export function jpegPrecision(stream: Uint8Array): number | undefined {
  let i = 2; // past SOI
  while (i + 4 < stream.length) {
    if (stream[i] !== 0xff) return undefined;
    const marker = stream[i + 1]!;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (isStartOfFrame(marker)) return stream[i + 4];
    const length = (stream[i + 2]! << 8) | stream[i + 3]!;
    i += 2 + length;
  }
  return undefined;
}
