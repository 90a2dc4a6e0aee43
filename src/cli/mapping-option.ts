import { InvalidInputError } from '../core/errors.ts';

/** `--mapping '{…}'`: a generic import's column mapping, given as JSON on the command line (undefined when not given). */
export function parseMappingOption(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidInputError('--mapping must be JSON, e.g. \'{"id":"case","question":"prompt"}\'', { field: '--mapping' });
  }
}

/** `--declared-task '{…}'`: the task a generic import declares (docs/formats/bundle.md), as JSON (undefined when not given). */
export function parseTaskOption(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidInputError('--declared-task must be JSON, e.g. \'{"answerType":"short"}\'', { field: '--declared-task' });
  }
}
