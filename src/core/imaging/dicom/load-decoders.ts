/**
 * Loads, ahead of parsing, the decoders that a set of DICOM files will need.
 * Codecs are WebAssembly, which instantiates asynchronously; parsing stays
 * synchronous, so the import pipeline calls this first with everything it
 * is about to parse. Only the file meta group is read here.
 */
import { loadPixelDecoder } from '../codecs/index.ts';
import { tagOf } from './dictionary.ts';
import { DicomReader, looksLikeExplicitVR } from './reader.ts';

const TRANSFER_SYNTAX = tagOf(0x0002, 0x0010);
const PREAMBLE = 128;

/** The Transfer Syntax UID a Part 10 file declares, or `undefined` (not Part 10, none declared, or damaged). */
function declaredTransferSyntax(bytes: Uint8Array): string | undefined {
  if (bytes.length < PREAMBLE + 12 || String.fromCharCode(...bytes.subarray(PREAMBLE, PREAMBLE + 4)) !== 'DICM') return undefined;
  try {
    const meta = new DicomReader(bytes, true, looksLikeExplicitVR(bytes, PREAMBLE + 8), undefined, PREAMBLE + 4);
    while (meta.remaining >= 8 && meta.peekTag() >>> 16 === 0x0002) {
      const el = meta.readElementHeader();
      meta.skipValue(el);
      if (el.tag === TRANSFER_SYNTAX) {
        let uid = '';
        for (const b of bytes.subarray(el.valueOffset, el.valueOffset + el.length)) uid += String.fromCharCode(b);
        return uid.replace(/[\0 ]+$/, '').trim();
      }
    }
  } catch {
    // A damaged header is reported by the parser itself, naming the file.
  }
  return undefined;
}

/**
 * Loads the decoder of every compressed syntax among `files` (each codec
 * once). Never rejects: a codec that fails to load makes only the files that
 * need it fail, each with the reason.
 */
export async function loadDecodersFor(files: Iterable<Uint8Array>): Promise<void> {
  const syntaxes = new Set<string>();
  for (const bytes of files) {
    const uid = declaredTransferSyntax(bytes);
    if (uid) syntaxes.add(uid);
  }
  await Promise.allSettled([...syntaxes].map((uid) => loadPixelDecoder(uid)));
}
