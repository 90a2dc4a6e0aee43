/**
 * Criteria are locked with the run: their hash is in the provenance the run
 * was created with, and a later edit is stored as a deviation that keeps the
 * pre-registered set and the reason, never in its place.
 */
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import { criteriaSha256 } from '../../../../src/core/criteria/criteria.ts';
import type { CriteriaSet } from '../../../../src/core/model/criteria.ts';
import { createRepositories, openDatabase, type NeuroEvalDB } from '../../../../src/core/db/index.ts';
import { testProvenance, testRun, testRunConfig } from '../../../support/run-record.ts';

const PRE: CriteriaSet = { version: 1, criteria: [{ id: 'c1', metric: 'neurovlm.diagnosis_name', statistic: 'lower', comparator: '>=', threshold: 0.7, subgroup: 'diseaseGroup' }] };
const LOWER: CriteriaSet = { version: 1, criteria: [{ ...PRE.criteria[0]!, threshold: 0.6 }] };

const opened: NeuroEvalDB[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});
let counter = 0;

describe('criteria locked with a run', () => {
  it('puts the pre-registered set\'s hash in the provenance', () => {
    const p = testProvenance({ criteria: PRE });
    expect(p.criteria).toEqual({ sha256: criteriaSha256(PRE), count: 1 });
    expect(testProvenance().criteria).toBeUndefined();
  });

  it('keeps an edit as a deviation with the set it replaced and the reason, and refuses an edit without a reason', async () => {
    const db = await openDatabase({ name: `criteria-${Date.now()}-${++counter}`, indexedDB, IDBKeyRange });
    opened.push(db);
    const repos = createRepositories(db);
    await repos.runs.put(testRun({ config: testRunConfig('b', { criteria: PRE }), provenance: testProvenance({ criteria: PRE }) }));
    await expect(repos.runs.reviseCriteria('r1', LOWER, '  ')).rejects.toMatchObject({ location: { field: 'reason' } });
    const revised = await repos.runs.reviseCriteria('r1', LOWER, 'The committee lowered the bar after the pilot site changed.');
    expect(revised.config?.criteria).toEqual(LOWER);
    expect(revised.provenance.criteria?.sha256).toBe(criteriaSha256(PRE));
    expect(revised.criteriaDeviations).toEqual([
      { at: expect.any(Number), fromSha256: criteriaSha256(PRE), toSha256: criteriaSha256(LOWER), reason: 'The committee lowered the bar after the pilot site changed.', previous: PRE },
    ]);
    // Criteria set only after the run: a deviation from none.
    await repos.runs.put(testRun({ id: 'r2', config: testRunConfig('b') }));
    const late = await repos.runs.reviseCriteria('r2', PRE, 'Not set before the run.');
    expect(late.criteriaDeviations?.[0]).toMatchObject({ fromSha256: '', previous: { version: 1, criteria: [] } });
  });
});
