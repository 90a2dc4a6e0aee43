/**
 * Rule stage of diagnosis equivalence (docs/protocols.md#diagnosis-equivalence): normalised exact
 * match against the reference diagnosis and its aliases.
 *
 * `normaliseDiagnosis` applies, in order:
 * 1. Unicode NFKD and removal of combining marks (diacritics), lower-case;
 * 2. possessive `'s` / `’s` dropped ("Alzheimer's" → "alzheimer");
 * 3. every non-alphanumeric character → space (hyphens, commas, brackets…);
 * 4. British → American spelling, per token, by the ordered fragment map
 *    {@link BRITISH_TO_AMERICAN} (haemorrhage → hemorrhage, oedema → edema…);
 * 5. whole-token abbreviation expansion by {@link ABBREVIATIONS}
 *    (ms → multiple sclerosis, ich → intracerebral hemorrhage…);
 * 6. hedging filler removed ({@link FILLER_PHRASES}: "probable", "likely",
 *    "consistent with"…; "disease" is kept);
 * 7. whitespace collapsed and trimmed.
 *
 * `ruleVerdict` calls a candidate equivalent to a reference name when either
 * (a) the normalised strings are identical, or (b) their token *sets* are
 * identical after removing {@link STOP_WORDS} ("hemorrhage, intracerebral"
 * = "intracerebral hemorrhage"; "disease of alzheimer" ≠ nothing else). The
 * reference diagnosis is tried first (rule `exact`), then each alias in
 * order (rule `alias`). Empty names never match.
 */
import type { ReferenceAnswer } from '../../bundle/types.ts';

/** Ordered British → American fragments, applied to each token (longer first). */
const BRITISH_TO_AMERICAN: readonly (readonly [string, string])[] = [
  ['haemorrhag', 'hemorrhag'],
  ['haematom', 'hematom'],
  ['haemangio', 'hemangio'],
  ['haemosider', 'hemosider'],
  ['haemat', 'hemat'],
  ['haemo', 'hemo'],
  ['haem', 'hem'],
  ['oedema', 'edema'],
  ['oedem', 'edem'],
  ['tumour', 'tumor'],
  ['ischaem', 'ischem'],
  ['anaem', 'anem'],
  ['leukaem', 'leukem'],
  ['paediatr', 'pediatr'],
  ['orthopaed', 'orthoped'],
  ['oesophag', 'esophag'],
  ['oestr', 'estr'],
  ['anaesth', 'anesth'],
  ['aetiolog', 'etiolog'],
  ['foet', 'fet'],
  ['coeliac', 'celiac'],
  ['diarrhoea', 'diarrhea'],
  ['dyspnoea', 'dyspnea'],
  ['apnoea', 'apnea'],
  ['hypoxaem', 'hypoxem'],
  ['septicaem', 'septicem'],
  ['glycaem', 'glycem'],
  ['localis', 'localiz'],
  ['demyelinis', 'demyeliniz'],
  ['centre', 'center'],
  ['fibre', 'fiber'],
  ['grey', 'gray'],
];

/** Whole-token abbreviations, expanded after spelling normalisation (keys lower-case). */
const ABBREVIATIONS: Readonly<Record<string, string>> = {
  ms: 'multiple sclerosis',
  ad: 'alzheimer disease',
  pd: 'parkinson disease',
  ich: 'intracerebral hemorrhage',
  sah: 'subarachnoid hemorrhage',
  sdh: 'subdural hematoma',
  edh: 'epidural hematoma',
  ivh: 'intraventricular hemorrhage',
  gbm: 'glioblastoma',
  cjd: 'creutzfeldt jakob disease',
  hsv: 'herpes simplex virus',
  hse: 'herpes simplex encephalitis',
  pml: 'progressive multifocal leukoencephalopathy',
  adem: 'acute disseminated encephalomyelitis',
  nmosd: 'neuromyelitis optica spectrum disorder',
  nmo: 'neuromyelitis optica',
  tia: 'transient ischemic attack',
  avm: 'arteriovenous malformation',
  pres: 'posterior reversible encephalopathy syndrome',
  cvst: 'cerebral venous sinus thrombosis',
  als: 'amyotrophic lateral sclerosis',
  ftd: 'frontotemporal dementia',
  dlb: 'dementia with lewy bodies',
  psp: 'progressive supranuclear palsy',
  msa: 'multiple system atrophy',
  nph: 'normal pressure hydrocephalus',
  tbi: 'traumatic brain injury',
  dai: 'diffuse axonal injury',
  hie: 'hypoxic ischemic encephalopathy',
  pcnsl: 'primary central nervous system lymphoma',
  cns: 'central nervous system',
  cva: 'cerebrovascular accident',
  mogad: 'myelin oligodendrocyte glycoprotein antibody associated disease',
};

/** Eponyms written as a plural instead of a possessive ("Alzheimers"). */
const EPONYM_PLURALS: Readonly<Record<string, string>> = {
  alzheimers: 'alzheimer',
  parkinsons: 'parkinson',
  huntingtons: 'huntington',
  wilsons: 'wilson',
  wernickes: 'wernicke',
  korsakoffs: 'korsakoff',
  bells: 'bell',
  guillains: 'guillain',
};

/** Hedging removed as whole phrases (multi-word first). */
const FILLER_PHRASES: readonly string[] = [
  'most likely',
  'most probably',
  'consistent with',
  'compatible with',
  'suggestive of',
  'in keeping with',
  'suspicious for',
  'suspicion of',
  'concerning for',
  'probable',
  'probably',
  'likely',
  'possible',
  'possibly',
  'suspected',
  'presumed',
];

/** Ignored by the token-set comparison in `ruleVerdict`. */
export const STOP_WORDS: ReadonlySet<string> = new Set(['a', 'an', 'the', 'of', 'with', 'in', 'on', 'and', 'due', 'to', 'from', 'by', 'for']);

function americanise(token: string): string {
  let t = token;
  for (const [gb, us] of BRITISH_TO_AMERICAN) if (t.includes(gb)) t = t.split(gb).join(us);
  return t;
}

const FILLER_RE = new RegExp(`(?:^| )(?:${FILLER_PHRASES.join('|')})(?= |$)`, 'g');

/** The canonical form of a diagnosis name (see the module comment for the exact steps). */
export function normaliseDiagnosis(text: string): string {
  const base = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['’]s\b/g, '')
    .replace(/[^a-z0-9]+/g, ' ');
  const tokens = base
    .split(' ')
    .filter(Boolean)
    .map((t) => {
      const us = americanise(t);
      return ABBREVIATIONS[us] ?? EPONYM_PLURALS[us] ?? us;
    });
  // Filler is removed repeatedly so "most likely probable x" loses both.
  let joined = ` ${tokens.join(' ')} `;
  for (;;) {
    const next = joined.replace(FILLER_RE, ' ');
    if (next === joined) break;
    joined = next;
  }
  return joined.replace(/\s+/g, ' ').trim();
}

function tokenSet(normalised: string): Set<string> {
  return new Set(normalised.split(' ').filter((t) => t && !STOP_WORDS.has(t)));
}

function sameSet(a: Set<string>, b: Set<string>): boolean {
  if (a.size !== b.size || a.size === 0) return false;
  for (const t of a) if (!b.has(t)) return false;
  return true;
}

interface RuleVerdict {
  readonly equivalent: boolean;
  readonly source: 'rule';
  /** `exact`: matched the reference diagnosis; `alias`: one of its aliases; `none`: no match. */
  readonly rule: 'exact' | 'alias' | 'none';
  /** How it matched: identical normalised strings, or identical token sets without stop words. */
  readonly method?: 'normalised' | 'token-set';
  /** The reference name (as written) that matched. */
  readonly matched?: string;
  /** The candidate after normalisation, for display. */
  readonly normalisedCandidate: string;
}

/** True when two names are equivalent by the rule (normalised equality or token-set equality). */
export function namesMatch(a: string, b: string): 'normalised' | 'token-set' | null {
  const na = normaliseDiagnosis(a);
  const nb = normaliseDiagnosis(b);
  if (na === '' || nb === '') return null;
  if (na === nb) return 'normalised';
  return sameSet(tokenSet(na), tokenSet(nb)) ? 'token-set' : null;
}

/** The rule stage: the reference diagnosis first, then each alias in order. */
export function ruleVerdict(candidate: string, reference: ReferenceAnswer): RuleVerdict {
  const normalisedCandidate = normaliseDiagnosis(candidate);
  const names: { name: string; rule: 'exact' | 'alias' }[] = [];
  if (reference.diagnosis !== undefined) names.push({ name: reference.diagnosis, rule: 'exact' });
  for (const a of reference.aliases ?? []) names.push({ name: a, rule: 'alias' });
  for (const { name, rule } of names) {
    const method = namesMatch(candidate, name);
    if (method) return { equivalent: true, source: 'rule', rule, method, matched: name, normalisedCandidate };
  }
  return { equivalent: false, source: 'rule', rule: 'none', normalisedCandidate };
}
