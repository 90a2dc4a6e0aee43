/**
 * The one chat-turn type, from the protocol that writes a prompt to the
 * engine that sends it. A turn is an ordered list of parts, text and images
 * interleaved exactly as the benchmark sends them (NeuroVLM-Bench few-shot:
 * "Example 1 — class: …", its image, "Example 2 …", its image, the query).
 *
 * The image type is a parameter: protocols write {@link Turn} with image
 * references (which case image), the runner resolves them to bytes, and
 * engines receive `Turn<EngineImage>` and map the parts onto their runtime's
 * message format (a chat template's image tokens, `image_url` content parts).
 * Nothing between the protocol and the engine joins the text or moves the
 * images.
 */

export type Role = 'system' | 'user' | 'assistant';

export interface TextPart {
  readonly type: 'text';
  readonly text: string;
}

export interface ImagePart<I> {
  readonly type: 'image';
  readonly image: I;
}

export type Part<I> = TextPart | ImagePart<I>;

export interface Turn<I> {
  readonly role: Role;
  /** In the order the model must read them. */
  readonly parts: readonly Part<I>[];
}

/** A turn of text only. */
export function textTurn<I = never>(role: Role, text: string): Turn<I> {
  return { role, parts: [{ type: 'text', text }] };
}

/**
 * A user turn with its images first, then its text: the order of the
 * benchmarks' harnesses for one-image questions (and SmolVLM's convention).
 */
export function imagesThenText<I>(images: readonly I[], text: string): Turn<I> {
  return { role: 'user', parts: [...images.map((image): Part<I> => ({ type: 'image', image })), { type: 'text', text }] };
}

/** The turn's text parts joined by newlines (for display, judges and hashes of text-only turns). */
export function turnText(turn: Turn<unknown>): string {
  return turn.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
}

/** The turn's images, in order. */
export function turnImages<I>(turn: Turn<I>): I[] {
  return turn.parts.flatMap((p) => (p.type === 'image' ? [p.image] : []));
}

/** Whether any turn carries an image. */
export function hasImages(turns: readonly Turn<unknown>[]): boolean {
  return turns.some((t) => t.parts.some((p) => p.type === 'image'));
}

/** The same turn with every image replaced (in order) by `f(image)`. */
export async function mapTurnImages<I, J>(turn: Turn<I>, f: (image: I, index: number) => Promise<J> | J): Promise<Turn<J>> {
  const parts: Part<J>[] = [];
  let index = 0;
  for (const p of turn.parts) parts.push(p.type === 'text' ? p : { type: 'image', image: await f(p.image, index++) });
  return { role: turn.role, parts };
}

/** The same turn without its images (the text-only ablation); empty text parts are dropped. */
export function withoutImages<I>(turn: Turn<I>): Turn<never> {
  return { role: turn.role, parts: turn.parts.filter((p): p is TextPart => p.type === 'text') };
}
