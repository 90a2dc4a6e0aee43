/**
 * The self-test encoder's tokenizer: an uncased BERT WordPiece tokenizer
 * (BertNormalizer, BertPreTokenizer, `[CLS] … [SEP]` template, `##`
 * continuations) with a small vocabulary: every lower-case letter, digit and
 * ASCII punctuation mark, their `##` continuations, common suffixes and some
 * English and neuroradiology words, so any ASCII text tokenises without
 * `[UNK]`. Written as tokenizer.json / tokenizer_config.json in the Hugging
 * Face format that transformers.js reads.
 */

import { addedSpecialToken } from './tokenizer.ts';

const WORDPIECE_SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
const SUFFIXES = ['s', 'es', 'ed', 'ing', 'ly', 'al', 'ic', 'tion', 'er', 'ive', 'ous', 'ity', 'ness', 'ment'];
const WORDS = (
  'the of and a to in is was with on for as by at from that this are be or no not an it there which ' +
  'left right both brain lesion mri ct scan image white matter grey gray signal high low intensity ' +
  'hyperintense hypointense t1 t2 flair contrast enhancement mass tumour tumor stroke infarct ' +
  'haemorrhage hemorrhage oedema edema ventricle frontal temporal parietal occipital lobe cortex ' +
  'cerebellum brainstem midline shift normal abnormal patient finding diagnosis likely consistent ' +
  'acute chronic small large multiple single yes answer question correct wrong'
).split(' ');

interface WordPieceVocabulary {
  /** token → id, special tokens first. */
  readonly ids: ReadonlyMap<string, number>;
  readonly size: number;
}

export function buildWordPieceVocabulary(): WordPieceVocabulary {
  const ids = new Map<string, number>();
  const add = (token: string) => {
    if (ids.has(token)) throw new Error(`duplicate token ${token}`);
    ids.set(token, ids.size);
  };
  WORDPIECE_SPECIAL_TOKENS.forEach(add);
  for (const c of LETTERS + DIGITS + PUNCTUATION) add(c);
  for (const c of LETTERS + DIGITS) add(`##${c}`);
  for (const s of SUFFIXES) if (s.length > 1) add(`##${s}`);
  for (const w of WORDS) if (w.length > 1) add(w);
  return { ids, size: ids.size };
}

function idOf(vocab: WordPieceVocabulary, token: string): number {
  const id = vocab.ids.get(token);
  if (id === undefined) throw new Error(`token ${token} is not in the vocabulary`);
  return id;
}

/** tokenizer.json (the `tokenizers` library format), as `bert-base-uncased` has it. */
export function wordPieceTokenizerJson(vocab: WordPieceVocabulary): unknown {
  const special = (token: string) => ({ id: token, ids: [idOf(vocab, token)], tokens: [token] });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: WORDPIECE_SPECIAL_TOKENS.map((content) => addedSpecialToken(idOf(vocab, content), content)),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: { '[CLS]': special('[CLS]'), '[SEP]': special('[SEP]') },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.ids),
    },
  };
}

export function wordPieceTokenizerConfigJson(maxLength: number): unknown {
  return {
    clean_up_tokenization_spaces: true,
    cls_token: '[CLS]',
    do_lower_case: true,
    mask_token: '[MASK]',
    model_max_length: maxLength,
    pad_token: '[PAD]',
    sep_token: '[SEP]',
    strip_accents: null,
    tokenize_chinese_chars: true,
    tokenizer_class: 'BertTokenizer',
    unk_token: '[UNK]',
  };
}
