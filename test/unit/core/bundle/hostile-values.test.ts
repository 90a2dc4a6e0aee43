/**
 * What JSON and archives let through, refused with a clear error wherever it
 * sits: compressed and archive formats NeuroEval does not open (under
 * prompts/, sources/, in a ZIP or a TAR beside the cases, as a case image),
 * images with metadata inside an archive, numbers that read as infinity in
 * every JSON input, case ids that are one id after NFC, and a ZIP whose end
 * record lists nothing while it holds files.
 */
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { prepareImport, type ImportPreview } from '../../../../src/core/importers/import-pipeline.ts';
import { memoryFile } from '../../../../src/core/bundle/importer.ts';
import { encodePng } from '../../../../src/core/imaging/png-encode.ts';
import { UNREAD_FORMATS } from '../../../support/hostile-archives.ts';
import { jpegWithMetadata, pngWithMetadata } from '../../../support/hostile-images.ts';
import { sha256Hex } from '../../../../src/core/hash/sha256.ts';

const png = encodePng(Uint8Array.from({ length: 64 }, (_, i) => i * 3), 8, 8);
const MANIFEST = JSON.stringify({ format: 'neuroeval-bundle', formatVersion: 1, id: 'hv', name: 'Hostile values', version: '1', license: 'CC0-1.0' });
const caseLine = (id: string, image = 'images/a.png') => JSON.stringify({ id, taskFamily: 'classification', images: [{ path: image }], questions: [{ id: 'q1', text: 'Finding?' }] });

function bundle(files: Record<string, Uint8Array>, lines = [caseLine('c1')]): Promise<ImportPreview> {
  const zip = zipSync({ 'manifest.json': strToU8(MANIFEST), 'cases.jsonl': strToU8(`${lines.join('\n')}\n`), 'images/a.png': png, ...files });
  return prepareImport([memoryFile('hv.zip', zip)]);
}

/** A TAR archive (ustar) of one member. */
function tar(name: string, data: Uint8Array): Uint8Array {
  const header = new Uint8Array(512);
  header.set(strToU8(name));
  header.set(strToU8('0000644\0'), 100);
  header.set(strToU8('0000000\0'), 108);
  header.set(strToU8('0000000\0'), 116);
  header.set(strToU8(`${data.length.toString(8).padStart(11, '0')}\0`), 124);
  header.set(strToU8('00000000000\0'), 136);
  header[156] = 0x30;
  header.set(strToU8('ustar\x0000'), 257);
  header.fill(0x20, 148, 156);
  const sum = header.reduce((n, b) => n + b, 0);
  header.set(strToU8(`${sum.toString(8).padStart(6, '0')}\0 `), 148);
  const body = new Uint8Array(Math.ceil(data.length / 512) * 512);
  body.set(data);
  return Uint8Array.from([...header, ...body, ...new Uint8Array(1024)]);
}

const refusal = (p: ImportPreview) => p.errors.map((e) => `${e.location?.file}: ${e.message}`);

describe('formats NeuroEval does not open', () => {
  it.each(Object.entries(UNREAD_FORMATS))('refuses %s beside the cases by its content, naming the file', async (format, f) => {
    const p = await bundle({ [f.name]: f.bytes });
    expect(p.ok).toBe(false);
    const phrase = format === 'bzip2' || format === 'xz' || format === 'Zstandard' ? `${format}-compressed` : `a ${format} archive`;
    expect(refusal(p)).toContainEqual(`${f.name}: "${f.name}" is ${phrase}, a format NeuroEval does not open to check for patient data. Files beside the cases are stored as they are, so it cannot be de-identified: unpack it and refer to its images from cases (they are then de-identified), or remove it.`);
  });

  it('finds them inside a ZIP and a TAR beside the cases', async () => {
    const inZip = await bundle({ 'assets/bundle.zip': zipSync({ 'deep/scan.bin': UNREAD_FORMATS.bzip2!.bytes }) });
    expect(refusal(inZip)).toContainEqual(expect.stringContaining('assets/bundle.zip: "assets/bundle.zip" is an archive whose "deep/scan.bin" is bzip2-compressed, a format NeuroEval does not open'));
    const inTar = await bundle({ 'assets/notes.tar': tar('notes/data.xz', UNREAD_FORMATS.xz!.bytes) });
    expect(refusal(inTar)).toContainEqual(expect.stringContaining('assets/notes.tar: "assets/notes.tar" is an archive whose "notes/data.xz" is xz-compressed'));
  });

  it('refuses an image with metadata inside an archive, where it cannot be removed', async () => {
    const p = await bundle({ 'assets/figures.zip': zipSync({ 'fig.png': pngWithMetadata('ZZINZIP') }) });
    expect(refusal(p)).toContainEqual(expect.stringContaining('"assets/figures.zip" is an archive holding an image that carries metadata (PNG text (tEXt),'));
  });

  it('says a case image that is compressed is not an image, naming the format', async () => {
    const p = await bundle({ 'images/b.png': UNREAD_FORMATS.Zstandard!.bytes }, [caseLine('c1'), caseLine('c2', 'images/b.png')]);
    expect(p.errors.map((e) => e.message)).toContain('"images/b.png" is Zstandard-compressed, not an image; NeuroEval does not open that format. Decompress it and import the image itself.');
  });
});

describe('values JSON lets through', () => {
  it('finds ids that are one id after NFC as duplicates, and stores ids NFC', async () => {
    const p = await bundle({}, [caseLine('caf\u00e9'), caseLine('cafe\u0301')]);
    expect(p.errors.map((e) => e.message)).toContain('Case id "café" is used by cases 1 and 2.');
    const one = await bundle({}, [caseLine('cafe\u0301')]);
    expect(one.bundle!.cases[0]!.id).toBe('caf\u00e9');
  });

  it('names line and field of an infinite number in a JSONL import, and the field in a JSON one', async () => {
    const jsonl = await prepareImport([memoryFile('items.jsonl', '{"id":"i1","q":"A?","a":"x"}\n{"id":"i2","q":"B?","a":"y","score":-1e999}\n')], { kind: 'generic', options: { mapping: { id: 'id', question: 'q', answer: 'a' } } });
    expect(jsonl.errors).toContainEqual({ severity: 'error', message: '"score" is a number too large to store (it reads as infinity, as 1e400 does); write a smaller number, or the value as text.', location: { file: 'items.jsonl', line: 2, field: 'score' } });
    const json = await prepareImport([memoryFile('questions.json', '[{"case_id":"c1","question":"Q?","age":1e400}]')], { kind: 'neural-medbench' });
    expect(json.errors).toContainEqual(expect.objectContaining({ message: 'questions.json: "[0].age" is a number too large to store (it reads as infinity, as 1e400 does); write a smaller number, or the value as text.', location: expect.objectContaining({ file: 'questions.json', field: '[0].age' }) }));
  });

  it('names the field of an infinite number in manifest.json', async () => {
    const zip = zipSync({ 'manifest.json': strToU8(MANIFEST.replace('"version":"1"', '"version":"1","caseCount":1e400')), 'cases.jsonl': strToU8(`${caseLine('c1')}\n`), 'images/a.png': png });
    const p = await prepareImport([memoryFile('hv.zip', zip)]);
    expect(p.errors).toContainEqual({ severity: 'error', message: 'manifest.json: "caseCount" is a number too large to store (it reads as infinity, as 1e400 does); write a smaller number, or the value as text.', location: { file: 'manifest.json', field: 'caseCount' } });
  });
});

describe('a ZIP whose end record lists no files', () => {
  it('is named as damaged when the archive holds files', async () => {
    const zip = zipSync({ 'manifest.json': strToU8(MANIFEST), 'cases.jsonl': strToU8(`${caseLine('c1')}\n`), 'images/a.png': png });
    const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    const end = zip.length - 22;
    view.setUint16(end + 8, 0, true);
    view.setUint16(end + 10, 0, true);
    view.setUint32(end + 12, 0, true);
    const p = await prepareImport([memoryFile('empty-end.zip', zip)]);
    expect(p.errors.map((e) => e.message)).toContain('"empty-end.zip" is not a readable ZIP archive (truncated or corrupt): its end-of-archive record lists no files, but the archive begins with one, so the record is damaged or forged.');
  });
});

describe('images of every importer are stored as pixels', () => {
  const MARK = 'ZZEVERYIMPORTER';
  const stored = (p: ImportPreview) => [...p.bundle!.images.values()].map((b) => new TextDecoder('latin1').decode(b)).join('\n');

  it('VLMEvalKit base64 images', async () => {
    const b64 = Buffer.from(pngWithMetadata(MARK)).toString('base64');
    const tsv = `index\timage\tquestion\tA\tB\tanswer\n1\t${b64}\tWhich?\tx\ty\tA\n`;
    const p = await prepareImport([memoryFile('MMBench.tsv', tsv)]);
    expect(p.errors).toEqual([]);
    expect(p.importer.kind).toBe('vlmevalkit');
    expect(p.removedMetadata.map((r) => r.kind)).toContain('PNG text (tEXt)');
    expect(stored(p)).not.toContain(MARK);
  });

  it('images of a generic CSV import', async () => {
    const p = await prepareImport([memoryFile('cases.csv', 'case,prompt,file\nc1,Finding?,photo.jpg\n'), memoryFile('photo.jpg', jpegWithMetadata(MARK))], { kind: 'generic', options: { mapping: { id: 'case', question: 'prompt', image: 'file' } } });
    expect(p.errors).toEqual([]);
    expect(p.removedMetadata.map((r) => r.kind)).toEqual(expect.arrayContaining(['JPEG EXIF (APP1)', 'JPEG comment (COM)']));
    expect(stored(p)).not.toContain(MARK);
  });

  it('checks a declared hash against the bytes as given, and stores the hash of what is stored', async () => {
    const image = pngWithMetadata(MARK);
    const declared = sha256Hex(image);
    const line = JSON.stringify({ id: 'c1', taskFamily: 'classification', images: [{ path: 'images/m.png', sha256: declared }], questions: [{ id: 'q1', text: 'Finding?' }] });
    const p = await bundle({ 'images/m.png': image }, [line]);
    expect(p.errors).toEqual([]);
    const [stored] = p.bundle!.cases[0]!.images;
    expect(stored!.sha256).not.toBe(declared);
    expect(stored!.sha256).toBe(sha256Hex(p.bundle!.images.get(stored!.path)!));
  });
});
