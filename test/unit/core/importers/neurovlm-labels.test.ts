/**
 * NeuroVLM-Bench labels against the benchmark's label set: the real index
 * raises nothing, labels outside the set are warnings naming file, line and
 * field (the cases are still imported), and a spreadsheet formula is refused.
 */
import { describe, expect, it } from 'vitest';
import { prepareImport } from '../../../../src/core/importers/import-pipeline.ts';
import { memoryFile } from '../../../../src/core/bundle/importer.ts';
import { NeuroVlmLabelCheck } from '../../../../src/core/importers/neurovlm-labels.ts';
import { Issues } from '../../../../src/core/importers/support.ts';
import { formatLocation } from '../../../../src/core/errors.ts';
import { parseDelimited } from '../../../../src/core/text/delimited.ts';
import { nvbFormula, nvbOffLabels, type HostileInput } from '../../../support/hostile-archives.ts';
import { reference } from './fixtures.ts';

function lines(issues: readonly { message: string; location?: Parameters<typeof formatLocation>[0] }[]): string[] {
  return issues.map((i) => `${formatLocation(i.location)}: ${i.message}`);
}

function files(input: HostileInput) {
  return [...input.files].map(([path, bytes]) => memoryFile(path, bytes));
}

describe('NeuroVLM-Bench label set', () => {
  it('finds nothing to report in the benchmark’s own 29,504-row index', () => {
    const table = parseDelimited(new TextDecoder().decode(reference('image_mapping.csv')), ',', 'image_mapping.csv');
    const check = new NeuroVlmLabelCheck();
    for (const row of table.rows) check.row('image_mapping.csv', row);
    const issues = new Issues();
    check.report(issues);
    expect(issues.list).toEqual([]);
  });

  it('warns about a plane and a subtype outside the set, with file, line and field, and still imports the cases', async () => {
    const p = await prepareImport(files(nvbOffLabels()));
    expect(p.ok).toBe(true);
    expect(p.summary?.cases).toBe(3);
    expect(lines(p.warnings)).toEqual([
      'nvb-off-labels/subset_hostile.csv:3, field "plane": plane "diagonal" is not one of NeuroVLM-Bench\'s planes (axial, sagittal, coronal); the case is imported, but the benchmark\'s prompt never offers this answer.',
      'nvb-off-labels/subset_hostile.csv:4, field "subclass": subclass "glioma" is not one of NeuroVLM-Bench\'s subtypes of "stroke" (ischemic, hemorrhagic); the case is imported, but the benchmark\'s prompt never offers this answer.',
    ]);
  });

  it('refuses an index with a spreadsheet formula as a label', async () => {
    const p = await prepareImport(files(nvbFormula()));
    expect(p.ok).toBe(false);
    expect(p.bundle).toBeNull();
    expect(lines(p.errors)).toEqual([
      'nvb-formula/subset_hostile.csv:3, field "class": class "=HYPERLINK("x")" looks like a spreadsheet formula, not a NeuroVLM-Bench label; the index was altered, so it is refused.',
    ]);
  });

  it('reports a value once, with how many rows have it', () => {
    const csv = ['file_path,class,plane', ...Array.from({ length: 4 }, (_, i) => `img/${i}.png,normal,oblique`), 'img/x.png,Tumour,axial'].join('\n');
    const check = new NeuroVlmLabelCheck();
    for (const row of parseDelimited(csv, ',', 'index.csv').rows) check.row('index.csv', row);
    const issues = new Issues();
    check.report(issues);
    expect(lines(issues.list)).toEqual([
      'index.csv:2, field "plane": plane "oblique" is not one of NeuroVLM-Bench\'s planes (axial, sagittal, coronal); the case is imported, but the benchmark\'s prompt never offers this answer (4 rows with this value; the first is shown).',
      'index.csv:6, field "class": class "Tumour" is not one of NeuroVLM-Bench\'s classes (stroke, tumor, multiple sclerosis, other abnormalities, normal); the case is imported, but the benchmark\'s prompt never offers this answer.',
    ]);
  });
});
