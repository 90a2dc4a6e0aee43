/**
 * What people read for a model id: the catalogue's display name, and whether
 * its weights are random (the bundled self-test models), which makes every
 * figure it produces meaningless as medical performance.
 */
import { CATALOGUE } from '../engines/catalogue.ts';

const BY_ID = new Map(CATALOGUE.models.map((m) => [m.id, m]));

/** The catalogue's name for a model id; an id the catalogue does not list (imported, endpoint) is its own name. */
export function modelDisplayName(id: string): string {
  return BY_ID.get(id)?.label ?? id;
}

/** A leaderboard row's model as people read it: its display name and, under a variant, the variant in brackets. */
export function rowModelName(row: { readonly modelId: string; readonly variant: string }): string {
  return `${modelDisplayName(row.modelId)}${row.variant && row.variant !== 'none' ? ` [${row.variant}]` : ''}`;
}

/**
 * The name of the leaderboard row `key` for tables and charts beside the
 * leaderboard (safety view, failure gallery): {@link rowModelName}, with the
 * run's name where two rows would read alike; the key itself when no row has it.
 */
export function rowLabel(rows: readonly { readonly id: string; readonly modelId: string; readonly variant: string; readonly runName: string }[], key: string): string {
  const row = rows.find((r) => r.id === key);
  if (!row) return key;
  const twin = rows.some((r) => r !== row && r.modelId === row.modelId && r.variant === row.variant);
  return `${rowModelName(row)}${twin ? ` · ${row.runName}` : ''}`;
}

/** True for the bundled self-test models, whose weights are random numbers. */
export function hasRandomWeights(id: string): boolean {
  return BY_ID.get(id)?.selfTest === true;
}

/** The caveat every figure of a random-weight model carries, naming the models. */
export function randomWeightsCaveat(ids: readonly string[]): string {
  const names = ids.map(modelDisplayName).join(', ');
  const one = ids.length === 1;
  return `${names}: ${one ? 'its' : 'their'} weights are random numbers, so ${one ? 'its' : 'their'} figures are meaningless as medical performance. ${one ? 'It only checks' : 'They only check'} that loading, prompting and scoring work on this machine.`;
}
