import { openAsBlob, statSync } from 'node:fs';
import { basename } from 'node:path';
import { hashBlob } from '../../core/hash/hash-blob.ts';
import type { CliCommand } from '../command.ts';

/**
 * `neuroeval hash`: SHA-256 of files, computed by the same streaming code the
 * app uses to verify model files — so IT can check a USB copy before import.
 */
export const hashCommand: CliCommand = {
  name: 'hash',
  usage: 'hash <file…> [--json]',
  summary: 'Print the SHA-256 of files, as the app computes it for integrity checks',
  help: [
    'Usage: neuroeval hash <file…> [--json]',
    '',
    'Prints the SHA-256 of each file ("<hash>  <file>", like sha256sum), computed',
    'with the same streaming code the app uses to verify model files.',
    '',
    '  --json   Print a JSON array of { file, bytes, sha256 } instead',
  ].join('\n'),
  async run(args, io) {
    const json = args.includes('--json');
    const files = args.filter((a) => a !== '--json');
    if (files.length === 0) {
      io.err.write('neuroeval hash: give at least one file\n');
      return 2;
    }
    const results: { file: string; bytes: number; sha256: string }[] = [];
    for (const file of files) {
      let bytes: number;
      try {
        const st = statSync(file);
        if (!st.isFile()) throw new Error('not a regular file');
        bytes = st.size;
      } catch (error) {
        io.err.write(`neuroeval hash: ${file}: ${error instanceof Error ? error.message.replace(/^[A-Z]+: /, '') : String(error)}\n`);
        return 1;
      }
      const sha256 = await hashBlob(await openAsBlob(file));
      results.push({ file, bytes, sha256 });
      if (!json) io.out.write(`${sha256}  ${file}\n`);
    }
    if (json) io.out.write(`${JSON.stringify(results.map((r) => ({ ...r, name: basename(r.file) })), null, 2)}\n`);
    return 0;
  },
};
