/** Weight formats in words, for pages, provenance and the smoke test (no catalogue needed). */

const PART_WORDS: Record<string, string> = { decoder_model_merged: 'decoder', model: 'model', vision_encoder: 'vision encoder', embed_tokens: 'embeddings', audio_encoder: 'audio encoder' };

/** "q8 decoder; fp32 vision encoder and embeddings": each format with the parts loaded in it. */
export function describeDtypes(dtype: Readonly<Record<string, string>>): string {
  const byFormat = new Map<string, string[]>();
  for (const [part, format] of Object.entries(dtype)) byFormat.set(format, [...(byFormat.get(format) ?? []), PART_WORDS[part] ?? part]);
  const list = (xs: string[]) => (xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`);
  return [...byFormat].map(([format, parts]) => `${format} ${list(parts)}`).join('; ');
}

/** A session's name in words: `decoder_model_merged` → "decoder". */
export function partWord(part: string): string {
  return PART_WORDS[part] ?? part;
}
