/**
 * The self-test model's tokenizer: a GPT-2 style byte-level BPE (the kind
 * SmolVLM uses) with all 256 byte symbols, a few English merges and the
 * Idefics3 image tokens. Written as tokenizer.json / tokenizer_config.json in
 * the Hugging Face format that transformers.js reads.
 */

/** Special tokens, in id order. Ids 0-2 match SmolLM2's; the image tokens follow the byte vocabulary, as in SmolVLM. */
export const LEADING_SPECIAL_TOKENS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'] as const;
/** Largest image split (rows × columns) the processor can produce: size.longest_edge / max_image_size.longest_edge. */
export const MAX_SPLITS = 2;
export const TRAILING_SPECIAL_TOKENS = [
  '<fake_token_around_image>',
  '<image>',
  '<end_of_utterance>',
  '<global-img>',
  ...Array.from({ length: MAX_SPLITS * MAX_SPLITS }, (_, i) => `<row_${Math.floor(i / MAX_SPLITS) + 1}_col_${(i % MAX_SPLITS) + 1}>`),
] as const;

/** Byte-level BPE merges (left, right), most frequent first; each result becomes a vocabulary entry. */
const MERGES: readonly (readonly [string, string])[] = [
  ['Ġ', 't'], ['h', 'e'], ['i', 'n'], ['Ġ', 'a'], ['e', 'r'], ['o', 'n'], ['Ġt', 'he'], ['r', 'e'],
  ['a', 't'], ['e', 'n'], ['o', 'r'], ['Ġ', 's'], ['Ġ', 'w'], ['Ġ', 'o'], ['i', 's'], ['e', 's'],
  ['Ġ', 'c'], ['a', 'n'], ['Ġ', 'i'], ['Ġ', 'b'], ['i', 't'], ['Ġ', 'm'], ['Ġ', 'p'], ['a', 'l'],
];

/**
 * GPT-2's byte-to-symbol table: printable bytes map to themselves, the rest to
 * code points from U+0100 up, so every byte is one visible symbol.
 */
export function byteSymbols(): string[] {
  const printable: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) printable.push(b);
  for (let b = 0xa1; b <= 0xac; b++) printable.push(b);
  for (let b = 0xae; b <= 0xff; b++) printable.push(b);
  const symbols = new Array<string>(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    symbols[b] = printable.includes(b) ? String.fromCharCode(b) : String.fromCharCode(256 + extra++);
  }
  return symbols;
}

export interface Vocabulary {
  /** token → id for every token, special ones included. */
  readonly ids: ReadonlyMap<string, number>;
  readonly size: number;
  /** ids of the byte symbols, by byte value. */
  readonly byteIds: readonly number[];
}

/** The VLM's vocabulary; `trailing` replaces the image tokens (the text model has none). */
export function buildVocabulary(trailing: readonly string[] = TRAILING_SPECIAL_TOKENS): Vocabulary {
  const ids = new Map<string, number>();
  const add = (token: string) => {
    if (ids.has(token)) throw new Error(`duplicate token ${token}`);
    ids.set(token, ids.size);
  };
  LEADING_SPECIAL_TOKENS.forEach(add);
  const symbols = byteSymbols();
  symbols.forEach(add);
  for (const [a, b] of MERGES) add(a + b);
  trailing.forEach(add);
  return { ids, size: ids.size, byteIds: symbols.map((s) => ids.get(s)!) };
}

/** One `added_tokens` entry of tokenizer.json for a special token, as the `tokenizers` library writes it. */
export function addedSpecialToken(id: number, content: string): Record<string, unknown> {
  return { id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true };
}

export function tokenId(vocab: Vocabulary, token: string): number {
  const id = vocab.ids.get(token);
  if (id === undefined) throw new Error(`token ${token} is not in the vocabulary`);
  return id;
}

/** The byte-level pre-tokenizer, post-processor and decoder settings of a BPE tokenizer.json. */
export interface ByteLevelOptions {
  /** Split on GPT-2's word pattern before merging (false: merges may span words). */
  readonly useRegex: boolean;
  readonly addPrefixSpace: boolean;
}

/** tokenizer.json in the `tokenizers` library format: byte-level BPE with the given vocabulary, merges and special tokens. */
export function bpeTokenizerJson(ids: ReadonlyMap<string, number>, merges: readonly (readonly [string, string])[], special: readonly string[], o: ByteLevelOptions): unknown {
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: special.map((content) => addedSpecialToken(ids.get(content)!, content)),
    normalizer: null,
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [
        { type: 'Digits', individual_digits: true },
        { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: o.useRegex },
      ],
    },
    post_processor: { type: 'ByteLevel', add_prefix_space: o.addPrefixSpace, trim_offsets: false, use_regex: o.useRegex },
    decoder: { type: 'ByteLevel', add_prefix_space: o.addPrefixSpace, trim_offsets: true, use_regex: o.useRegex },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      // Like GPT-2's, the model vocabulary lists every id, the added (special) tokens included.
      vocab: Object.fromEntries(ids),
      merges: merges.map(([a, b]) => `${a} ${b}`),
    },
  };
}

/** tokenizer.json (the `tokenizers` library format); `trailing` as given to {@link buildVocabulary}. */
export function tokenizerJson(vocab: Vocabulary, trailing: readonly string[] = TRAILING_SPECIAL_TOKENS): unknown {
  return bpeTokenizerJson(vocab.ids, MERGES, [...LEADING_SPECIAL_TOKENS, ...trailing], { useRegex: true, addPrefixSpace: true });
}

/**
 * The chat template, in the shape SmolVLM's uses: "User:<image>question<end_of_utterance>\nAssistant:".
 * Message content may be a string or a list of `{type: 'text'|'image'}` parts.
 */
export const CHAT_TEMPLATE = [
  '<|im_start|>',
  '{% for message in messages %}',
  "{{ message['role'] | capitalize }}",
  "{% if message['content'] is string %}{{ ': ' + message['content'] }}",
  '{% else %}',
  "{% if message['content'][0]['type'] == 'image' %}{{ ':' }}{% else %}{{ ': ' }}{% endif %}",
  "{% for part in message['content'] %}",
  "{% if part['type'] == 'text' %}{{ part['text'] }}{% elif part['type'] == 'image' %}{{ '<image>' }}{% endif %}",
  '{% endfor %}',
  '{% endif %}',
  '<end_of_utterance>\n',
  '{% endfor %}',
  "{% if add_generation_prompt %}{{ 'Assistant:' }}{% endif %}",
].join('');

export function tokenizerConfigJson(): unknown {
  return {
    add_prefix_space: false,
    bos_token: '<|im_start|>',
    eos_token: '<end_of_utterance>',
    pad_token: '<|im_end|>',
    unk_token: '<|endoftext|>',
    additional_special_tokens: ['<fake_token_around_image>', '<image>', '<end_of_utterance>'],
    clean_up_tokenization_spaces: false,
    model_max_length: 2048,
    processor_class: 'Idefics3Processor',
    tokenizer_class: 'GPT2Tokenizer',
    chat_template: CHAT_TEMPLATE,
  };
}

/**
 * The side files a SmolVLM repository holds beside tokenizer_config.json
 * (chat_template.json, special_tokens_map.json, added_tokens.json), so a
 * generated folder has every file the catalogue lists for SmolVLM.
 */
export function smolvlmSideFiles(vocab: Vocabulary, trailing: readonly string[] = TRAILING_SPECIAL_TOKENS): { path: string; value: unknown }[] {
  const config = tokenizerConfigJson() as Record<string, unknown>;
  const special = [...LEADING_SPECIAL_TOKENS, ...trailing];
  return [
    { path: 'chat_template.json', value: { chat_template: CHAT_TEMPLATE } },
    {
      path: 'special_tokens_map.json',
      value: {
        bos_token: config.bos_token,
        eos_token: config.eos_token,
        pad_token: config.pad_token,
        unk_token: config.unk_token,
        additional_special_tokens: config.additional_special_tokens,
      },
    },
    { path: 'added_tokens.json', value: Object.fromEntries(special.map((t) => [t, tokenId(vocab, t)])) },
  ];
}
