/**
 * What people read for a model id: the catalogue's display name, and whether
 * its weights are random (the bundled self-test models), which makes every
 * figure it produces meaningless as medical performance.
 */
import { CATALOGUE } from '../engines/catalogue.ts';
import { variantLabel } from '../runner/variants.ts';

const BY_ID = new Map(CATALOGUE.models.map((m) => [m.id, m]));

/** The catalogue's name for a model id; a reader's id is "Reader <pseudonym>"; an id the catalogue does not list (imported, endpoint) is its own name. */
export function modelDisplayName(id: string): string {
  return BY_ID.get(id)?.label ?? (id.startsWith('reader:') ? `Reader ${id.slice('reader:'.length)}` : id);
}

/**
 * A leaderboard row's model as people read it: the name its run recorded
 * (`modelName`) or the catalogue's, and under a variant the variant in words
 * in brackets ("[noise, level 2 of 3]").
 */
export function rowModelName(row: { readonly modelId: string; readonly variant: string; readonly modelName?: string }): string {
  return `${row.modelName ?? modelDisplayName(row.modelId)}${row.variant && row.variant !== 'none' ? ` [${variantLabel(row.variant)}]` : ''}`;
}

/**
 * The name of the leaderboard row `key` for tables and charts beside the
 * leaderboard (safety view, failure gallery): {@link rowModelName}, with the
 * run's name where two rows would read alike; the key itself when no row has it.
 */
export function rowLabel(rows: readonly { readonly id: string; readonly modelId: string; readonly variant: string; readonly runName: string; readonly modelName?: string }[], key: string): string {
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

/** Each model's name as its run recorded it (provenance `label`), else the catalogue's: for leaderboard rows (`ScoredRun.run.modelNames`). */
export function modelNamesOf(provenance: { readonly models: readonly { readonly id: string; readonly label?: string }[] }): Record<string, string> {
  return Object.fromEntries(provenance.models.map((m) => [m.id, m.label ?? modelDisplayName(m.id)]));
}
