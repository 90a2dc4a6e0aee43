/**
 * Checks what a user typed as the on-prem mirror before it is saved, so a
 * wrong address is explained beside the field instead of failing later.
 */
import { DEFAULT_MODEL_HOST } from '../../core/engines/catalogue.ts';

/** Why `text` cannot be the mirror, or null when it can (an empty text clears it). */
export function mirrorProblem(text: string): string | null {
  if (!text) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `"${text}" is not a web address: give the mirror's base URL, e.g. https://models.hospital.local/hf/.`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `The mirror must be an http(s) address, not ${url.protocol}.`;
  const publicHost = new URL(DEFAULT_MODEL_HOST).hostname;
  if (url.hostname === publicHost || url.hostname.endsWith(`.${publicHost}`)) {
    return `${url.hostname} is the models' public host, not an on-prem mirror (it has no manifest.json per model). To download from it, use "From its host…" in the model's catalogue row.`;
  }
  return null;
}
