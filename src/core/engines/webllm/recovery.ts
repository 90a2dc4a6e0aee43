/**
 * What to offer after a GPU device loss (WebLLM's `DeviceLostError`, which
 * nearly always means the model ran out of GPU memory): a smaller model that
 * does the same job and fits this machine.
 */
import { willItFit, type Catalogue, type CatalogueEntry, type MachineFacts } from '../catalogue.ts';

/**
 * The smallest catalogue entry (by GPU memory, then download size) of the
 * same task as `entry` that needs less GPU memory than it and passes
 * {@link willItFit} on `facts`; `null` when there is none. Entries of any
 * runtime qualify (a transformers.js model can replace a WebLLM one). A model
 * that took images is only replaced by one that takes images. The bundled
 * models (the self-test ones with random weights, the demo-trained one that
 * only knows the demo's phantoms) are never offered.
 */
export function smallerAlternative(entry: CatalogueEntry, catalogue: Pick<Catalogue, 'models'>, facts: MachineFacts): CatalogueEntry | null {
  const candidates = catalogue.models.filter(
    (c) =>
      c.id !== entry.id &&
      c.task === entry.task &&
      !c.bundled &&
      (!entry.images || c.images) &&
      c.vramMB < entry.vramMB &&
      willItFit(c, facts).fits,
  );
  candidates.sort((a, b) => a.vramMB - b.vramMB || a.downloadBytes - b.downloadBytes || a.id.localeCompare(b.id));
  return candidates[0] ?? null;
}
