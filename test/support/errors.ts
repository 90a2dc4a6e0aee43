/** Assertions on the typed errors a call throws. */
import { expect } from 'vitest';
import { InvalidInputError } from '../../src/core/errors.ts';

/** The InvalidInputError `fn` throws; fails the test when it throws nothing or something else. */
export function thrown(fn: () => unknown): InvalidInputError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return error as InvalidInputError;
  }
  throw new Error('expected an InvalidInputError');
}
