/**
 * DICOM descriptive free text follows PS3.15 Annex E: ProtocolName,
 * SequenceName, the series, study and procedure descriptions and the
 * contrast agent's name are dropped unless the import opts in; kept, they
 * are cleaned (the patient's name and ID, dates and record numbers taken
 * out, a value labelling personal data dropped), with the name compared
 * after Unicode folding whatever character set the file declares.
 */
import { describe, expect, it } from 'vitest';
import { prepareImport, type ImportPreview } from '../../../../src/core/importers/import-pipeline.ts';
import { memoryFile } from '../../../../src/core/bundle/importer.ts';
import { makeDicom, type MakeDicomOptions } from '../../../support/fixtures-imaging/index.ts';

async function importOne(over: MakeDicomOptions, keep = false): Promise<{ p: ImportPreview; meta: Record<string, string>; stored: string }> {
  const p = await prepareImport([memoryFile('scan.dcm', makeDicom({ rows: 8, columns: 8, modality: 'MR', ...over }))], keep ? { options: { keepDicomDescriptions: true } } : {});
  expect(p.errors).toEqual([]);
  const b = p.bundle!;
  const latin1 = new TextDecoder('latin1');
  const stored = [JSON.stringify(b.cases), JSON.stringify(b.manifest), ...[...b.files.values(), ...b.images.values()].map((x) => latin1.decode(x))].join('\n');
  return { p, meta: { ...b.cases[0]!.meta }, stored };
}

const descriptive = (meta: Record<string, string>) => Object.keys(meta).filter((k) => /^dicom\.(sequence|protocol|seriesDescription|studyDescription|procedureDescription)$/.test(k));

describe('by default', () => {
  it('keeps no descriptive text, even with no patient name to compare it with, and lists each tag as dropped', async () => {
    const { p, meta, stored } = await importOne({
      patient: { name: '', id: '' },
      technical: { manufacturer: 'SIEMENS', protocolName: 'SMITH JANE DOB 01/01/1960', sequenceName: 'ZZSEQ-SMITH', seriesDescription: 'ZZSERIES SMITH', studyDescription: 'ZZSTUDY SMITH', procedureDescription: 'ZZPROC SMITH', contrastAgent: 'ZZAGENT SMITH' },
    });
    expect(descriptive(meta)).toEqual([]);
    expect(meta['dicom.manufacturer']).toBe('SIEMENS');
    // The agent is kept coded: given or not.
    expect(meta['dicom.contrast']).toBe('yes');
    for (const s of ['SMITH', 'ZZSEQ', 'ZZSERIES', 'ZZSTUDY', 'ZZPROC', 'ZZAGENT', '1960']) expect(stored).not.toContain(s);
    expect(p.droppedTags.map((t) => t.keyword)).toEqual(expect.arrayContaining(['ProtocolName', 'SequenceName', 'SeriesDescription', 'StudyDescription', 'PerformedProcedureStepDescription']));
    expect(p.warnings).toEqual([]);
  });
});

describe('kept on request, cleaned', () => {
  it('drops a value that labels personal data whole, even when the name is unknown', async () => {
    const { p, meta, stored } = await importOne({ patient: { name: '', id: '' }, technical: { protocolName: 'SMITH JANE DOB 01/01/1960', sequenceName: '*tse2d1_15' } }, true);
    expect(meta['dicom.protocol']).toBeUndefined();
    expect(meta['dicom.sequence']).toBe('*tse2d1_15');
    expect(stored).not.toContain('SMITH');
    expect(p.warnings.map((w) => w.message)).toContain(`"scan.dcm": ProtocolName holds the patient's name, an ID, a date or a label of personal data, and nothing technical is left without it, so it is not kept.`);
    expect(p.droppedTags.map((t) => t.keyword)).not.toContain('ProtocolName');
  });

  it.each([
    ['ISO_IR 100 (one byte per letter)', 'ISO_IR 100', 'MÜLLER JÜRGEN brain'],
    ['ISO_IR 192 (UTF-8)', 'ISO_IR 192', 'MÜLLER JÜRGEN brain'],
    ['lower case', 'ISO_IR 192', 'müller jürgen brain'],
    ['decomposed (NFD) letters', 'ISO_IR 192', 'MU\u0308LLER JU\u0308RGEN brain'],
    ['without the diacritics', 'ISO_IR 192', 'MULLER JURGEN brain'],
    ['run together', 'ISO_IR 192', 'brain_MÜLLERJÜRGEN'],
  ])('takes the patient name MÜLLER^JÜRGEN out of a protocol name written %s', async (_how, charset, protocol) => {
    const { p, meta, stored } = await importOne({ charset, patient: { name: 'MÜLLER^JÜRGEN', id: 'ZZ4711' }, technical: { protocolName: protocol } }, true);
    expect(meta['dicom.protocol']).toBe('brain');
    expect(stored.toUpperCase()).not.toMatch(/M.?LLER|J.?RGEN|M LLER/);
    expect(p.warnings.map((w) => w.message)).toContain(`"scan.dcm": ProtocolName held the patient's name, an ID or a date; only the rest is kept.`);
  });

  it('takes out the ID, dates and record numbers and keeps the technical words, Unicode kept and invisible characters removed', async () => {
    const { meta } = await importOne(
      {
        charset: 'ISO_IR 192',
        patient: { name: 'DOE^JANE', id: 'ZZ4711' },
        technical: { seriesDescription: 'Ax T2 FLAIR 19600101', studyDescription: 'IRM cérébrale ZZ4711', procedureDescription: 'MRT Schädel\u200b 2024-01-05 (1234567)', sequenceName: 'ep2d_diff\u202e' },
      },
      true,
    );
    expect(meta).toMatchObject({ 'dicom.seriesDescription': 'Ax T2 FLAIR', 'dicom.studyDescription': 'IRM cérébrale', 'dicom.procedureDescription': 'MRT Schädel', 'dicom.sequence': 'ep2d_diff' });
  });

  it('keeps a technical tag holding the patient name out, compared after folding', async () => {
    const { p, meta } = await importOne({ charset: 'ISO_IR 192', patient: { name: 'STRAẞE^ANNA' }, technical: { manufacturer: 'strasse scanners', model: 'Avanto' } });
    expect(meta['dicom.manufacturer']).toBeUndefined();
    expect(meta['dicom.model']).toBe('Avanto');
    expect(p.warnings.map((w) => w.message)).toContain(`"scan.dcm": Manufacturer contains the patient's name or ID, so it is not kept.`);
  });
});
