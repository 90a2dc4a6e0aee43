import { existsSync } from 'node:fs';
import { InvalidInputError, formatLocation } from '../../core/errors.ts';
import { KEEP_DESCRIPTIONS_OPTION } from '../../core/bundle/dicom-meta.ts';
import { prepareImport } from '../../core/importers/import-pipeline.ts';
import type { Bundle } from '../../core/bundle/types.ts';
import { formatBytes } from '../../core/text/units.ts';
import type { CliCommand } from '../command.ts';
import { inputFilesFrom } from '../files.ts';
import { parseMappingOption, parseTaskOption, parseZipLimitsOption } from '../mapping-option.ts';

/** Splits arguments into paths and the values of `--format` / `--mapping`. */
interface ParsedArgs {
  targets: string[];
  json: boolean;
  kind?: string;
  mapping?: string;
  /** The task declared for a generic import (answer type, prompt, scorer), as JSON. */
  task?: string;
  /** The split to read where the files hold several (Hugging Face's `test-00000-of-00001.parquet`). */
  split?: string;
  /** ZIP limits as JSON (see core/bundle/zip-read.ts), over the defaults. */
  zipLimits?: string;
  /** DICOM/NIfTI rendering options (see core/bundle/medical-images.ts). */
  image: Record<string, unknown>;
}

function parseArgs(args: readonly string[]): ParsedArgs {
  const out: ParsedArgs = { targets: [], json: false, image: {} };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--json') out.json = true;
    else if (a === '--format') out.kind = args[++i];
    else if (a === '--mapping') out.mapping = args[++i];
    else if (a === '--declared-task') out.task = args[++i];
    else if (a === '--split') out.split = args[++i];
    else if (a === '--zip-limits') out.zipLimits = args[++i];
    else if (a === '--dicom-frames') out.image.dicomFrames = args[++i];
    else if (a === '--nifti-plane') out.image.niftiPlane = args[++i];
    else if (a === '--window') out.image.window = args[++i];
    else if (a === '--accept-burned-in') out.image.acceptBurnedInAnnotation = true;
    else if (a === '--keep-dicom-descriptions') out.image[KEEP_DESCRIPTIONS_OPTION] = true;
    else if (a === '--series-plane') out.image.seriesPlane = args[++i];
    else if (a === '--series-slices') {
      const v = args[++i] ?? '';
      out.image.seriesSlices = v === 'middle' || v === 'all' ? v : v.split(',').map((x) => Number(x.trim()));
    }
    else if (a === '--nifti-slices') {
      const v = args[++i] ?? '';
      out.image.niftiSlices = v === 'middle' ? 'middle' : v.split(',').map((x) => Number(x.trim()));
    } else out.targets.push(a);
  }
  return out;
}

/** Every stored image, by case, with the SHA-256 of its bytes: what another tool's rendering can be compared with. */
function storedImages(bundle: Bundle, inputs: Readonly<Record<string, string>>) {
  return bundle.cases.flatMap((c) =>
    c.images.map((img) => ({
      case: c.id,
      sha256: img.sha256,
      mime: img.mime,
      width: img.width,
      height: img.height,
      ...(img.plane !== undefined ? { plane: img.plane } : {}),
      ...(img.slice !== undefined ? { slice: img.slice } : {}),
      ...(img.source?.frame !== undefined ? { frame: img.source.frame } : {}),
      ...(img.source?.window ? { window: img.source.window } : {}),
      ...(img.sha256 && inputs[img.sha256] !== undefined ? { input: inputs[img.sha256] } : {}),
    })),
  );
}

/**
 * `neuroeval validate`: what importing these files in the app would store, from
 * the same import code, without storing anything.
 */
export const validateCommand: CliCommand = {
  name: 'validate',
  usage: 'validate <file-or-folder…> [--json]',
  summary: 'Check benchmark files and print what an import would store',
  help: [
    'Usage: neuroeval validate <file-or-folder…> [options]',
    '',
    'Reads benchmark files exactly as the app imports them and prints what would be',
    'stored: cases, images, counts per split, task and disease group, warnings, and',
    'errors with file, line and field. Exits 1 when there are errors.',
    '',
    'Inputs: a NeuroEval bundle (.zip or folder), a Neural-MedBench JSON (add the',
    'answer key as a second file), a NeuroVLM-Bench CSV plus the image folder, a',
    'VLMEvalKit TSV, a CSV, JSONL, JSON array or Parquet file with --mapping (Hugging',
    'Face layouts: image structs, option lists, split files), or DICOM alone: one file,',
    'a study or series folder, or a ZIP of them (one case per series).',
    '',
    'Options:',
    '  --json              Print the result as JSON; "images" lists every stored image',
    '                      with the SHA-256 of its PNG and the input file it came from',
    '  --format <kind>     Use this importer instead of detecting one (neuroeval-bundle,',
    '                      neural-medbench, neurovlm-bench, vlmevalkit, generic)',
    '  --mapping <json>    Column mapping for the generic importer, e.g.',
    '                      \'{"id":"case","question":"prompt","image":"file"}\'',
    '  --declared-task <json>  The task of a generic import, declared instead of',
    '                      coded (docs/formats/bundle.md), e.g. \'{"answerType":"short"}\'',
    '  --split <name>      The split to read when the files hold several (train,',
    '                      validation, test…: every shard of it is read)',
    '  --dicom-frames <middle|first|all>       Frames of multi-frame DICOM to render',
    '  --nifti-plane <axial|coronal|sagittal>  Plane of NIfTI slices (default axial)',
    '  --nifti-slices <middle|10,12,14>        NIfTI slices to render (default middle)',
    '  --series-plane <acquired|axial|coronal|sagittal>  Plane of DICOM series slices',
    '  --series-slices <middle|all|10,12,14>   DICOM series slices (0 = first along',
    '                      the slice normal; default middle)',
    '  --window <file|brain|stroke|subdural|bone|auto>  Window of the rendered PNG',
    '  --zip-limits <json>  Raise or lower the ZIP limits (docs/formats/bundle.md), e.g.',
    '                      \'{"maxRatio":500,"maxTotalBytes":4294967296}\'',
    '  --accept-burned-in  Import DICOM marked BurnedInAnnotation YES, secondary',
    '                      captures and screenshots (refused by default: text in the',
    '                      pixels survives tag removal)',
    '  --keep-dicom-descriptions  Keep DICOM protocol and sequence names, series, study',
    '                      and procedure descriptions and the contrast agent, cleaned of',
    '                      the patient\'s name, IDs and dates (dropped by default)',
  ].join('\n'),
  async run(args, io) {
    const { targets, json, kind, mapping: mappingText, task: taskText, split, zipLimits: zipLimitsText, image } = parseArgs(args);
    if (targets.length === 0) {
      io.err.write('neuroeval validate: give a file or folder to check\n');
      return 2;
    }
    for (const t of targets) {
      if (!existsSync(t)) {
        io.err.write(`neuroeval validate: ${t}: no such file or folder\n`);
        return 2;
      }
    }
    let mapping: unknown;
    let task: unknown;
    let zipLimits: unknown;
    try {
      mapping = parseMappingOption(mappingText);
      task = parseTaskOption(taskText);
      zipLimits = parseZipLimitsOption(zipLimitsText);
    } catch (e) {
      if (!(e instanceof InvalidInputError)) throw e;
      io.err.write(`neuroeval validate: ${e.message}\n`);
      return 2;
    }
    const files = targets.flatMap((t) => inputFilesFrom(t));
    const preview = await prepareImport(files, { ...(kind ? { kind } : {}), options: { ...image, ...(mapping ? { mapping } : {}), ...(task ? { task } : {}), ...(split ? { split } : {}), ...(zipLimits ? { zipLimits } : {}) } });
    if (json) {
      // The salt never leaves the import: printing it would let anyone recompute the keys from a hospital's IDs.
      const { bundle, keySalt: _s, imageInputs, ...rest } = preview;
      io.out.write(`${JSON.stringify({ ...rest, images: bundle ? storedImages(bundle, imageInputs ?? {}) : [] }, null, 2)}\n`);
      return preview.ok ? 0 : 1;
    }
    const out: string[] = [`Format: ${preview.importer.label}`];
    if (preview.manifest) out.push(`Benchmark: ${preview.manifest.name} ${preview.manifest.version} (${preview.manifest.license})${preview.manifest.synthetic ? ' — synthetic' : ''}`, `Content hash: ${preview.manifest.contentHash}`);
    if (preview.summary) {
      const s = preview.summary;
      out.push(`Would store ${s.cases} cases, ${s.questions} questions, ${s.images} images (${(s.imageBytes / 1024 / 1024).toFixed(1)} MB), ${s.files} other file${s.files === 1 ? '' : 's'} (${formatBytes(s.fileBytes)}).`);
      for (const [title, counts] of [['Split', s.bySplit], ['Task family', s.byTaskFamily], ['Disease group', s.byDiseaseGroup], ['Modality', s.byModality]] as const) {
        out.push(`${title}: ${Object.entries(counts).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ')}`);
      }
    }
    if (preview.skipped.length) {
      out.push(`Skipped ${preview.skipped.length} case(s):`);
      for (const s of preview.skipped.slice(0, 50)) out.push(`  ${formatLocation(s.location) || s.id}: ${s.reason}`);
      if (preview.skipped.length > 50) out.push(`  …and ${preview.skipped.length - 50} more`);
    }
    if (preview.droppedTags.length) out.push(`DICOM tags dropped (never stored): ${preview.droppedTags.map((t) => t.keyword).join(', ')}`);
    if (preview.removedMetadata.length) out.push(`Image metadata removed (never stored): ${preview.removedMetadata.map((r) => `${r.kind} (${r.images} image${r.images === 1 ? '' : 's'})`).join(', ')}`);
    for (const w of preview.warnings) out.push(`warning: ${formatLocation(w.location) ? `${formatLocation(w.location)}: ` : ''}${w.message}`);
    for (const e of preview.errors) out.push(`error: ${formatLocation(e.location) ? `${formatLocation(e.location)}: ` : ''}${e.message}`);
    out.push(preview.ok ? 'OK: the import would succeed.' : `FAILED: ${preview.errors.length} error(s); nothing would be stored.`);
    io.out.write(`${out.join('\n')}\n`);
    return preview.ok ? 0 : 1;
  },
};
