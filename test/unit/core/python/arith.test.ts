/**
 * Python arithmetic as CPython 3.11's eval computes it: the expected results
 * below are what `str(eval(expr, {"__builtins__": None}, names))` printed
 * with min, pow, round, abs, int, float and math as the names, and the
 * exceptions it raised. Nothing but arithmetic is evaluated.
 */
import { describe, expect, it } from 'vitest';
import { ARITHMETIC_BUILTINS, MATH_MODULES, pyEvalArithmetic, pyNumberStr } from '../../../../src/core/python/arith.ts';
import { PyException } from '../../../../src/core/python/values.ts';

const names = { ...ARITHMETIC_BUILTINS, ...MATH_MODULES };
const str = (e: string) => pyNumberStr(pyEvalArithmetic(e, names));
const raised = (e: string): string | null => {
  try {
    pyEvalArithmetic(e, names);
    return null;
  } catch (err) {
    return err instanceof PyException ? err.pyType : 'not a Python exception';
  }
};

const CPYTHON: readonly [string, string][] = [
  ['7 / 2', '3.5'], ['7 // 2', '3'], ['-7 // 2', '-4'], ['-7 % 3', '2'], ['7 % -3', '-2'], ['7.5 % 2', '1.5'], ['-7.5 // 2', '-4.0'],
  ['2 ** 10', '1024'], ['2 ** -1', '0.5'], ['2 ** 0.5', '1.4142135623730951'], ['-2 ** 2', '-4'], ['(-2) ** 2', '4'], ['10 ** 20', '100000000000000000000'],
  ['1e16', '1e+16'], ['0.1 + 0.2', '0.30000000000000004'], ['1e-5 * 1', '1e-05'], ['3 > 2', 'True'], ['1 < 2 < 3', 'True'], ['3 == 3.0', 'True'], ['True + 1', '2'],
  ['round(2.5)', '2'], ['round(3.5)', '4'], ['round(-2.5)', '-2'], ['round(2.675, 2)', '2.67'], ['round(0.125, 2)', '0.12'], ['round(0.375, 2)', '0.38'],
  ['round(1.005, 2)', '1.0'], ['round(7)', '7'], ['int(-7.9)', '-7'], ['float(3)', '3.0'], ['abs(-3)', '3'], ['abs(-3.5)', '3.5'], ['min(3, 2.5, 4)', '2.5'],
  ['min(2, 2.0)', '2'], ['pow(2, 3)', '8'], ['math.sqrt(2)', '1.4142135623730951'], ['math.floor(-2.5)', '-3'], ['math.ceil(2.1)', '3'], ['math.log(8, 2)', '3.0'],
  ['math.exp(1)', '2.718281828459045'], ['np.sqrt(16)', '4.0'], ['2*(3+4)', '14'], ['+5', '5'], ['--5', '5'], ['1_0', '10'],
];

describe('Python arithmetic', () => {
  it('computes what CPython computes, in its types (int, float, bool) and its str()', () => {
    for (const [e, want] of CPYTHON) expect([e, str(e)]).toEqual([e, want]);
  });

  it('raises where CPython raises', () => {
    expect(raised('1 / 0')).toBe('ZeroDivisionError');
    expect(raised('1 // 0.0')).toBe('ZeroDivisionError');
    expect(raised('0 ** -1')).toBe('ZeroDivisionError');
    expect(raised('08')).toBe('SyntaxError');
    expect(raised('math.sqrt(-1)')).toBe('ValueError');
    // A negative base to a fractional power is complex in Python: no number to compare.
    expect(raised('(-8) ** (1/3)')).not.toBeNull();
    expect(raised('round(1e308 * 10)')).toBe('OverflowError');
  });

  it('evaluates nothing but arithmetic: other names, strings, lists and attributes are errors', () => {
    for (const e of ['max(1, 2)', '__import__("os")', '"a" * 3', '[1, 2]', 'math.__class__', 'open', 'x = 1', 'lambda: 1', '2 ** 100000']) expect([e, raised(e)]).not.toEqual([e, null]);
  });
});
