/** Format detection, and the shared helpers the importers rely on. */
import { describe, expect, it } from 'vitest';
import { IMPORTERS, detectImporter } from '../../../../src/core/importers/index.ts';
import { decodeBase64, parseDataUri } from '../../../../src/core/importers/image-data.ts';
import { memoryFile, type InputFile } from '../../../../src/core/bundle/importer.ts';
import { KeyLines, syntaxErrorPosition } from '../../../../src/core/importers/json-source.ts';
import { ImagePathIndex, normalizePath } from '../../../../src/core/importers/path-match.ts';
import { base64, png, referenceFile } from './fixtures.ts';

async function kinds(files: InputFile[]): Promise<[string, number][]> {
  return (await detectImporter(files)).map((d) => [d.importer.kind, d.confidence]);
}

describe('detectImporter', () => {
  it('lists the importers in a stable order', () => {
    expect(IMPORTERS.map((i) => i.kind)).toEqual(['neural-medbench', 'neurovlm-bench', 'vlmevalkit', 'dicom', 'generic']);
  });

  it('picks Neural-MedBench for its JSON (with or without an answer key)', async () => {
    const json = JSON.stringify([{ case_id: 'case_1', text: 'x', images: [], questions: [] }], null, 2);
    expect(await kinds([memoryFile('direct-diagnosis.json', json)])).toEqual([['neural-medbench', 0.95], ['generic', 0.2]]);
    expect((await kinds([memoryFile('direct-diagnosis.json', `\n  ${json}`), memoryFile('key.csv', 'case_id,diagnosis\ncase_1,x\n')]))[0]).toEqual(['neural-medbench', 0.95]);
    // Any other JSON may be a table of rows (OmniMedVQA's layout): the column mapping reads it.
    expect(await kinds([memoryFile('other.json', '{"case_id": 1}')])).toEqual([['generic', 0.2]]);
  });

  it('picks NeuroVLM-Bench for the real index with images and prompt', async () => {
    const files = [referenceFile('subset_sample.csv'), referenceFile('prompt_5classes_refined.txt'), memoryFile('stroke/a.png', png())];
    expect(await kinds(files)).toEqual([
      ['neurovlm-bench', 0.9],
      ['generic', 0.3],
    ]);
    expect((await kinds([referenceFile('few_shot_examples.csv', 'nvb/few_shot_examples.csv')]))[0]).toEqual(['neurovlm-bench', 0.9]);
  });

  it('picks VLMEvalKit for its TSV', async () => {
    const tsv = `index\timage\tquestion\tA\tB\tanswer\n1\t${base64(png())}\tQ\tx\ty\tA\n`;
    expect(await kinds([memoryFile('MMRareBench.tsv', tsv)])).toEqual([
      ['vlmevalkit', 0.9],
      ['generic', 0.3],
    ]);
  });

  it('falls back to the generic importer for other CSV and JSONL, and to nothing for loose images', async () => {
    expect(await kinds([memoryFile('items.csv', 'id,question\n1,Q\n')])).toEqual([['generic', 0.3]]);
    expect(await kinds([memoryFile('items.jsonl', '{"id":1}\n')])).toEqual([['generic', 0.3]]);
    expect(await kinds([memoryFile('a.png', png())])).toEqual([]);
  });
});

describe('image path matching', () => {
  const files = ['root/images-17/T1/a (1).png', 'root/images-17/T2/a (1).png', 'root/stroke/b.png'].map((p) => memoryFile(p, png()));

  it('normalises separators, ./ and Unicode form', () => {
    expect(normalizePath('.\\images\\Lesões/x.png')).toBe('images/Lesões/x.png'.normalize('NFC'));
    expect(normalizePath('/a//b.png')).toBe('a/b.png');
    expect(normalizePath('Les\u006f\u0303es/x.png')).toBe('Lesões/x.png'.normalize('NFC'));
  });

  it('applies one folder offset to every row', () => {
    const index = new ImagePathIndex(files);
    const found = index.resolveAll(['images-17/T1/a (1).png', 'images-17/T2/a (1).png', 'stroke/b.png', 'stroke/c.png']);
    expect(found.map((f) => f?.path)).toEqual(['root/images-17/T1/a (1).png', 'root/images-17/T2/a (1).png', 'root/stroke/b.png', undefined]);
    expect(index.offset).toEqual({ inputPrefix: 'root/', rowPrefix: '' });
  });

  it('prefers exact matches over a same-named file elsewhere', () => {
    const index = new ImagePathIndex(files);
    expect(index.resolveAll(['root/images-17/T1/a (1).png', 'other/T3/a (1).png']).map((f) => f?.path)).toEqual(['root/images-17/T1/a (1).png', undefined]);
  });
});

describe('base64, data URIs and JSON locations', () => {
  it('decodes base64 with whitespace and rejects other text', () => {
    const bytes = png(3);
    const text = base64(bytes);
    expect(decodeBase64(text)).toEqual(bytes);
    expect(decodeBase64(text.replace(/(.{60})/g, '$1\n'))).toEqual(bytes);
    expect(decodeBase64('a')).toBeNull();
    expect(decodeBase64('ab$c')).toBeNull();
    expect(decodeBase64('')).toBeNull();
  });

  it('parses data URIs without trusting the label', () => {
    expect(parseDataUri(`data:image/jpeg;base64,${base64(png())}`)).toEqual({ mime: 'image/jpeg', bytes: png() });
    expect(parseDataUri('image/png;base64,xx')).toEqual({ error: 'is not a data URI (it should start with "data:")' });
  });

  it('finds the line of each entry by its key, duplicates included', () => {
    const text = '[\n {"case_id": "a"},\n {"case_id": "b"},\n {"case_id": "a"},\n {"case_id": 7}\n]';
    const lines = new KeyLines(text, 'case_id');
    expect([lines.take('a'), lines.take('b'), lines.take('a'), lines.take('7'), lines.take('a')]).toEqual([2, 3, 4, 5, undefined]);
    expect(syntaxErrorPosition('Unexpected token in JSON at position 5', 'ab\ncdef')).toEqual({ line: 2, column: 3 });
    expect(syntaxErrorPosition('JSON.parse: expected property name at line 3 column 7 of the JSON data', '')).toEqual({ line: 3, column: 7 });
  });
});
