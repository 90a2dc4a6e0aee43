import { InvalidInputError } from '../core/errors.ts';

/** An option given as JSON on the command line (undefined when not given); not JSON is an error naming the option, with an example. */
export function parseJsonOption(text: string | undefined, flag: string, example: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidInputError(`${flag} must be JSON, e.g. '${example}'`, { field: flag });
  }
}

/** `--mapping '{…}'`: a generic import's column mapping. */
export const parseMappingOption = (text: string | undefined): unknown => parseJsonOption(text, '--mapping', '{"id":"case","question":"prompt"}');

/** `--declared-task '{…}'`: the task a generic import declares (docs/formats/bundle.md). */
export const parseTaskOption = (text: string | undefined): unknown => parseJsonOption(text, '--declared-task', '{"answerType":"short"}');

/** `--zip-limits '{…}'`: ZIP limits over the defaults (core/bundle/zip-read.ts). */
export const parseZipLimitsOption = (text: string | undefined): unknown => parseJsonOption(text, '--zip-limits', '{"maxRatio":500}');
