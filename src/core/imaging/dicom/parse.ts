/**
 * DICOM Part 10 reader: preamble, file meta group, then the dataset in any of
 * the four native transfer syntaxes. Only keep-listed tags are decoded (see
 * deidentify.ts); every other top-level element is skipped and reported by
 * name. Compressed pixel data is decoded by encapsulated.ts when a codec
 * reads its syntax, and refused with a message naming the syntax otherwise.
 */
import { InvalidInputError } from '../../errors.ts';
import { checkImageSize } from '../dimensions.ts';
import { BoundedInflater, MAX_DECOMPRESSED_BYTES } from '../inflate.ts';
import { attributeKeyword, attributeText, type AttributeKeyword } from './attributes.ts';
import { DroppedTagCollector, keptTag } from './deidentify.ts';
import { tagOf } from './dictionary.ts';
import { decodeEncapsulatedPixelData, type EncapsulatedPixelData, readEncapsulated } from './encapsulated.ts';
import { createDicomImage, decodePixelData } from './pixels.ts';
import { DicomReader, type ElementHeader, looksLikeExplicitVR, UNDEFINED_LENGTH } from './reader.ts';
import { compressedSyntaxName, encapsulatedEncoding, EXPLICIT_VR_LE, IMPLICIT_VR_LE, nativeEncoding, type NativeEncoding } from './transfer-syntax.ts';
import type { DicomImageHeader, ParsedDicom, PhotometricInterpretation } from './types.ts';

const PIXEL_DATA = tagOf(0x7fe0, 0x0010);
const TRANSFER_SYNTAX = tagOf(0x0002, 0x0010);
// Read only to decide whether the file may be imported: it is never stored.
const BURNED_IN_ANNOTATION = tagOf(0x0028, 0x0301);
const PREAMBLE = 128;

/** A kept element's raw value and how to read it. */
interface RawValue {
  readonly vr: string;
  readonly bytes: Uint8Array;
  readonly littleEndian: boolean;
}

function where(file?: string) {
  return file ? { file } : undefined;
}

/**
 * Parses a DICOM Part 10 file into its kept rendering header, decoded pixel
 * samples and the list of tags dropped. Throws {@link InvalidInputError} for
 * anything that cannot be rendered: not DICOM, damaged, no pixel data,
 * pixel data compressed in a syntax no codec here reads, or an unsupported
 * pixel format. Compressed syntaxes need their decoder loaded first
 * (loadDecodersFor).
 */
export function parseDicom(bytes: Uint8Array, file?: string): ParsedDicom {
  if (bytes.length < PREAMBLE + 4 || String.fromCharCode(...bytes.subarray(PREAMBLE, PREAMBLE + 4)) !== 'DICM') {
    throw new InvalidInputError(
      'This is not a DICOM Part 10 file (there is no "DICM" marker at byte 128). Export the images as DICOM files from your PACS or viewer.',
      where(file),
    );
  }
  const dropped = new DroppedTagCollector();
  const values = new Map<number, RawValue>();

  // The file meta group is always Explicit VR Little Endian; a few old writers used implicit VR, which we tolerate.
  const meta = new DicomReader(bytes, true, looksLikeExplicitVR(bytes, PREAMBLE + 8), file, PREAMBLE + 4);
  while (meta.remaining >= 8 && meta.peekTag() >>> 16 === 0x0002) collect(meta, meta.readElementHeader(), values, dropped);
  const syntaxValue = values.get(TRANSFER_SYNTAX);
  const declared = syntaxValue ? readString(syntaxValue.bytes) : undefined;
  const encoding = resolveEncoding(declared, bytes, meta.pos, file);

  let data = bytes;
  let start = meta.pos;
  if (encoding.deflated) {
    data = new BoundedInflater(bytes.subarray(meta.pos), 'deflate', MAX_DECOMPRESSED_BYTES, file).takeAll();
    start = 0;
  }
  // Some writers declare explicit VR but write implicit VR; the first element's header gives it away.
  const explicitVR = encoding.explicitVR && (!encoding.littleEndian || looksLikeExplicitVR(data, start + 4) || data.length - start < 8);
  const reader = new DicomReader(data, encoding.littleEndian, explicitVR, file, start);

  let pixel: { header: ElementHeader; value: Uint8Array } | undefined;
  let encapsulated: EncapsulatedPixelData | undefined;
  let burnedIn = false;
  // Read to hash, to refuse or to check (attributes.ts); never part of the stored source.
  const attributes: Partial<Record<AttributeKeyword, string>> = {};
  // Fewer than 8 bytes left cannot hold an element: trailing padding some writers add.
  while (reader.remaining >= 8) {
    const el = reader.readElementHeader();
    if (el.tag === PIXEL_DATA) {
      if (el.length === UNDEFINED_LENGTH) {
        if (!encoding.encapsulated) throw encapsulatedError(encoding, file);
        encapsulated = readEncapsulated(data, el.valueOffset, file);
        reader.pos = encapsulated.end;
        continue;
      }
      // Keep a truncated value as-is so the size check below can explain what is missing.
      const end = Math.min(data.length, el.valueOffset + el.length);
      pixel = { header: el, value: data.subarray(el.valueOffset, end) };
      reader.pos = end;
      continue;
    }
    if (el.tag === BURNED_IN_ANNOTATION && el.length !== UNDEFINED_LENGTH) {
      burnedIn = readString(data.subarray(el.valueOffset, el.valueOffset + el.length)).toUpperCase() === 'YES';
    }
    const attribute = attributeKeyword(el.tag);
    if (attribute && el.length !== UNDEFINED_LENGTH) attributes[attribute] = attributeText(data.subarray(el.valueOffset, Math.min(data.length, el.valueOffset + el.length)));
    collect(reader, el, values, dropped);
  }
  if (!pixel && !encapsulated) {
    throw new InvalidInputError(
      'This DICOM file has no pixel data (7FE0,0010): it may be a structured report or a presentation state.',
      where(file),
    );
  }
  const kept = buildHeader(values, declared ?? (explicitVR ? EXPLICIT_VR_LE : IMPLICIT_VR_LE), file);
  if (pixel && encoding.encapsulated) {
    throw new InvalidInputError(`This DICOM file declares ${encoding.name} compression, but its pixel data is not compressed (not in fragments). The file was written wrongly; export it again.`, where(file));
  }
  const samples = pixel ? decodePixelData(pixel.value, pixel.header.vr || 'OW', kept, encoding.littleEndian, file) : decodeEncapsulatedPixelData(encapsulated!, kept, file);
  const image = { ...createDicomImage(kept, samples, dropped.list()), attributes };
  return burnedIn ? { ...image, burnedInAnnotation: true } : image;
}

/** Records a kept element's value or the dropped tag's name, then moves past the value. */
function collect(reader: DicomReader, el: ElementHeader, values: Map<number, RawValue>, dropped: DroppedTagCollector): void {
  reader.skipValue(el);
  const keep = keptTag(el.tag);
  if (!keep || el.length === UNDEFINED_LENGTH) {
    dropped.add(el.tag);
    return;
  }
  // Implicit VR and UN carry no usable VR: decode with the one the standard assigns.
  const vr = el.vr === '' || el.vr === 'UN' ? keep.vr : el.vr;
  values.set(el.tag, { vr, bytes: reader.bytes.subarray(el.valueOffset, el.valueOffset + el.length), littleEndian: reader.littleEndian });
}

function resolveEncoding(uid: string | undefined, bytes: Uint8Array, datasetStart: number, file?: string): NativeEncoding {
  if (uid === undefined) {
    // No Transfer Syntax UID: guess between the two little-endian syntaxes from the first element's bytes.
    return nativeEncoding(looksLikeExplicitVR(bytes, datasetStart + 4) ? EXPLICIT_VR_LE : IMPLICIT_VR_LE)!;
  }
  const native = nativeEncoding(uid) ?? encapsulatedEncoding(uid);
  if (native) return native;
  const name = compressedSyntaxName(uid);
  if (name) {
    throw new InvalidInputError(
      `This file is compressed DICOM (${name}, transfer syntax ${uid}); compressed DICOM (${name}) is not supported yet. Export the images uncompressed (Explicit VR Little Endian) from your PACS or viewer and import them again.`,
      where(file),
    );
  }
  throw new InvalidInputError(
    `This DICOM file uses an unknown encoding (transfer syntax ${uid.replace(/[^0-9.]/g, '?')}). Export the images uncompressed (Explicit VR Little Endian) and import them again.`,
    where(file),
  );
}

function encapsulatedError(encoding: NativeEncoding, file?: string): InvalidInputError {
  return new InvalidInputError(
    `This DICOM file's pixel data is compressed (encapsulated) although it declares ${encoding.name}; compressed DICOM is not supported yet. Export the images uncompressed and import them again.`,
    where(file),
  );
}

/** Text values: Latin-1 is enough for the coded strings and numbers we keep; trailing NUL/space padding removed. */
function readString(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return s.replace(/[\0 ]+$/, '').trim();
}

/** All values of a numeric element, whether binary (US, SS…) or text (DS, IS). */
function readNumbers(v: RawValue): number[] {
  const view = new DataView(v.bytes.buffer, v.bytes.byteOffset, v.bytes.byteLength);
  const binary: Record<string, [number, (o: number) => number]> = {
    US: [2, (o) => view.getUint16(o, v.littleEndian)],
    SS: [2, (o) => view.getInt16(o, v.littleEndian)],
    UL: [4, (o) => view.getUint32(o, v.littleEndian)],
    SL: [4, (o) => view.getInt32(o, v.littleEndian)],
    FL: [4, (o) => view.getFloat32(o, v.littleEndian)],
    FD: [8, (o) => view.getFloat64(o, v.littleEndian)],
  };
  const reader = binary[v.vr];
  if (reader) {
    const [size, read] = reader;
    const out: number[] = [];
    for (let o = 0; o + size <= v.bytes.length; o += size) out.push(read(o));
    return out;
  }
  return readString(v.bytes)
    .split('\\')
    .map((s) => (s.trim() === '' ? Number.NaN : Number(s.trim())));
}

function buildHeader(values: ReadonlyMap<number, RawValue>, transferSyntaxUID: string, file?: string): DicomImageHeader {
  const numbers = (group: number, element: number): number[] | undefined => {
    const v = values.get(tagOf(group, element));
    return v ? readNumbers(v) : undefined;
  };
  const first = (group: number, element: number): number | undefined => {
    const n = numbers(group, element)?.[0];
    return n !== undefined && Number.isFinite(n) ? n : undefined;
  };
  const text = (group: number, element: number): string | undefined => {
    const v = values.get(tagOf(group, element));
    const s = v ? readString(v.bytes).toUpperCase() : '';
    return s === '' ? undefined : s;
  };
  const finiteList = (group: number, element: number, count: number): number[] | undefined => {
    const list = numbers(group, element);
    return list && list.length >= count && list.slice(0, count).every(Number.isFinite) ? list.slice(0, count) : undefined;
  };
  const bad = (message: string) => new InvalidInputError(message, where(file));

  const rows = first(0x0028, 0x0010);
  const columns = first(0x0028, 0x0011);
  if (!rows || !columns) {
    throw bad('This DICOM file does not give its image size (Rows 0028,0010 and Columns 0028,0011 are missing or zero).');
  }
  checkImageSize({ width: columns, height: rows }, file);
  const bitsAllocated = first(0x0028, 0x0100);
  if (bitsAllocated !== 8 && bitsAllocated !== 16 && bitsAllocated !== 32) {
    throw bad(
      bitsAllocated === undefined
        ? 'This DICOM file does not say how many bits each pixel uses (BitsAllocated 0028,0100 is missing).'
        : `This DICOM file stores pixels with ${bitsAllocated} bits each; only 8, 16 and 32-bit images are supported.`,
    );
  }
  const bitsStored = first(0x0028, 0x0101) ?? bitsAllocated;
  const highBit = first(0x0028, 0x0102) ?? bitsStored - 1;
  if (bitsStored < 1 || bitsStored > bitsAllocated || highBit >= bitsAllocated || highBit < bitsStored - 1) {
    throw bad(`This DICOM file has inconsistent pixel bit settings (BitsAllocated ${bitsAllocated}, BitsStored ${bitsStored}, HighBit ${highBit}).`);
  }
  const samplesPerPixel = first(0x0028, 0x0002) ?? 1;
  const photometric = text(0x0028, 0x0004) ?? (samplesPerPixel === 3 ? 'RGB' : 'MONOCHROME2');
  const isMono = photometric === 'MONOCHROME1' || photometric === 'MONOCHROME2';
  if (!(isMono && samplesPerPixel === 1) && !(photometric === 'RGB' && samplesPerPixel === 3)) {
    throw bad(
      `This DICOM image uses the ${photometric} colour model with ${samplesPerPixel} sample(s) per pixel, which is not supported yet. Export it as grayscale (MONOCHROME2) or RGB.`,
    );
  }
  const frames = first(0x0028, 0x0008);
  const slope = first(0x0028, 0x1053);
  const windowWidth = first(0x0028, 0x1051);
  const windowCenter = first(0x0028, 0x1050);
  const hasWindow = windowWidth !== undefined && windowCenter !== undefined && windowWidth >= 1;
  const spacing = finiteList(0x0028, 0x0030, 2);
  const header: { -readonly [K in keyof DicomImageHeader]: DicomImageHeader[K] } = {
    transferSyntaxUID,
    rows,
    columns,
    samplesPerPixel: samplesPerPixel as 1 | 3,
    photometricInterpretation: photometric as PhotometricInterpretation,
    planarConfiguration: samplesPerPixel === 3 && first(0x0028, 0x0006) === 1 ? 1 : 0,
    bitsAllocated,
    bitsStored,
    highBit,
    pixelRepresentation: first(0x0028, 0x0103) === 1 ? 1 : 0,
    // NumberOfFrames absent (single-frame objects) or nonsensical means one frame.
    numberOfFrames: frames !== undefined && frames >= 1 ? Math.floor(frames) : 1,
    // A zero slope would flatten the image to one value; no real scanner writes it, so treat it as absent.
    rescaleSlope: slope !== undefined && slope !== 0 ? slope : 1,
    rescaleIntercept: first(0x0028, 0x1052) ?? 0,
  };
  const modality = text(0x0008, 0x0060);
  if (modality !== undefined) header.modality = modality;
  if (hasWindow) {
    header.windowCenter = windowCenter;
    header.windowWidth = windowWidth;
  }
  if (spacing) header.pixelSpacing = [spacing[0]!, spacing[1]!];
  const thickness = first(0x0018, 0x0050);
  if (thickness !== undefined) header.sliceThickness = thickness;
  const between = first(0x0018, 0x0088);
  if (between !== undefined) header.spacingBetweenSlices = between;
  const orientation = finiteList(0x0020, 0x0037, 6);
  if (orientation) header.imageOrientationPatient = orientation;
  const position = finiteList(0x0020, 0x0032, 3);
  if (position) header.imagePositionPatient = position;
  const instance = first(0x0020, 0x0013);
  if (instance !== undefined) header.instanceNumber = instance;
  return header;
}
