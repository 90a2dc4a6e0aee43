/**
 * The shared opening of conversations: what a run's requests have in common
 * before each case's own content (NeuroVLM-Bench's system prompt, the
 * few-shot exemplars with their images), so an engine can compute it once
 * and keep it (its key/value cache) for every request that starts with it.
 *
 * A prefix is counted in parts: every part of the turns before `turn`, then
 * the first `parts` parts of `turn`. The runner finds it by comparing the
 * requests part by part (text by its characters, images by identity); an
 * engine that cannot reuse it computes the whole prompt, and its answers are
 * the same either way.
 */
import type { Turn } from './turn.ts';

export interface PromptPrefix {
  /**
   * Identifies the shared parts (their text and which images): two requests
   * with the same key begin with exactly these parts.
   */
  readonly key: string;
  /** Turns shared whole. */
  readonly turn: number;
  /** Parts shared of turn `turn` (0: none of it). */
  readonly parts: number;
}

/** How many parts a prefix covers in all. */
export function prefixPartCount(messages: readonly Turn<unknown>[], prefix: Pick<PromptPrefix, 'turn' | 'parts'>): number {
  return messages.slice(0, prefix.turn).reduce((n, t) => n + t.parts.length, 0) + prefix.parts;
}

/** Whether `prefix` lies inside `messages` and leaves at least one part after it. */
export function prefixFits(messages: readonly Turn<unknown>[], prefix: Pick<PromptPrefix, 'turn' | 'parts'>): boolean {
  if (prefix.turn < 0 || prefix.parts < 0 || prefix.turn >= messages.length) return false;
  if (prefix.parts > messages[prefix.turn]!.parts.length) return false;
  const total = messages.reduce((n, t) => n + t.parts.length, 0);
  const covered = prefixPartCount(messages, prefix);
  return covered > 0 && covered < total;
}

/**
 * The shared parts followed by a marker text where the conversation goes on:
 * rendered through a chat template and tokenised, it agrees with every
 * request of the prefix up to the marker, so the number of tokens the two
 * share is the prefix's length in tokens (an engine's probe).
 */
export function prefixProbe<I>(messages: readonly Turn<I>[], prefix: Pick<PromptPrefix, 'turn' | 'parts'>, marker: string): Turn<I>[] {
  const whole = messages.slice(0, prefix.turn);
  const next = messages[prefix.turn];
  if (!next) return [...whole];
  return [...whole, { role: next.role, parts: [...next.parts.slice(0, prefix.parts), { type: 'text', text: marker }] }];
}

/** A part's identity for comparing requests: its text, or its image's identity. */
export type PartSignature = { readonly role: Turn<unknown>['role']; readonly text: string } | { readonly role: Turn<unknown>['role']; readonly image: string };

/** The conversation as a flat list of part signatures, with where each turn starts. */
export function signatures<I>(messages: readonly Turn<I>[], imageId: (image: I) => string): { parts: PartSignature[]; turnStarts: number[] } {
  const parts: PartSignature[] = [];
  const turnStarts: number[] = [];
  for (const t of messages) {
    turnStarts.push(parts.length);
    for (const p of t.parts) parts.push(p.type === 'text' ? { role: t.role, text: p.text } : { role: t.role, image: imageId(p.image) });
  }
  return { parts, turnStarts };
}

const same = (a: PartSignature, b: PartSignature) =>
  a.role === b.role && ('text' in a ? 'text' in b && a.text === b.text : 'image' in b && a.image === b.image);

/**
 * The longest run of leading parts all the conversations share, as a
 * prefix (without its key), or null when they share nothing or there is
 * only one. The prefix always leaves each conversation at least one part of
 * its own.
 */
export function sharedPrefix(conversations: readonly { parts: readonly PartSignature[]; turnStarts: readonly number[] }[]): { turn: number; parts: number; count: number } | null {
  if (conversations.length < 2) return null;
  let n = Math.min(...conversations.map((c) => c.parts.length - 1));
  const first = conversations[0]!;
  for (const c of conversations.slice(1)) {
    let i = 0;
    while (i < n && same(first.parts[i]!, c.parts[i]!)) i++;
    n = i;
  }
  if (n <= 0) return null;
  // The same n shared parts must end at the same place of the same turn in every conversation.
  const at = (c: { turnStarts: readonly number[] }) => {
    let turn = 0;
    while (turn + 1 < c.turnStarts.length && c.turnStarts[turn + 1]! <= n) turn++;
    return { turn, parts: n - c.turnStarts[turn]!, starts: c.turnStarts.slice(0, turn + 1).join(',') };
  };
  const here = at(first);
  if (!conversations.every((c) => { const o = at(c); return o.turn === here.turn && o.parts === here.parts && o.starts === here.starts; })) return null;
  return { turn: here.turn, parts: here.parts, count: n };
}
