/**
 * Which requests of a run share an opening, and how much of it: the
 * NeuroVLM-Bench system prompt (zero-shot), the system prompt and the
 * few-shot exemplars' turn with its images (few-shot), one group per
 * protocol in an `auto` run, none for an item alone or for a text-only
 * variant's images; and the probe an engine tokenises to find where the
 * shared part ends.
 */
import { describe, expect, it } from 'vitest';
import { prefixFits, prefixProbe, sharedPrefix, signatures } from '../../../../src/core/chat/prefix.ts';
import type { Turn } from '../../../../src/core/chat/turn.ts';
import { demoCases } from '../../../../src/core/demo/index.ts';
import { planRun } from '../../../../src/core/runner/plan.ts';
import { prefixGroups } from '../../../../src/core/runner/prefix-groups.ts';
import { runProtocol } from '../../../../src/core/runner/protocol-adapter.ts';
import type { Variant } from '../../../../src/core/runner/types.ts';

const SAMPLING = { temperature: 0, topP: 1, seed: 1, maxTokens: 8 };
const cases = demoCases().map((d) => d.case);
const byId = new Map(cases.map((c) => [c.id, c]));
const neurovlm = cases.filter((c) => c.taskFamily === 'classification').slice(0, 6);

function groups(protocolId: string, selected = neurovlm, variants: Variant[] = ['none'], fewShot = false) {
  const plan = planRun({ benchmarkId: 'demo', models: [{ id: 'm', filesHash: '' }, { id: 'n', filesHash: '' }], variants, sampling: SAMPLING }, selected);
  const protocol = runProtocol(protocolId, fewShot ? { fewShot: neurovlm.slice(0, 2) } : {});
  return { plan, prefixes: prefixGroups(plan.items, byId, protocol) };
}

describe('prefix groups', () => {
  it('gives every NeuroVLM-Bench item of a model the shared system turn (zero-shot), one key per model', () => {
    const { plan, prefixes } = groups('neurovlm-structured');
    expect(prefixes.size).toBe(plan.items.length);
    const keys = new Set(plan.items.map((i) => `${i.modelId} ${prefixes.get(i.itemKey)!.key}`));
    expect(keys.size).toBe(2);
    for (const p of prefixes.values()) expect(p).toMatchObject({ turn: 1, parts: 0 });
  });

  it('takes the few-shot exemplars\' turn, images and all, into the shared part', () => {
    const { prefixes } = groups('neurovlm-structured', neurovlm, ['none'], true);
    for (const p of prefixes.values()) expect(p).toMatchObject({ turn: 2, parts: 0 });
  });

  it('gives a model\'s variants, asked in turn, one shared part: up to where text-only requests leave the exemplars\' images out', () => {
    const { plan, prefixes } = groups('neurovlm-structured', neurovlm, ['none', 'text-only'], true);
    const all = plan.items.filter((i) => i.modelId === 'm').map((i) => prefixes.get(i.itemKey)!);
    expect(new Set(all.map((p) => p.key)).size).toBe(1);
    // The system turn, then the few-shot header and the first exemplar's label; its image is where they part.
    expect(all[0]).toMatchObject({ turn: 1, parts: 2 });
  });

  it('makes one group per protocol in an auto run, and none for an item alone', () => {
    const { plan, prefixes } = groups('auto', cases);
    const byProtocol = new Map<string, Set<string>>();
    for (const item of plan.items.filter((i) => i.modelId === 'm')) {
      const p = prefixes.get(item.itemKey);
      if (!p) continue;
      const family = byId.get(item.caseId)!.taskFamily ?? '';
      byProtocol.set(family, new Set([...(byProtocol.get(family) ?? []), p.key]));
    }
    expect(byProtocol.size).toBeGreaterThan(1);
    const one = groups('neurovlm-structured', neurovlm.slice(0, 1));
    expect(one.prefixes.size).toBe(0);
  });
});

describe('shared prefix of conversations', () => {
  const t = (role: Turn<string>['role'], ...parts: (string | { img: string })[]): Turn<string> => ({
    role,
    parts: parts.map((p) => (typeof p === 'string' ? { type: 'text', text: p } : { type: 'image', image: p.img })),
  });
  const sig = (turns: Turn<string>[]) => signatures(turns, (i) => i);

  it('counts shared parts across turns and stops at the first difference, an image by its identity', () => {
    const a = [t('system', 'S'), t('user', 'ex', { img: 'e1' }, { img: 'q1' }, 'ask')];
    const b = [t('system', 'S'), t('user', 'ex', { img: 'e1' }, { img: 'q2' }, 'ask')];
    expect(sharedPrefix([sig(a), sig(b)])).toEqual({ turn: 1, parts: 2, count: 3 });
    expect(sharedPrefix([sig(a), sig([t('system', 'T'), t('user', 'ex')])])).toBeNull();
    expect(sharedPrefix([sig(a)])).toBeNull();
    // Identical requests still leave one part of their own.
    expect(sharedPrefix([sig(a), sig(a)])!.count).toBe(4);
  });

  it('builds the probe: the shared parts, then the marker where the conversation goes on', () => {
    const a = [t('system', 'S'), t('user', 'ex', { img: 'e1' }, { img: 'q1' }, 'ask')];
    expect(prefixProbe(a, { turn: 1, parts: 2 }, '#')).toEqual([t('system', 'S'), t('user', 'ex', { img: 'e1' }, '#')]);
    expect(prefixProbe(a, { turn: 1, parts: 0 }, '#')).toEqual([t('system', 'S'), t('user', '#')]);
    expect(prefixFits(a, { turn: 1, parts: 2 })).toBe(true);
    expect(prefixFits(a, { turn: 1, parts: 4 })).toBe(false);
    expect(prefixFits(a, { turn: 3, parts: 0 })).toBe(false);
  });
});
