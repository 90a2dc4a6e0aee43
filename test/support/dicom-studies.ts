/**
 * DICOM studies for the series import tests, written at test time: a
 * series of single-frame slices (file names in the wrong order), a
 * multi-frame file, a secondary capture with text drawn into it, and
 * series of two patients. Every slice's pixels say which slice it is, so
 * the order of the built volume can be checked against positions.
 */
import { FAKE_PATIENT, makeDicom, type MakeDicomOptions } from './fixtures-imaging/index.ts';

export const AXIAL = [1, 0, 0, 0, 1, 0] as const;

/** Stored value of pixel (row, column) of the slice at position index `z`: distinct per slice. */
export const slicePixel = (z: number) => (_f: number, r: number, c: number) => 100 * (z + 1) + r * 5 + c;

export interface SeriesSpec {
  readonly patient?: MakeDicomOptions['patient'];
  readonly seriesUid: string;
  readonly slices: number;
  readonly technical?: MakeDicomOptions['technical'];
  readonly sliceThickness?: number;
  /** Spacing between slice positions, mm. */
  readonly spacing?: number;
}

/**
 * The files of one axial series, named so that name order is not position
 * order: slice z sits at z × spacing mm, its file is named after a shuffled
 * number and its InstanceNumber counts down, so only the position orders it.
 */
export function axialSeries(spec: SeriesSpec, folder: string): { name: string; bytes: Uint8Array; z: number }[] {
  const names = [3, 0, 4, 1, 2, 6, 5, 7];
  const out: { name: string; bytes: Uint8Array; z: number }[] = [];
  for (let z = 0; z < spec.slices; z++) {
    out.push({
      name: `${folder}/IM${String(names[z % names.length]! + 8 * Math.floor(z / names.length)).padStart(4, '0')}`,
      z,
      bytes: makeDicom({
        rows: 6,
        columns: 8,
        modality: 'MR',
        window: { center: 400, width: 800 },
        pixelSpacing: [0.9, 0.9],
        sliceThickness: spec.sliceThickness ?? 5,
        imageOrientationPatient: AXIAL,
        imagePositionPatient: [-3.6, -2.7, z * (spec.spacing ?? 5)],
        instanceNumber: spec.slices - z,
        seriesUid: spec.seriesUid,
        ...(spec.patient ? { patient: spec.patient } : {}),
        ...(spec.technical ? { technical: spec.technical } : {}),
        pixel: slicePixel(z),
      }),
    });
  }
  return out;
}

/** One multi-frame MR file: frames are slices in file order. */
export function multiFrameFile(frames: number): Uint8Array {
  return makeDicom({
    rows: 6,
    columns: 8,
    frames,
    modality: 'MR',
    window: { center: 400, width: 800 },
    imageOrientationPatient: AXIAL,
    seriesUid: '1.2.826.0.1.3680043.8.498.55501',
    technical: { manufacturer: 'Philips Medical Systems', model: 'Ingenia', fieldStrength: '3' },
    pixel: (f, r, c) => 100 * (f + 1) + r * 5 + c,
  });
}

/** A secondary capture (an RGB screenshot of a viewer) with the patient's name "drawn" in its first row. */
export function secondaryCapture(): Uint8Array {
  return makeDicom({
    rows: 6,
    columns: 8,
    photometric: 'RGB',
    bitsAllocated: 8,
    sopClassUid: '1.2.840.10008.5.1.4.1.1.7',
    modality: 'OT',
    imageType: 'DERIVED\\SECONDARY',
    seriesUid: '1.2.826.0.1.3680043.8.498.66601',
    pixel: (_f, r, c, s) => (r === 0 ? 255 : 20 + c * 10 + s),
  });
}

/** Patients of the two-patient study; their identifiers must never be stored. */
export const PATIENT_A = { ...FAKE_PATIENT, name: 'ALPHA^ANNA', id: 'MRN-A-100200', studyUid: '1.2.826.0.1.3680043.8.498.9001' } as const;
export const PATIENT_B = { ...FAKE_PATIENT, name: 'BRAVO^BERT', id: 'MRN-B-300400', studyUid: '1.2.826.0.1.3680043.8.498.9002' } as const;
export const SERIES_UIDS = ['1.2.826.0.1.3680043.8.498.9001.1', '1.2.826.0.1.3680043.8.498.9001.2', '1.2.826.0.1.3680043.8.498.9002.1'] as const;

/**
 * A study folder of two patients: patient A has two series (1.5 T), patient
 * B one (3 T), all with technical tags; each series of `slices` slices.
 */
export function twoPatientStudy(slices = 5): { name: string; bytes: Uint8Array }[] {
  const siemens = { manufacturer: 'SIEMENS', model: 'Avanto', fieldStrength: '1.5', sequenceName: '*tse2d1_15', protocolName: 't2_tse_tra', contrastAgent: '' };
  const ge = { manufacturer: 'GE MEDICAL SYSTEMS', model: 'SIGNA Premier', fieldStrength: '3', sequenceName: 'fse', protocolName: 'AX T2 FLAIR', contrastAgent: 'GADOVIST' };
  return [
    ...axialSeries({ patient: PATIENT_A, seriesUid: SERIES_UIDS[0], slices, technical: siemens }, 'study/a1'),
    ...axialSeries({ patient: PATIENT_A, seriesUid: SERIES_UIDS[1], slices, technical: siemens, sliceThickness: 3 }, 'study/a2'),
    ...axialSeries({ patient: PATIENT_B, seriesUid: SERIES_UIDS[2], slices, technical: ge }, 'study/b1'),
  ];
}
