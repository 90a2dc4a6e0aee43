/**
 * A user's own cases as they arrive in practice: a spreadsheet saved as CSV
 * beside a folder of images, with column names of their own choosing
 * ("Reference diagnosis", "Scan"). The images are the demo generator's
 * phantoms (held-out seed), so the demo-trained model's answers mean
 * something; the CSV knows nothing of NeuroEval's formats.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildDrawnDraft } from '../../src/core/demo/index.ts';
import { HELD_OUT_SEED } from './demo-trained-run.ts';
import { makeTempDir } from './temp-dir.ts';

/** How a clinician writes each class in a spreadsheet (capitals, British spelling). */
const WRITTEN: Readonly<Record<string, string>> = {
  tumor: 'Tumour',
  stroke: 'Stroke',
  'multiple sclerosis': 'Multiple sclerosis',
  normal: 'Normal',
  'other abnormalities': 'Other abnormalities',
};

export interface OwnCases {
  /** The folder to pick (holds `cases.csv` and `scans/`). */
  readonly dir: string;
  /** Case id → the class written in its row. */
  readonly classes: ReadonlyMap<string, string>;
}

/** `count` cases: `case_id, Question, Scan, Reference diagnosis, Modality`, one PNG each under scans/. */
export function ownCasesFolder(count = 5, seed = HELD_OUT_SEED): OwnCases {
  const dir = join(makeTempDir('own'), 'my-cases');
  const draft = buildDrawnDraft(seed, count);
  const rows = ['case_id,Question,Scan,Reference diagnosis,Modality'];
  const classes = new Map<string, string>();
  draft.cases.forEach((c, i) => {
    const id = `patient-${String(i + 1).padStart(2, '0')}`;
    const label = c.questions[0]!.reference!.labels!.diagnosis_name!;
    const file = `scans/${id}.png`;
    const bytes = draft.images.get(c.images[0]!.path)!;
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), bytes);
    rows.push(`${id},What is the diagnosis?,${file},${WRITTEN[label] ?? label},${c.questions[0]!.reference!.labels!.modality ?? ''}`);
    classes.set(id, WRITTEN[label] ?? label);
  });
  writeFileSync(join(dir, 'cases.csv'), `${rows.join('\n')}\n`);
  return { dir, classes };
}
