/**
 * Writing acceptance criteria in the new-run form (or the criteria editor on
 * a run's page), as a user does: one row per criterion, each field left at
 * the form's default unless given. Shared by the criteria browser test and
 * the committee screenshots.
 */
import type { Locator } from '@playwright/test';

export interface CriterionInput {
  /** A metric key (`json_valid`, `safety.false_finding`, …); default: the form's (class accuracy). */
  readonly metric?: string;
  readonly statistic?: 'lower' | 'mean' | 'upper';
  readonly comparator?: '>=' | '<=';
  /** As typed: a percentage for 0/1 metrics. */
  readonly threshold: number;
  /** `all` or a breakdown dimension; default: the form's (every disease group). */
  readonly subgroup?: string;
}

/** Adds one row per criterion to the criteria editor inside `container` (it holds one) and fills it; returns every row. */
export async function writeCriteria(container: Locator, criteria: readonly CriterionInput[]): Promise<Locator> {
  const rows = container.getByTestId('criterion-row');
  const first = await rows.count();
  for (const c of criteria) {
    await container.getByTestId('add-criterion').click();
    const row = rows.nth(first + criteria.indexOf(c));
    // The metric first: it decides which subgroups the row offers.
    if (c.metric) await row.locator('select[name="criterion-metric"]').selectOption(c.metric);
    if (c.subgroup) await row.locator('select[name="criterion-subgroup"]').selectOption(c.subgroup);
    if (c.statistic) await row.locator('select[name="criterion-statistic"]').selectOption(c.statistic);
    if (c.comparator) await row.locator('select[name="criterion-comparator"]').selectOption(c.comparator);
    await row.locator('input[name="criterion-threshold"]').fill(String(c.threshold));
  }
  return rows;
}
