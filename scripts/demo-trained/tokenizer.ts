/**
 * The demo-trained model's tokenizer: the self-test model's byte-level BPE
 * (same special tokens, same byte symbols, same chat template) with merges
 * learned from the texts the model reads and writes: the NeuroVLM-Bench
 * prompt and the JSON answers. The byte-level pre-tokenizer does not split
 * on words (`use_regex: false`), so merges may span words and the long fixed
 * prompt becomes a short run of tokens: the model then trains and answers
 * fast on a CPU. Digits stay single tokens (the `Digits` pre-tokenizer), so
 * a confidence like 0.93 is always the tokens 0 . 9 3.
 */
import { LEADING_SPECIAL_TOKENS, TRAILING_SPECIAL_TOKENS, bpeTokenizerJson, byteSymbols, type Vocabulary } from '../self-test-model/tokenizer.ts';

const SPECIAL = [...LEADING_SPECIAL_TOKENS, ...TRAILING_SPECIAL_TOKENS];

const SYMBOLS = byteSymbols();
const utf8 = new TextEncoder();

/** The pieces the pre-tokenizer hands to BPE: text between special tokens, split around every digit. */
export function preTokenize(text: string): string[] {
  const specials = new RegExp(SPECIAL.map((t) => t.replace(/[|[\]<>\\^$.*+?(){}-]/g, '\\$&')).join('|'), 'g');
  const out: string[] = [];
  for (const chunk of text.split(specials)) {
    for (const piece of chunk.split(/(\d)/)) if (piece) out.push([...utf8.encode(piece)].map((b) => SYMBOLS[b]).join(''));
  }
  return out;
}

export interface TrainedTokenizer {
  readonly vocab: Vocabulary;
  readonly merges: readonly (readonly [string, string])[];
}

/**
 * Learns up to `maxMerges` merges from `corpus` (text → weight), most
 * frequent pair first, ties broken by the pair's text, so the result is the
 * same on every machine.
 */
export function trainTokenizer(corpus: ReadonlyMap<string, number>, maxMerges: number): TrainedTokenizer {
  const words = new Map<string, number>();
  for (const [text, weight] of corpus) for (const w of preTokenize(text)) words.set(w, (words.get(w) ?? 0) + weight);
  const seqs = [...words].map(([w, n]) => ({ syms: [...w], n }));
  const merges: [string, string][] = [];
  for (let m = 0; m < maxMerges; m++) {
    const counts = new Map<string, number>();
    for (const { syms, n } of seqs) for (let i = 0; i + 1 < syms.length; i++) {
      const key = `${syms[i]}\u0000${syms[i + 1]}`;
      counts.set(key, (counts.get(key) ?? 0) + n);
    }
    let best: string | null = null;
    let bestN = 1;
    for (const [key, n] of counts) if (n > bestN || (n === bestN && best !== null && key < best)) [best, bestN] = [key, n];
    if (best === null) break;
    const [a, b] = best.split('\u0000') as [string, string];
    merges.push([a, b]);
    for (const s of seqs) {
      const next: string[] = [];
      for (let i = 0; i < s.syms.length; i++) {
        if (i + 1 < s.syms.length && s.syms[i] === a && s.syms[i + 1] === b) {
          next.push(a + b);
          i++;
        } else next.push(s.syms[i]!);
      }
      s.syms = next;
    }
  }
  const ids = new Map<string, number>();
  const add = (t: string) => {
    if (!ids.has(t)) ids.set(t, ids.size);
  };
  LEADING_SPECIAL_TOKENS.forEach(add);
  SYMBOLS.forEach(add);
  for (const [a, b] of merges) add(a + b);
  TRAILING_SPECIAL_TOKENS.forEach(add);
  return { vocab: { ids, size: ids.size, byteIds: SYMBOLS.map((s) => ids.get(s)!) }, merges };
}

/** tokenizer.json in the `tokenizers` library format transformers.js reads: no word split, so merges span words. */
export function trainedTokenizerJson(t: TrainedTokenizer): unknown {
  return bpeTokenizerJson(t.vocab.ids, t.merges, SPECIAL, { useRegex: false, addPrefixSpace: false });
}
