/**
 * The shared openings of a run's requests: items of one model whose
 * requests begin the same way (the same system prompt, the same few-shot
 * exemplars with the same images) form a group, and each item's request
 * names the parts its whole group shares (`GenerateRequest.prefix`), so an
 * engine computes them once for the group (chat/prefix.ts).
 *
 * Groups are keyed by model and the request's first part, so runs mixing
 * protocols (`auto`) get one group per protocol; within a group the shared
 * prefix is the longest every member has. One pass over the items keeps
 * only each group's first request and how far the others agree with it.
 */
import type { BenchCase } from '../bundle/types.ts';
import { canonicalJson } from '../bundle/canonical.ts';
import { sharedPrefix, signatures, type PartSignature, type PromptPrefix } from '../chat/prefix.ts';
import { withoutImages } from '../chat/turn.ts';
import { sha256Hex } from '../hash/sha256.ts';
import type { ImageRef } from '../protocols/types.ts';
import type { PlannedItem, RunProtocol } from './types.ts';

interface Group {
  readonly first: { parts: PartSignature[]; turnStarts: number[] };
  shared: number;
  members: number;
}

/** Which image an image part shows after the item's variant: its content hash (or bundle path) and the variant. */
const imageIdentity = (variant: string) => (ref: ImageRef) => `${ref.sha256 ?? `${ref.caseId}/${ref.path}`}@${variant}`;

/**
 * The prefix each item's request shares with its group, by item key; items
 * alone in their group, or sharing nothing, are left out. A protocol that
 * fails to build an item's request leaves that item out (the runner reports
 * the failure when it asks it).
 */
export function prefixGroups(items: readonly PlannedItem[], cases: ReadonlyMap<string, BenchCase>, protocol: RunProtocol): Map<string, PromptPrefix> {
  const groups = new Map<string, Group>();
  const groupOf = new Map<string, string>();
  for (const item of items) {
    const turns = openingTurns(item, cases, protocol);
    if (!turns) continue;
    const sig = signatures(turns, imageIdentity(item.variant));
    const head = sig.parts[0];
    if (!head) continue;
    const id = `${item.modelId}\u0000${canonicalJson(head)}`;
    groupOf.set(item.itemKey, id);
    const g = groups.get(id);
    if (!g) {
      groups.set(id, { first: sig, shared: sig.parts.length - 1, members: 1 });
      continue;
    }
    g.members++;
    g.shared = Math.min(g.shared, sharedPrefix([g.first, sig])?.count ?? 0);
  }
  const prefixes = new Map<string, PromptPrefix>();
  const byGroup = new Map<string, PromptPrefix | null>();
  for (const [id, g] of groups) {
    if (g.members < 2 || g.shared <= 0) {
      byGroup.set(id, null);
      continue;
    }
    const parts = g.first.parts.slice(0, g.shared);
    const turnStarts = g.first.turnStarts;
    let turn = 0;
    while (turn + 1 < turnStarts.length && turnStarts[turn + 1]! <= g.shared) turn++;
    byGroup.set(id, { key: sha256Hex(canonicalJson(parts)), turn, parts: g.shared - turnStarts[turn]! });
  }
  for (const [itemKey, id] of groupOf) {
    const p = byGroup.get(id);
    if (p) prefixes.set(itemKey, p);
  }
  return prefixes;
}

/** The item's opening turns as the protocol writes them (images as references), text-only variants without images. */
function openingTurns(item: PlannedItem, cases: ReadonlyMap<string, BenchCase>, protocol: RunProtocol) {
  const kase = cases.get(item.caseId);
  const question = kase?.questions.find((q) => q.id === item.questionId);
  if (!kase || !question) return null;
  try {
    const turns = protocol.buildRequest(kase, question, { modelId: item.modelId, variant: item.variant, sample: item.sample });
    return item.variant === 'text-only' ? turns.map(withoutImages) : turns;
  } catch {
    return null;
  }
}
