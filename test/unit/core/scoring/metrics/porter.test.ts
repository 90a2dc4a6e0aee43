import { describe, expect, it } from 'vitest';
import { porterStem } from '../../../../../src/core/scoring/metrics/porter.ts';

// Examples from Porter (1980), Steps 1–5: the same in every mode.
const PAPER: Record<string, string> = {
  caresses: 'caress', ponies: 'poni', caress: 'caress', cats: 'cat',
  feed: 'feed', agreed: 'agre', plastered: 'plaster', bled: 'bled', motoring: 'motor', sing: 'sing',
  conflated: 'conflat', troubled: 'troubl', sized: 'size', hopping: 'hop', tanned: 'tan',
  falling: 'fall', hissing: 'hiss', fizzed: 'fizz', failing: 'fail', filing: 'file',
  happy: 'happi', relational: 'relat', conditional: 'condit', rational: 'ration', valenci: 'valenc',
  digitizer: 'digit', radicalli: 'radic', vietnamization: 'vietnam', triplicate: 'triplic',
  formative: 'form', electrical: 'electr', hopeful: 'hope', goodness: 'good', revival: 'reviv',
  allowance: 'allow', airliner: 'airlin', adjustable: 'adjust', adoption: 'adopt', effective: 'effect',
  bowdlerize: 'bowdler', probate: 'probat', rate: 'rate', cease: 'ceas', controll: 'control', roll: 'roll',
  generalizations: 'gener',
};

describe('Porter stemmer', () => {
  it('stems the examples of the 1980 paper in every mode', () => {
    for (const mode of ['nltk', 'martin', 'original'] as const) {
      for (const [word, stem] of Object.entries(PAPER)) expect([word, porterStem(word, mode)]).toEqual([word, stem]);
    }
  });

  it('applies the NLTK extensions by default (what rouge_score uses)', () => {
    expect(porterStem('ties')).toBe('tie');
    expect(porterStem('dies')).toBe('die');
    expect(porterStem('died')).toBe('die');
    expect(porterStem('spied')).toBe('spi');
    expect(porterStem('flies')).toBe('fli');
    expect(porterStem('skies')).toBe('sky');
    expect(porterStem('dying')).toBe('die');
    expect(porterStem('enjoy')).toBe('enjoy');
    expect(porterStem('spy')).toBe('spi');
    expect(porterStem('geology')).toBe('geolog');
    expect(porterStem('hopefully')).toBe('hope');
    expect(porterStem('oed')).toBe('o');
  });

  it('keeps the published rules in original mode and Martin Porter\'s in martin mode', () => {
    expect(porterStem('ties', 'original')).toBe('ti');
    expect(porterStem('skies', 'original')).toBe('ski');
    expect(porterStem('enjoy', 'original')).toBe('enjoi');
    expect(porterStem('conformabli', 'original')).toBe('conform');
    expect(porterStem('archaeology', 'original')).toBe('archaeologi');
    expect(porterStem('archaeology', 'martin')).toBe('archaeolog');
    expect(porterStem('geology', 'martin')).toBe('geologi');
    expect(porterStem('is', 'original')).toBe('i');
    expect(porterStem('is', 'martin')).toBe('is');
  });

  it('lower-cases, and looks irregular forms up as given (as NLTK does)', () => {
    expect(porterStem('Github')).toBe('github');
    expect(porterStem('SKIES')).toBe('ski');
    expect(porterStem('a')).toBe('a');
    expect(porterStem('')).toBe('');
  });
});
