/**
 * Porter stemmer (M. F. Porter, "An algorithm for suffix stripping",
 * Program 14(3), 1980, pp. 130–137), ported step by step from NLTK's
 * `nltk/stem/porter.py`, including its three modes:
 *
 * - `'nltk'` (default): NLTK_EXTENSIONS. This is what google-research
 *   `rouge_score` uses (`porter.PorterStemmer()` with no arguments), so ROUGE
 *   with stemming must use this mode to match published numbers.
 * - `'martin'`: MARTIN_EXTENSIONS, the frozen reference implementations on
 *   tartarus.org (`voc.txt` → `output.txt`).
 * - `'original'`: the algorithm exactly as published in the 1980 paper.
 *
 * Changing a rule changes every stored ROUGE-with-stemming score.
 */

type PorterMode = 'nltk' | 'martin' | 'original';

/** NLTK_EXTENSIONS irregular forms: word → stem, bypassing the steps. */
const IRREGULAR: ReadonlyMap<string, string> = new Map([
  ['sky', 'sky'], ['skies', 'sky'], ['dying', 'die'], ['lying', 'lie'], ['tying', 'tie'],
  ['news', 'news'], ['innings', 'inning'], ['inning', 'inning'], ['outings', 'outing'],
  ['outing', 'outing'], ['cannings', 'canning'], ['canning', 'canning'], ['howe', 'howe'],
  ['proceed', 'proceed'], ['exceed', 'exceed'], ['succeed', 'succeed'],
]);

const VOWELS = new Set(['a', 'e', 'i', 'o', 'u']);

type Condition = ((stem: string) => boolean) | null;
/** [suffix, replacement, condition]; the suffix `'*d'` means "ends in a double consonant". */
type Rule = readonly [string, string, Condition];

function isConsonant(word: string, i: number): boolean {
  const ch = word[i]!;
  if (VOWELS.has(ch)) return false;
  if (ch === 'y') return i === 0 ? true : !isConsonant(word, i - 1);
  return true;
}

/** m in [C](VC){m}[V]: the number of vowel→consonant transitions. */
function measure(stem: string): number {
  let m = 0;
  for (let i = 1; i < stem.length; i++) {
    if (!isConsonant(stem, i - 1) && isConsonant(stem, i)) m++;
  }
  return m;
}

const positiveMeasure = (stem: string): boolean => measure(stem) > 0;
const measureAbove1 = (stem: string): boolean => measure(stem) > 1;

function containsVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

function endsDoubleConsonant(word: string): boolean {
  return word.length >= 2 && word[word.length - 1] === word[word.length - 2] && isConsonant(word, word.length - 1);
}

/** Condition *o (cvc, second c not w/x/y); NLTK also accepts a 2-letter vc word. */
function endsCvc(word: string, mode: PorterMode): boolean {
  const n = word.length;
  const cvc = n >= 3 && isConsonant(word, n - 3) && !isConsonant(word, n - 2) && isConsonant(word, n - 1)
    && !['w', 'x', 'y'].includes(word[n - 1]!);
  return cvc || (mode === 'nltk' && n === 2 && !isConsonant(word, 0) && isConsonant(word, 1));
}

/** Applies the first rule whose suffix matches; a failed condition stops the list. */
function applyRules(word: string, rules: readonly Rule[]): string {
  for (const [suffix, replacement, condition] of rules) {
    if (suffix === '*d' && endsDoubleConsonant(word)) {
      const stem = word.slice(0, -2);
      return condition === null || condition(stem) ? stem + replacement : word;
    }
    if (word.endsWith(suffix)) {
      const stem = suffix === '' ? word : word.slice(0, -suffix.length);
      return condition === null || condition(stem) ? stem + replacement : word;
    }
  }
  return word;
}

function step1a(word: string, mode: PorterMode): string {
  if (mode === 'nltk' && word.endsWith('ies') && word.length === 4) return word.slice(0, -3) + 'ie';
  return applyRules(word, [['sses', 'ss', null], ['ies', 'i', null], ['ss', 'ss', null], ['s', '', null]]);
}

function step1b(word: string, mode: PorterMode): string {
  if (mode === 'nltk' && word.endsWith('ied')) {
    return word.slice(0, -3) + (word.length === 4 ? 'ie' : 'i');
  }
  if (word.endsWith('eed')) {
    const stem = word.slice(0, -3);
    return measure(stem) > 0 ? stem + 'ee' : word;
  }
  let stem: string | null = null;
  for (const suffix of ['ed', 'ing']) {
    if (word.endsWith(suffix)) {
      const candidate = word.slice(0, -suffix.length);
      if (containsVowel(candidate)) {
        stem = candidate;
        break;
      }
    }
  }
  if (stem === null) return word;
  const last = stem[stem.length - 1] ?? '';
  return applyRules(stem, [
    ['at', 'ate', null],
    ['bl', 'ble', null],
    ['iz', 'ize', null],
    ['*d', last, () => !['l', 's', 'z'].includes(last)],
    ['', 'e', (s) => measure(s) === 1 && endsCvc(s, mode)],
  ]);
}

function step1c(word: string, mode: PorterMode): string {
  const condition = mode === 'nltk'
    ? (stem: string) => stem.length > 1 && isConsonant(stem, stem.length - 1)
    : containsVowel;
  return applyRules(word, [['y', 'i', condition]]);
}

function step2(word: string, mode: PorterMode): string {
  // NLTK applies ALLI → AL first and re-runs step 2 on the result.
  if (mode === 'nltk' && word.endsWith('alli') && positiveMeasure(word.slice(0, -4))) {
    return step2(word.slice(0, -4) + 'al', mode);
  }
  const rules: Rule[] = [
    ['ational', 'ate', positiveMeasure],
    ['tional', 'tion', positiveMeasure],
    ['enci', 'ence', positiveMeasure],
    ['anci', 'ance', positiveMeasure],
    ['izer', 'ize', positiveMeasure],
    mode === 'original' ? ['abli', 'able', positiveMeasure] : ['bli', 'ble', positiveMeasure],
    ['alli', 'al', positiveMeasure],
    ['entli', 'ent', positiveMeasure],
    ['eli', 'e', positiveMeasure],
    ['ousli', 'ous', positiveMeasure],
    ['ization', 'ize', positiveMeasure],
    ['ation', 'ate', positiveMeasure],
    ['ator', 'ate', positiveMeasure],
    ['alism', 'al', positiveMeasure],
    ['iveness', 'ive', positiveMeasure],
    ['fulness', 'ful', positiveMeasure],
    ['ousness', 'ous', positiveMeasure],
    ['aliti', 'al', positiveMeasure],
    ['iviti', 'ive', positiveMeasure],
    ['biliti', 'ble', positiveMeasure],
  ];
  if (mode === 'nltk') {
    rules.push(['fulli', 'ful', positiveMeasure]);
    // The 'l' of 'logi' stays with the stem, so 'geo'/'theo' behave like 'archaeo'.
    rules.push(['logi', 'log', () => positiveMeasure(word.slice(0, -3))]);
  } else if (mode === 'martin') {
    rules.push(['logi', 'log', positiveMeasure]);
  }
  return applyRules(word, rules);
}

function step3(word: string): string {
  return applyRules(word, [
    ['icate', 'ic', positiveMeasure],
    ['ative', '', positiveMeasure],
    ['alize', 'al', positiveMeasure],
    ['iciti', 'ic', positiveMeasure],
    ['ical', 'ic', positiveMeasure],
    ['ful', '', positiveMeasure],
    ['ness', '', positiveMeasure],
  ]);
}

function step4(word: string): string {
  const suffixes = ['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent'];
  const rules: Rule[] = suffixes.map((s): Rule => [s, '', measureAbove1]);
  rules.push(['ion', '', (stem) => measure(stem) > 1 && (stem.endsWith('s') || stem.endsWith('t'))]);
  for (const s of ['ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize']) rules.push([s, '', measureAbove1]);
  return applyRules(word, rules);
}

function step5a(word: string, mode: PorterMode): string {
  // Both E rules are tried (unlike the first-match rule lists above).
  if (!word.endsWith('e')) return word;
  const stem = word.slice(0, -1);
  const m = measure(stem);
  if (m > 1) return stem;
  if (m === 1 && !endsCvc(stem, mode)) return stem;
  return word;
}

function step5b(word: string): string {
  return applyRules(word, [['ll', 'l', () => measure(word.slice(0, -1)) > 1]]);
}

/**
 * Stems one word. The word is lower-cased first (NLTK's default
 * `to_lowercase=True`). In `'nltk'` and `'martin'` modes words of one or two
 * letters are returned unchanged.
 */
export function porterStem(word: string, mode: PorterMode = 'nltk'): string {
  let stem = word.toLowerCase();
  // NLTK looks the irregular form up with the word as given, not lower-cased.
  const irregular = mode === 'nltk' ? IRREGULAR.get(word) : undefined;
  if (irregular !== undefined) return irregular;
  if (mode !== 'original' && word.length <= 2) return stem;
  stem = step1a(stem, mode);
  stem = step1b(stem, mode);
  stem = step1c(stem, mode);
  stem = step2(stem, mode);
  stem = step3(stem);
  stem = step4(stem);
  stem = step5a(stem, mode);
  return step5b(stem);
}
