/**
 * A hospital-style DICOM study folder whose pixels are drawn demo cases, so
 * the demo-trained model answers its slices as it answers the demo: two
 * patients (a 1.5 T Siemens and a 3 T GE scanner), three series each, one
 * folder per series, with an `answer-key.csv` that names each series by its
 * folder and gives NeuroVLM-Bench labels. Every slice of a series is the same
 * drawn image; the user picks which slice a case shows.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildDrawnDraft } from '../../src/core/demo/index.ts';
import { decodePng } from '../../src/core/imaging/degrade/pixels.ts';
import { AXIAL } from './dicom-studies.ts';
import { makeDicom } from './fixtures-imaging/index.ts';
import { makeTempDir } from './temp-dir.ts';

const PATIENTS = [
  { patient: { name: 'ALPHA^ANNA', id: 'MRN-ALPHA-01', studyUid: '1.2.826.0.1.3680043.8.498.91' }, technical: { manufacturer: 'SIEMENS', model: 'Avanto', fieldStrength: '1.5', sequenceName: '*tse2d1_15', protocolName: 't2_tse_tra', contrastAgent: '' } },
  { patient: { name: 'BRAVO^BEN', id: 'MRN-BRAVO-02', studyUid: '1.2.826.0.1.3680043.8.498.92' }, technical: { manufacturer: 'GE MEDICAL SYSTEMS', model: 'SIGNA Premier', fieldStrength: '3', sequenceName: 'fse', protocolName: 'AX T2 FLAIR', contrastAgent: '' } },
] as const;

const CLASSES = ['tumor', 'stroke', 'multiple sclerosis', 'normal', 'other abnormalities'] as const;

export interface DemoStudy {
  /** The folder to pick (its name is the first segment of every path the browser sees). */
  readonly folder: string;
  readonly series: number;
  readonly patients: number;
  /** Names that must never be stored. */
  readonly identifiers: readonly string[];
}

/**
 * Writes the study under a temporary folder. With `misLabelSecond`, the
 * second patient's key gives each series a class other than the one drawn,
 * so the two patients' scores differ as a hospital's patients can (one
 * scanner's images read well, another's badly): what intervals by patient
 * are for.
 */
export function demoStudyFolder(options: { seriesPerPatient: number; slices: number; misLabelSecond: boolean }): DemoStudy {
  const { seriesPerPatient, slices } = options;
  const draft = buildDrawnDraft(7, PATIENTS.length * seriesPerPatient);
  const root = join(makeTempDir('demo-study'), 'study');
  const key = ['case_id,diagnosis_name,diagnosis_detailed,modality,specialized_sequence,plane'];
  draft.cases.forEach((c, i) => {
    const p = Math.floor(i / seriesPerPatient);
    const { patient, technical } = PATIENTS[p]!;
    const image = c.images[0]!;
    const gray = decodePng(draft.images.get(image.path)!);
    const folder = `patient${p + 1}/series${(i % seriesPerPatient) + 1}`;
    for (let z = 0; z < slices; z++) {
      const bytes = makeDicom({
        rows: gray.height,
        columns: gray.width,
        bitsAllocated: 8,
        modality: 'MR',
        // Linear window 128/256 maps stored values 0–255 to the same grey levels (PS3.3 C.11.2.1.2).
        window: { center: 128, width: 256 },
        pixelSpacing: [0.9, 0.9],
        sliceThickness: 5,
        imageOrientationPatient: AXIAL,
        imagePositionPatient: [0, 0, z * 5],
        instanceNumber: z + 1,
        seriesUid: `${patient.studyUid}.${i + 1}`,
        patient,
        technical,
        pixel: (_f, r, col) => gray.data[(r * gray.width + col) * gray.channels]!,
      });
      const path = join(root, folder, `IM${String(z + 1).padStart(4, '0')}`);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, bytes);
    }
    const labels = c.questions[0]!.reference!.labels!;
    const drawn = labels.diagnosis_name!;
    const diagnosis = options.misLabelSecond && p === 1 ? CLASSES[(CLASSES.indexOf(drawn as (typeof CLASSES)[number]) + 2) % CLASSES.length]! : drawn;
    key.push([folder, diagnosis, labels.diagnosis_detailed ?? '', labels.modality ?? '', labels.specialized_sequence ?? '', labels.plane ?? ''].join(','));
  });
  writeFileSync(join(root, 'answer-key.csv'), `${key.join('\n')}\n`);
  return {
    folder: root,
    series: draft.cases.length,
    patients: PATIENTS.length,
    identifiers: PATIENTS.flatMap((p) => [p.patient.name, p.patient.id, p.patient.studyUid]),
  };
}
