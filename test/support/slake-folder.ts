/**
 * A folder as a user gets SLAKE onto a machine: `test.json` (a JSON array in
 * the dataset's published layout) beside `imgs.zip`, written to a temporary
 * folder (removeTempDirs deletes it) from test/support/hf-datasets.ts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { slakeFiles, type SlakeItem } from './hf-datasets.ts';
import { makeTempDir } from './temp-dir.ts';

export const SLAKE_ITEMS: readonly SlakeItem[] = [
  { qid: 101, question: 'Which organ is shown?', answer: 'Brain', answerType: 'OPEN' },
  { qid: 102, question: 'Is this an MRI?', answer: 'Yes', answerType: 'CLOSED' },
  { qid: 103, question: 'Where is the lesion?', answer: 'Left Frontal Lobe', answerType: 'OPEN' },
  { qid: 104, question: 'Is the brain healthy?', answer: 'No', answerType: 'CLOSED' },
  { qid: 105, question: 'Which plane is this?', answer: 'Axial', answerType: 'OPEN' },
];

export async function slakeFolder(): Promise<string> {
  const dir = join(makeTempDir('slake'), 'SLAKE');
  mkdirSync(dir, { recursive: true });
  for (const f of slakeFiles(SLAKE_ITEMS)) writeFileSync(join(dir, f.path), await f.bytes());
  return dir;
}
