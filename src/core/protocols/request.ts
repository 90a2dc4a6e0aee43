/** Building blocks for `buildRequest`: image references, turns, and loading images for an engine. */
import type { BenchCase, Question } from '../bundle/types.ts';
import { imagesThenText, mapTurnImages, textTurn } from '../chat/turn.ts';
import type { ChatTurn, EngineImage } from '../engines/engine.ts';
import { questionVars, renderTemplate, templateInfo } from './template.ts';
import type { BuildContext, ImageRef, PromptTemplate, ProtocolId, ProtocolRequest, ProtocolTurn, TurnPart } from './types.ts';

/** A reference to image `index` of case `c`; undefined when the index is out of range. */
export function imageRef(c: BenchCase, index: number): ImageRef | undefined {
  const img = c.images[index];
  if (!img) return undefined;
  return {
    caseId: c.id,
    index,
    path: img.path,
    ...(img.sha256 ? { sha256: img.sha256 } : {}),
    ...(img.mime ? { mime: img.mime } : {}),
  };
}

/** References to the given image indices of `c` (all images, in case order, by default). Bad indices go to `warnings`. */
export function imageRefs(c: BenchCase, indices?: readonly number[], warnings?: string[]): ImageRef[] {
  const wanted = indices ?? c.images.map((_, i) => i);
  const refs: ImageRef[] = [];
  for (const i of wanted) {
    const ref = imageRef(c, i);
    if (ref) refs.push(ref);
    else warnings?.push(`Case ${c.id} has no image ${i} (it has ${c.images.length}); it was left out.`);
  }
  return refs;
}

/** The images actually sent: none in the text-only ablation. */
export function sentImages(refs: readonly ImageRef[], ctx: BuildContext | undefined): readonly ImageRef[] {
  return ctx?.textOnly ? [] : refs;
}

export function systemTurn(text: string | undefined): ProtocolTurn[] {
  return text ? [textTurn('system', text)] : [];
}

/** A user turn: the images first, in order, then the text. */
export function userTurn(text: string, images: readonly ImageRef[]): ProtocolTurn {
  return imagesThenText(images, text);
}

export function assistantTurn(text: string): ProtocolTurn {
  return textTurn('assistant', text);
}

/** A user turn from interleaved parts, kept in their order. */
export function partsTurn(parts: readonly TurnPart[]): ProtocolTurn {
  return { role: 'user', parts };
}

/** The template in use: the context's override, else the protocol's default. */
export function templateOf(defaults: readonly [PromptTemplate, ...PromptTemplate[]], ctx: BuildContext | undefined): PromptTemplate {
  return ctx?.template ?? defaults[0];
}

export function makeRequest(
  protocol: { readonly id: ProtocolId; readonly version: string },
  template: PromptTemplate,
  messages: readonly ProtocolTurn[],
  extra: { jsonSchema?: Readonly<Record<string, unknown>> | undefined; warnings?: readonly string[] } = {},
): ProtocolRequest {
  return {
    protocol: { id: protocol.id, version: protocol.version },
    template: templateInfo(template),
    messages,
    ...(extra.jsonSchema ? { jsonSchema: extra.jsonSchema } : {}),
    ...(extra.warnings?.length ? { warnings: [...extra.warnings] } : {}),
  };
}

/**
 * The common request shape: system prompt, then one user turn with the
 * question and all the case's images in case order (none in the text-only
 * ablation). `schema` goes into the request when `ctx.enforceSchema`
 * (default `enforceByDefault`) is on.
 */
export function singleTurnRequest(
  protocol: { readonly id: ProtocolId; readonly version: string; readonly templates: readonly [PromptTemplate, ...PromptTemplate[]] },
  c: BenchCase,
  q: Question,
  ctx: BuildContext | undefined,
  schema?: { readonly schema: Readonly<Record<string, unknown>>; readonly enforceByDefault: boolean },
): ProtocolRequest {
  const t = templateOf(protocol.templates, ctx);
  const warnings: string[] = [];
  const images = sentImages(imageRefs(c, undefined, warnings), ctx);
  const vars = questionVars(c, q, images.length);
  const messages = [...systemTurn(renderTemplate(t.system ?? '', vars)), userTurn(renderTemplate(t.user, vars), images)];
  const enforce = schema && (ctx?.enforceSchema ?? schema.enforceByDefault);
  return makeRequest(protocol, t, messages, { jsonSchema: enforce ? schema.schema : undefined, warnings });
}

/**
 * Loads the images of a request's turns for an engine, keeping their order.
 * `load` fetches the bytes of one referenced image (from the stored asset).
 */
export async function resolveTurns(turns: readonly ProtocolTurn[], load: (ref: ImageRef) => Promise<EngineImage>): Promise<ChatTurn[]> {
  const out: ChatTurn[] = [];
  for (const t of turns) out.push(await mapTurnImages(t, load));
  return out;
}
