/**
 * Short free-text answers (VQA-RAD, SLAKE, PathVQA): two published
 * definitions, each reproduced as its code computes it.
 *
 * - **Exact match** as lmms-eval scores SLAKE (`lmms_eval/tasks/slake/utils.py`,
 *   `normalize_answer`): lower-case, parenthesised asides removed (ASCII and
 *   full-width), ASCII and Chinese punctuation to spaces, whitespace
 *   collapsed, "x ray" → "xray", and the English and Chinese yes/no words
 *   folded to "yes"/"no"; correct when the two normalised strings are equal.
 *   Accuracy is reported overall and split by the question's answer type
 *   (OPEN/CLOSED), the mean over the questions of each type.
 * - **Token recall** as LLaVA-Med scores open questions
 *   (`llava/eval/run_eval.py`, `calculate_f1score`): both texts lower-cased
 *   and passed through VQA's `normalize_word` (punctuation, articles, number
 *   words, contractions), split on whitespace into a multiset; recall =
 *   reference tokens found in the answer ÷ reference tokens, 0 when either
 *   text is empty or nothing matches.
 */

import { PY_SPACE_RUN, pyStrip } from '../../python/values.ts';

const EN_YES = new Set(['yes', 'yeah', 'yep', 'true']);
const EN_NO = new Set(['no', 'nope', 'false']);
const ZH_YES = new Set(['是', '是的', '有', '包含', '可以', '能', '会', '正常']);
const ZH_NO = new Set(['否', '不是', '没有', '无', '不包含', '不能', '不会', '不可以', '不正常', '异常']);
/** Python's string.punctuation. */
const ASCII_PUNCT = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
const ZH_PUNCT = '！？｡。＂＃＄％＆＇（）＊＋，－／：；＜＝＞＠［＼］＾＿｀｛｜｝～、，。；：《》？【】（）';
const PUNCT = new Set([...ASCII_PUNCT, ...ZH_PUNCT]);

/** lmms-eval's SLAKE `normalize_answer`. */
export function slakeNormalize(answer: string | null | undefined): string {
  let text = pyStrip(answer ?? '').toLowerCase();
  text = text.replace(/\([^)]*\)/g, ' ');
  text = text.replace(/（[^）]*）/g, ' ');
  text = [...text].map((ch) => (PUNCT.has(ch) ? ' ' : ch)).join('');
  text = pyStrip(text.replace(PY_SPACE_RUN, ' '));
  if (text === 'x ray' || text === 'xray') text = 'xray';
  if (EN_YES.has(text) || ZH_YES.has(text)) return 'yes';
  if (EN_NO.has(text) || ZH_NO.has(text)) return 'no';
  return text;
}

/** lmms-eval's SLAKE exact match. */
export function slakeExactMatch(prediction: string, reference: string): boolean {
  return slakeNormalize(prediction) === slakeNormalize(reference);
}

// VQA's normalisation as LLaVA-Med's glossary.py writes it.
const CONTRACTIONS: Readonly<Record<string, string>> = {
  aint: "ain't", arent: "aren't", cant: "can't", couldve: "could've", couldnt: "couldn't", "couldn'tve": "couldn't've", "couldnt've": "couldn't've",
  didnt: "didn't", doesnt: "doesn't", dont: "don't", hadnt: "hadn't", "hadnt've": "hadn't've", "hadn'tve": "hadn't've", hasnt: "hasn't", havent: "haven't",
  hed: "he'd", "hed've": "he'd've", "he'dve": "he'd've", hes: "he's", howd: "how'd", howll: "how'll", hows: "how's", "Id've": "I'd've", "I'dve": "I'd've",
  Im: "I'm", Ive: "I've", isnt: "isn't", itd: "it'd", "itd've": "it'd've", "it'dve": "it'd've", itll: "it'll", "let's": "let's", maam: "ma'am",
  mightnt: "mightn't", "mightnt've": "mightn't've", "mightn'tve": "mightn't've", mightve: "might've", mustnt: "mustn't", mustve: "must've", neednt: "needn't",
  notve: "not've", oclock: "o'clock", oughtnt: "oughtn't", "ow's'at": "'ow's'at", "'ows'at": "'ow's'at", "'ow'sat": "'ow's'at", shant: "shan't",
  "shed've": "she'd've", "she'dve": "she'd've", "she's": "she's", shouldve: "should've", shouldnt: "shouldn't", "shouldnt've": "shouldn't've",
  "shouldn'tve": "shouldn't've", "somebody'd": 'somebodyd', "somebodyd've": "somebody'd've", "somebody'dve": "somebody'd've", somebodyll: "somebody'll",
  somebodys: "somebody's", someoned: "someone'd", "someoned've": "someone'd've", "someone'dve": "someone'd've", someonell: "someone'll", someones: "someone's",
  somethingd: "something'd", "somethingd've": "something'd've", "something'dve": "something'd've", somethingll: "something'll", thats: "that's",
  thered: "there'd", "thered've": "there'd've", "there'dve": "there'd've", therere: "there're", theres: "there's", theyd: "they'd", "theyd've": "they'd've",
  "they'dve": "they'd've", theyll: "they'll", theyre: "they're", theyve: "they've", twas: "'twas", wasnt: "wasn't", "wed've": "we'd've", "we'dve": "we'd've",
  weve: "we've", werent: "weren't", whatll: "what'll", whatre: "what're", whats: "what's", whatve: "what've", whens: "when's", whered: "where'd",
  wheres: "where's", whereve: "where've", whod: "who'd", "whod've": "who'd've", "who'dve": "who'd've", wholl: "who'll", whos: "who's", whove: "who've",
  whyll: "why'll", whyre: "why're", whys: "why's", wont: "won't", wouldve: "would've", wouldnt: "wouldn't", "wouldnt've": "wouldn't've",
  "wouldn'tve": "wouldn't've", yall: "y'all", "yall'll": "y'all'll", "y'allll": "y'all'll", "yall'd've": "y'all'd've", "y'alld've": "y'all'd've",
  "y'all'dve": "y'all'd've", youd: "you'd", "youd've": "you'd've", "you'dve": "you'd've", youll: "you'll", youre: "you're", youve: "you've",
};
const NUMBER_WORDS: Readonly<Record<string, string>> = { none: '0', zero: '0', one: '1', two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9', ten: '10' };
const ARTICLES = new Set(['a', 'an', 'the']);
const VQA_PUNCT = [';', '/', '[', ']', '"', '{', '}', '(', ')', '=', '+', '\\', '_', '-', '>', '<', '@', '`', ',', '?', '!'];
const COMMA_IN_NUMBER = /(\d)(,)(\d)/;

/**
 * LLaVA-Med's `normalize_word`, quirks included: a punctuation mark next to
 * a space (or any text holding a comma between digits) is deleted, else
 * replaced by a space; a period not followed by a digit is deleted, at most
 * 32 times (the flag `re.UNICODE` lands in `re.sub`'s count argument).
 */
export function vqaNormalizeWord(token: string): string {
  let out = token;
  const digitsComma = COMMA_IN_NUMBER.test(token);
  for (const p of VQA_PUNCT) {
    if (token.includes(`${p} `) || token.includes(` ${p}`) || digitsComma) out = out.split(p).join('');
    else out = out.split(p).join(' ');
  }
  let periods = 0;
  out = out.replace(/\.(?!\d)/g, (m) => (periods++ < 32 ? '' : m));
  const words: string[] = [];
  for (const w0 of out.toLowerCase().split(PY_SPACE_RUN).filter(Boolean)) {
    const w = Object.hasOwn(NUMBER_WORDS, w0) ? NUMBER_WORDS[w0]! : w0;
    if (!ARTICLES.has(w)) words.push(w);
  }
  return words.map((w) => (Object.hasOwn(CONTRACTIONS, w) ? CONTRACTIONS[w]! : w)).join(' ').split(',').join('');
}

function tokenCounts(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const w of text.toLowerCase().split(PY_SPACE_RUN).filter(Boolean)) out.set(w, (out.get(w) ?? 0) + 1);
  return out;
}

/**
 * LLaVA-Med's recall for an open question (`run_eval.py`): both texts
 * lower-cased and normalised, then `calculate_f1score` (which normalises
 * again) → its recall.
 */
export function llavaMedRecall(prediction: string, reference: string): number {
  const cand = tokenCounts(vqaNormalizeWord(vqaNormalizeWord(prediction.toLowerCase())));
  const ref = tokenCounts(vqaNormalizeWord(vqaNormalizeWord(reference.toLowerCase())));
  if (cand.size === 0 || ref.size === 0) return 0;
  let tp = 0;
  let fn = 0;
  for (const [w, n] of ref) {
    if (cand.has(w)) tp += cand.get(w)!;
    else fn += n;
  }
  // calculate_f1score counts a shared word's candidate occurrences as true positives.
  return tp === 0 ? 0 : tp / (tp + fn);
}

/** OPEN or CLOSED as the data says; a reference that normalises to yes/no is closed when the data says nothing (VQA-RAD's convention). */
export function answerTypeOf(declared: string | undefined, reference: string): 'open' | 'closed' {
  const d = pyStrip(declared ?? '').toLowerCase();
  if (d === 'open' || d === 'closed') return d;
  const n = slakeNormalize(reference);
  return n === 'yes' || n === 'no' ? 'closed' : 'open';
}
