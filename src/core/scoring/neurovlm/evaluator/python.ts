/**
 * The Python operations NeuroVLM-Bench's evaluator applies to each record, on
 * the values `json.loads` gives (src/core/python): `d.get(key, default)` on a
 * value that may not be a dict, `int(x or 0)`, `float(x)` under a bare
 * `except`, and membership in a set (which needs a hashable value). Where the
 * evaluator would raise, these throw `PyException`.
 */
import { PyDict, PyException, pyFloat, pyInt, pyTruthy, pyTypeName, type PyValue } from '../../../python/values.ts';

export { pyStr, pyStrip, pyTruthy } from '../../../python/values.ts';

/** `x.get(key, fallback)`: AttributeError unless `x` is a dict. */
export function pyGet(x: PyValue, key: string, fallback: PyValue = null): PyValue {
  if (!(x instanceof PyDict)) throw new PyException('AttributeError', `'${pyTypeName(x)}' object has no attribute 'get'`);
  return x.has(key) ? x.get(key)! : fallback;
}

/** `x` when it is a dict, else undefined (for reading without Python's semantics). */
export function pyDict(x: PyValue | undefined): PyDict | undefined {
  return x instanceof PyDict ? x : undefined;
}

/** `int(x or 0)`, as the evaluator reads token counts; raises where Python raises (`int("1.5")`). */
export function pyIntOr0(x: PyValue): bigint {
  return pyTruthy(x) ? pyInt(x) : 0n;
}

/** `try: float(x) except Exception: None`. */
export function pyFloatOrNone(x: PyValue): number | null {
  try {
    return pyFloat(x);
  } catch (error) {
    if (error instanceof PyException) return null;
    throw error;
  }
}

/** `x in {None, 'null', 'nan', ''}`: TypeError for a list or dict (unhashable). */
export function inInvalidGold(x: PyValue): boolean {
  if (Array.isArray(x) || x instanceof PyDict) throw new PyException('TypeError', `unhashable type: '${pyTypeName(x)}'`);
  return x === null || x === 'null' || x === 'nan' || x === '';
}
