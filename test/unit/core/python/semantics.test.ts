/**
 * src/core/python against CPython: every expected value here was printed by
 * CPython itself (scripts/parity/python-semantics.py, output committed as
 * test/fixtures/python/cpython-semantics.json), so a case the module gets
 * wrong fails with the Python value beside ours.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pyJsonLoads } from '../../../../src/core/python/json.ts';
import {
  PyDict,
  PyException,
  pyFileLines,
  pyFloat,
  pyFloatRepr,
  pyInt,
  pyRepr,
  pySortedUnique,
  pySplitlines,
  pyStr,
  pyStrip,
  pyTruthy,
  pyTypeName,
  type PyValue,
} from '../../../../src/core/python/values.ts';

type Outcome<T> = { value: T } | { raises: string };
interface Described {
  str: string;
  repr: string;
  type: string;
  truthy: boolean;
}
interface Fixture {
  python: string;
  json: [string, Outcome<Described>][];
  json_errors: [string, Outcome<Described>][];
  float_text: [string, Outcome<string>][];
  float_json: [string, Outcome<string>][];
  int_text: [string, Outcome<string>][];
  int_json: [string, Outcome<string>][];
  strip: [string, string][];
  lower: [string, string][];
  sorted: [string[], string[]][];
  splitlines: [string, string[]][];
  file_lines: [string, string[]][];
}

const fixture = JSON.parse(readFileSync(new URL('../../../fixtures/python/cpython-semantics.json', import.meta.url), 'utf8')) as Fixture;

function outcome<T>(f: () => T): Outcome<T> {
  try {
    return { value: f() };
  } catch (error) {
    if (error instanceof PyException) return { raises: error.pyType };
    throw error;
  }
}

const describeValue = (v: PyValue): Described => ({ str: pyStr(v), repr: pyRepr(v), type: pyTypeName(v), truthy: pyTruthy(v) });
const show = (s: string): string => JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}…` : s);

describe(`Python semantics equal CPython ${fixture.python}`, () => {
  it('json.loads, then str(), repr(), type and truthiness of what it read', () => {
    expect(fixture.json.length + fixture.json_errors.length).toBeGreaterThan(70);
    for (const [text, want] of [...fixture.json, ...fixture.json_errors]) expect(outcome(() => describeValue(pyJsonLoads(text))), show(text)).toEqual(want);
  });

  it('float() of text (Unicode whitespace and digits, underscores, inf/nan spellings)', () => {
    for (const [text, want] of fixture.float_text) expect(outcome(() => pyFloatRepr(pyFloat(text))), show(text)).toEqual(want);
  });

  it('float() of JSON values (bool, int beyond a double, None, list)', () => {
    for (const [text, want] of fixture.float_json) expect(outcome(() => pyFloatRepr(pyFloat(pyJsonLoads(text)))), show(text)).toEqual(want);
  });

  it('int() of text (Unicode digits, the 4,300-digit limit) and of JSON values (truncation, NaN, inf)', () => {
    for (const [text, want] of fixture.int_text) expect(outcome(() => pyInt(text).toString()), show(text)).toEqual(want);
    for (const [text, want] of fixture.int_json) expect(outcome(() => pyInt(pyJsonLoads(text)).toString()), show(text)).toEqual(want);
  });

  it('str.strip() and str.lower()', () => {
    for (const [text, want] of fixture.strip) expect(pyStrip(text), show(text)).toBe(want);
    for (const [text, want] of fixture.lower) expect(text.toLowerCase(), show(text)).toBe(want);
  });

  it('sorted(set(...)) orders strings by code point', () => {
    for (const [xs, want] of fixture.sorted) expect(pySortedUnique(xs)).toEqual(want);
    // The case UTF-16 order gets wrong, so this test fails if the module falls back to it.
    expect(pySortedUnique(['\uffff', '\u{10000}'])).toEqual(['\uffff', '\u{10000}']);
  });

  it('str.splitlines() and the lines of a file read in text mode (universal newlines)', () => {
    for (const [text, want] of fixture.splitlines) expect(pySplitlines(text), show(text)).toEqual(want);
    for (const [text, want] of fixture.file_lines) expect(pyFileLines(text), show(text)).toEqual(want);
  });

  it('dicts keep insertion order and a repeated key its first place', () => {
    const d = pyJsonLoads('{"b": 1, "1": 2, "a": 3, "b": 4}');
    expect(d).toBeInstanceOf(PyDict);
    expect([...(d as PyDict).keys()]).toEqual(['b', '1', 'a']);
    expect(pyStr(d)).toBe("{'b': 4, '1': 2, 'a': 3}");
  });
});
