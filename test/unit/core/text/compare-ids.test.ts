import { describe, expect, it } from 'vitest';
import { compareIds, sortById } from '../../../../src/core/text/compare-ids.ts';

describe('compareIds', () => {
  it('lists numbered ids as a person counts them', () => {
    const ids = ['case_10', 'case_1', 'case_11', 'case_2', 'case_100', 'case_9'];
    expect([...ids].sort(compareIds)).toEqual(['case_1', 'case_2', 'case_9', 'case_10', 'case_11', 'case_100']);
  });

  it('orders ids with several numbers by each in turn', () => {
    expect(['s2-q10', 's10-q1', 's2-q9'].sort(compareIds)).toEqual(['s2-q9', 's2-q10', 's10-q1']);
  });

  it('is a total order: ids that read the same as numbers still differ', () => {
    expect(compareIds('a01', 'a1')).not.toBe(0);
    expect(Math.sign(compareIds('a01', 'a1'))).toBe(-Math.sign(compareIds('a1', 'a01')));
    expect(compareIds('x', 'x')).toBe(0);
  });

  it('sorts records by their id without changing the input', () => {
    const rows = [{ id: 'n12' }, { id: 'n3' }];
    expect(sortById(rows, (r) => r.id).map((r) => r.id)).toEqual(['n3', 'n12']);
    expect(rows[0]!.id).toBe('n12');
  });
});
