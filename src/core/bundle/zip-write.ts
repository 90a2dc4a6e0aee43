/**
 * Writes a bundle as a ZIP: manifest.json, cases.jsonl, images/, prompts/.
 * Entries are in a fixed order with a fixed timestamp, so the same bundle
 * always produces the same bytes.
 */
import { zipSync, type Zippable } from 'fflate';
import type { Bundle } from './types.ts';

/** 1980-01-01, the earliest time a ZIP can hold: nothing about the export moment leaks into the file. */
const FIXED_MTIME = new Date(1980, 0, 1, 0, 0, 0);

/** Serialises cases one JSON object per line. */
function casesToJsonl(bundle: Pick<Bundle, 'cases'>): string {
  return bundle.cases.map((c) => JSON.stringify(c)).join('\n') + (bundle.cases.length ? '\n' : '');
}

export function writeBundleZip(bundle: Bundle): Uint8Array {
  const enc = new TextEncoder();
  const files: Zippable = {};
  files['manifest.json'] = [enc.encode(JSON.stringify(bundle.manifest, null, 2) + '\n'), { level: 6, mtime: FIXED_MTIME }];
  files['cases.jsonl'] = [enc.encode(casesToJsonl(bundle)), { level: 6, mtime: FIXED_MTIME }];
  for (const path of [...bundle.files.keys()].sort()) files[path] = [bundle.files.get(path)!, { level: 6, mtime: FIXED_MTIME }];
  // Images are already compressed (PNG/JPEG): storing them is as small and much faster.
  for (const path of [...bundle.images.keys()].sort()) files[path] = [bundle.images.get(path)!, { level: 0, mtime: FIXED_MTIME }];
  return zipSync(files);
}
