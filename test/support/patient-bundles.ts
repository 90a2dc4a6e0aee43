/**
 * Benchmarks whose cases are slices of a few patients, with the technical
 * tags a hospital's DICOM export carries on each case's `meta`: drawn demo
 * cases (so the demo-trained model answers them as it would real slices),
 * written as NeuroEval bundle ZIPs the Benchmarks page imports.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { finalizeBundle } from '../../src/core/bundle/finalize.ts';
import { writeBundleZip } from '../../src/core/bundle/zip-write.ts';
import { buildDrawnDraft } from '../../src/core/demo/index.ts';
import { makeTempDir } from './temp-dir.ts';

/** Per patient: its scanner, field strength as the scanner wrote it, and slice thickness. */
const SCANNERS = [
  { 'dicom.manufacturer': 'GE MEDICAL SYSTEMS', 'dicom.model': 'SIGNA Explorer', 'dicom.fieldStrength': '1.5', 'dicom.sliceThickness': '5', 'dicom.sequence': 'Ax T2 FLAIR', 'dicom.protocol': 'BRAIN ROUTINE' },
  { 'dicom.manufacturer': 'SIEMENS', 'dicom.model': 'Prisma', 'dicom.fieldStrength': '2.89362', 'dicom.sliceThickness': '1', 'dicom.sequence': 't2_space_dark-fluid', 'dicom.protocol': 'BRAIN 3D' },
];

/**
 * A bundle of `patients × slices` drawn cases (seed 7). With `sharePatients`,
 * the slices of a patient carry its patient and study key; without, every
 * slice has a key of its own (as if each were a different patient). The
 * technical tags are the same either way.
 */
export function patientSlicesZip(patients: number, slices: number, sharePatients: boolean): { file: string; name: string; cases: number } {
  const count = patients * slices;
  const draft = buildDrawnDraft(7, count);
  const name = `Hospital slices (${sharePatients ? `${patients} patients` : 'one patient per slice'})`;
  const cases = draft.cases.map((c, i) => {
    const p = Math.floor(i / slices);
    const key = sharePatients ? `PAT-${p + 1}` : `PAT-${i + 1}`;
    return { ...c, meta: { ...c.meta, ...SCANNERS[p % SCANNERS.length], 'dicom.patientKey': key, 'dicom.studyKey': `ST-${key}`, 'dicom.seriesKey': `SE-${i + 1}` } };
  });
  const id = sharePatients ? 'hospital-slices-patients' : 'hospital-slices-single';
  const { bundle } = finalizeBundle({ ...draft, manifest: { ...draft.manifest, id, name }, cases }, { inputName: id });
  if (!bundle) throw new Error('the patient bundle did not finalize');
  const file = join(makeTempDir('patient-slices'), `${id}.zip`);
  writeFileSync(file, writeBundleZip(bundle));
  return { file, name, cases: count };
}
