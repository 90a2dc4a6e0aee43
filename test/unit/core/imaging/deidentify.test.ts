import { describe, expect, it } from 'vitest';
import { KEPT_TAGS } from '../../../../src/core/imaging/dicom/deidentify.ts';
import { formatTag, tagKeyword } from '../../../../src/core/imaging/dicom/dictionary.ts';
import { parseDicom } from '../../../../src/core/imaging/dicom/parse.ts';
import { decodeVolume, encodeVolume, volumeFromDicom, volumeFromNifti } from '../../../../src/core/imaging/dicom/serialize.ts';
import type { DicomImageHeader } from '../../../../src/core/imaging/dicom/types.ts';
import { parseNifti } from '../../../../src/core/imaging/nifti/parse.ts';
import { asciiBytes, containsBytes, FAKE_PATIENT, makeDicom, makeNifti } from '../../../support/fixtures-imaging/index.ts';

const IDENTIFYING = Object.values(FAKE_PATIENT);

describe('DICOM keep-list', () => {
  it('keeps only technical tags: nothing from the patient, study or institution', () => {
    const groups = new Set(KEPT_TAGS.map((t) => t.tag >>> 16));
    expect(groups).toEqual(new Set([0x0002, 0x0008, 0x0018, 0x0020, 0x0028, 0x7fe0]));
    const keywords = KEPT_TAGS.map((t) => t.keyword);
    for (const forbidden of ['PatientName', 'PatientID', 'StudyDate', 'InstitutionName', 'SOPInstanceUID', 'StudyInstanceUID', 'SeriesDescription']) {
      expect(keywords).not.toContain(forbidden);
    }
    // Every kept tag is named consistently with the dictionary.
    for (const t of KEPT_TAGS) expect(tagKeyword(t.tag)).toBe(t.keyword);
  });

  it('names tags by keyword, or by number when unknown', () => {
    expect(formatTag(0x00100010)).toBe('(0010,0010)');
    expect(tagKeyword(0x00100010)).toBe('PatientName');
    expect(tagKeyword(0x00191234)).toBeUndefined();
  });
});

describe('dropped tags', () => {
  it.each(['explicit-le', 'implicit-le', 'explicit-be', 'deflated'] as const)('lists identifying tags by name, never by value (%s)', (syntax) => {
    const parsed = parseDicom(makeDicom({ syntax, privateTags: true, sequence: true }));
    const names = parsed.dropped.map((d) => d.name);
    for (const name of [
      'PatientName',
      'PatientID',
      'PatientBirthDate',
      'InstitutionName',
      'AccessionNumber',
      'ReferringPhysicianName',
      'StudyDate',
      'StudyInstanceUID',
      'SOPInstanceUID',
      'MediaStorageSOPInstanceUID',
    ]) {
      expect(names).toContain(name);
    }
    expect(parsed.dropped.find((d) => d.name === 'PatientName')).toEqual({ tag: '(0010,0010)', name: 'PatientName', count: 1 });
    // Private tags are summarised in one line.
    expect(parsed.dropped.at(-1)).toEqual({ tag: 'private', name: 'private tags', count: 3 });
    // Kept tags and group lengths are not "dropped".
    expect(names).not.toContain('Rows');
    expect(names).not.toContain('PixelData');
    expect(names.some((n) => n.endsWith(',0000)'))).toBe(false);
    const report = JSON.stringify(parsed.dropped);
    for (const value of IDENTIFYING) expect(report).not.toContain(value);
    expect(report).not.toContain('NESTED^NAME');
  });

  it('names unknown standard tags by number', () => {
    const bytes = makeDicom();
    // Retag (0008,0005) SpecificCharacterSet as (0008,0006), which the small dictionary does not know.
    const at = bytes.indexOf(0x05, 132 + 12);
    expect(bytes[at - 2]).toBe(0x08);
    bytes[at] = 0x06;
    expect(parseDicom(bytes).dropped.map((d) => d.name)).toContain('(0008,0006)');
  });
});

describe('de-identified volume container', () => {
  it('round-trips a DICOM image without any identifying value', () => {
    const parsed = parseDicom(
      makeDicom({ privateTags: true, sequence: true, frames: 2, signed: true, modality: 'CT', rescale: { slope: 1, intercept: -1024 }, window: { center: 40, width: 80 } }),
    );
    const stored = encodeVolume(volumeFromDicom(parsed));
    expect(new TextDecoder().decode(stored.subarray(0, 6))).toBe('NEVOL1');
    expect(containsBytes(stored, asciiBytes('DOE^JANE'))).toBe(false);
    for (const value of IDENTIFYING) expect(containsBytes(stored, asciiBytes(value))).toBe(false);
    for (const dropped of parsed.dropped) expect(containsBytes(stored, asciiBytes(dropped.name))).toBe(false);

    const back = decodeVolume(stored);
    expect(back.kind).toBe('dicom');
    if (back.kind !== 'dicom') return;
    expect(back.header).toEqual(parsed.kept);
    expect(back.data).toBeInstanceOf(Int16Array);
    expect(Array.from(back.data)).toEqual(Array.from(parsed.pixel));
  });

  it('whitelists header fields even when handed extra ones', () => {
    const parsed = parseDicom(makeDicom());
    const polluted = { ...parsed.kept, patientName: FAKE_PATIENT.name, modality: `${FAKE_PATIENT.name}` } as DicomImageHeader;
    const stored = encodeVolume({ kind: 'dicom', header: polluted, data: parsed.pixel });
    expect(containsBytes(stored, asciiBytes('DOE'))).toBe(false);
    expect(containsBytes(stored, asciiBytes('patientName'))).toBe(false);
  });

  it('round-trips a NIfTI volume and drops its free-text fields', () => {
    const parsed = parseNifti(makeNifti({ datatype: 'float32', sclSlope: 2, sclInter: 1, descrip: FAKE_PATIENT.name, calMin: 0, calMax: 500, sform: [[-1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]] }));
    const stored = encodeVolume(volumeFromNifti(parsed));
    expect(containsBytes(stored, asciiBytes('DOE^JANE'))).toBe(false);
    const back = decodeVolume(stored);
    expect(back.kind).toBe('nifti');
    if (back.kind !== 'nifti') return;
    expect(back.header).toEqual({
      dims: [4, 3, 2],
      pixdim: [1, 1, 1],
      datatype: 'float32',
      sclSlope: 2,
      sclInter: 1,
      calMin: 0,
      calMax: 500,
      orientation: { axes: [0, 1, 2], signs: [-1, 1, 1], source: 'sform' },
    });
    expect(back.data).toBeInstanceOf(Float32Array);
    expect(Array.from(back.data)).toEqual(Array.from(parsed.data));
  });

  it('aligns samples so float64 volumes decode', () => {
    const parsed = parseNifti(makeNifti({ datatype: 'float64', value: (i, j, k) => i / 3 + j + k }));
    const back = decodeVolume(encodeVolume(volumeFromNifti(parsed)));
    expect(Array.from(back.data)).toEqual(Array.from(parsed.data));
  });

  it('refuses damaged containers with a typed error', () => {
    const stored = encodeVolume(volumeFromDicom(parseDicom(makeDicom())));
    expect(() => decodeVolume(stored.subarray(0, 5))).toThrow(/damaged/);
    expect(() => decodeVolume(stored.subarray(0, stored.length - 2))).toThrow(/samples are missing/);
    const bad = stored.slice();
    bad[0] = 0x58;
    expect(() => decodeVolume(bad)).toThrow(/not an NEVOL1 container/);
    const wrongJson = stored.slice();
    wrongJson[12] = 0x5b; // '[': not an object
    expect(() => decodeVolume(wrongJson)).toThrow(/damaged/);
  });
});
