/**
 * A hospital team's own benchmark from the import form, without code: a CSV
 * with a column mapping and a declared task (answer type, prompt, numeric
 * tolerance). The task is stored in the benchmark's manifest after the
 * checks a bundle's gets; a task it cannot follow is refused with the field;
 * what the import says about scoring follows the declared answer type.
 */
import { describe, expect, it } from 'vitest';
import { memoryFile } from '../../../../src/core/bundle/importer.ts';
import { finalizeBundle } from '../../../../src/core/bundle/finalize.ts';
import { genericImporter } from '../../../../src/core/importers/generic.ts';
import { DATASET_PRESETS } from '../../../../src/core/importers/presets/index.ts';
import { validateTaskDeclaration } from '../../../../src/core/bundle/validate.ts';
import { protocolFor } from '../../../../src/core/protocols/registry.ts';
import { errors, warnings } from './fixtures.ts';

const csv = 'id,question,volume\nv1,Volume of the lesion?,12.0\nv2,Volume of the lesion?,40\n';
const mapping = { id: 'id', question: 'question', numericAnswer: 'volume' };
const task = { answerType: 'numeric', prompt: { user: '{{question}}\nAnswer in mL.' }, scorer: { tolerance: { absolute: 0.5 } } };

describe('a task declared at import', () => {
  it('is stored in the manifest, and the cases are asked under its answer type', async () => {
    const draft = await genericImporter.read([memoryFile('volumes.csv', csv)], { options: { mapping, task } });
    expect(errors(draft)).toEqual([]);
    expect(draft.manifest.protocolDefaults).toEqual({ task });
    const { bundle } = finalizeBundle(draft);
    expect(bundle!.manifest.protocolDefaults?.task).toEqual(task);
    expect(bundle!.cases.map((c) => protocolFor(c, bundle!.manifest.protocolDefaults).id)).toEqual(['numeric', 'numeric']);
  });

  it('is refused with the field it cannot follow, and nothing is imported with it', async () => {
    const draft = await genericImporter.read([memoryFile('volumes.csv', csv)], { options: { mapping, task: { answerType: 'numeric', prompt: { user: 'Answer in mL.' } } } });
    expect(errors(draft)).toEqual([{ severity: 'error', message: "The prompt must hold {{question}}, where each case's question goes.", location: { file: 'volumes.csv', field: 'task.prompt.user' } }]);
    expect(draft.manifest.protocolDefaults).toBeUndefined();
  });

  it('says when the declared answer type finds nothing to score against', async () => {
    // Declared short answers, but the answer column is mapped as a number: the short-answer protocol has no reference.
    const draft = await genericImporter.read([memoryFile('volumes.csv', csv)], { options: { mapping, task: { answerType: 'short' } } });
    const said = warnings(draft).map((w) => w.message).join('\n');
    expect(said).toContain('the task declares short answers');
    expect(said).toMatch(/will get no score/);
  });

  it('writes every dataset preset in the same form', () => {
    for (const p of DATASET_PRESETS) expect([p.id, validateTaskDeclaration(p.task, p.id)]).toEqual([p.id, []]);
  });
});
