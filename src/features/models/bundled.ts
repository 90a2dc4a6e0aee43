/**
 * The VLMs shipped inside the app (public/models/<id>/): the self-test model
 * (random weights, a wiring check) and the demo-trained model (learned the
 * demo's synthetic phantoms; not a medical model). Both load offline from
 * the app's own origin and appear wherever a run can pick a model.
 */
import { CATALOGUE, type CatalogueEntry } from '../../core/engines/catalogue.ts';

/** Bundled image-text-to-text models, in catalogue order (the self-test model first). */
export const BUNDLED_VLMS: readonly CatalogueEntry[] = CATALOGUE.models.filter((m) => m.bundled && m.task === 'image-text-to-text');

export function isBundled(id: string): boolean {
  return BUNDLED_VLMS.some((m) => m.id === id);
}

/** The folder URL a bundled model loads from. */
export function bundledLocation(id: string): string {
  return new URL(`models/${id}/`, document.baseURI).href;
}

/** The file hashes of a bundled model, from its shipped manifest.json (the identity of its weights). */
export async function bundledFiles(id: string): Promise<{ name: string; sha256: string }[]> {
  try {
    const res = await fetch(new URL('manifest.json', bundledLocation(id)));
    const m = (await res.json()) as { files: { path: string; sha256: string }[] };
    return m.files.map((f) => ({ name: f.path, sha256: f.sha256 }));
  } catch {
    return [{ name: 'bundled', sha256: '' }];
  }
}
