/**
 * De-identification by keep-list. Rather than trying to remove every tag
 * that might identify a patient (names, IDs, dates, institutions, free text,
 * UIDs that link back to the hospital's archive, private vendor tags…), only
 * the few technical tags needed to render pixels are ever read into memory.
 * Everything else is dropped, and its name (never its value) is reported so
 * the user can see what was left behind.
 */
import { formatTag, isPrivateTag, tagKeyword, tagOf } from './dictionary.ts';

/** A tag the importer keeps, with the VR used to decode it when the file has none (implicit VR). */
export interface KeptTag {
  readonly tag: number;
  readonly keyword: string;
  readonly vr: string;
}

function kept(group: number, element: number, keyword: string, vr: string): KeptTag {
  return { tag: tagOf(group, element), keyword, vr };
}

/**
 * The complete list of tags read from a DICOM file. All are numeric or
 * coded technical values; none can hold a name, a date or free text.
 * Deliberately absent: SOP/Study/Series UIDs (link to the archive),
 * SeriesDescription/ProtocolName (free text that often contains names),
 * BodyPartExamined and all dates.
 */
export const KEPT_TAGS: readonly KeptTag[] = [
  // How the dataset is encoded; needed to decode it, identifies nothing.
  kept(0x0002, 0x0010, 'TransferSyntaxUID', 'UI'),
  // Chooses the default window (CT presets vs. MR auto-window).
  kept(0x0008, 0x0060, 'Modality', 'CS'),
  kept(0x0018, 0x0050, 'SliceThickness', 'DS'),
  kept(0x0018, 0x0088, 'SpacingBetweenSlices', 'DS'),
  // Slice order and geometry, to stack single-frame files into a series.
  kept(0x0020, 0x0013, 'InstanceNumber', 'IS'),
  kept(0x0020, 0x0032, 'ImagePositionPatient', 'DS'),
  kept(0x0020, 0x0037, 'ImageOrientationPatient', 'DS'),
  kept(0x0028, 0x0002, 'SamplesPerPixel', 'US'),
  kept(0x0028, 0x0004, 'PhotometricInterpretation', 'CS'),
  kept(0x0028, 0x0006, 'PlanarConfiguration', 'US'),
  kept(0x0028, 0x0008, 'NumberOfFrames', 'IS'),
  kept(0x0028, 0x0010, 'Rows', 'US'),
  kept(0x0028, 0x0011, 'Columns', 'US'),
  kept(0x0028, 0x0030, 'PixelSpacing', 'DS'),
  kept(0x0028, 0x0100, 'BitsAllocated', 'US'),
  kept(0x0028, 0x0101, 'BitsStored', 'US'),
  kept(0x0028, 0x0102, 'HighBit', 'US'),
  kept(0x0028, 0x0103, 'PixelRepresentation', 'US'),
  kept(0x0028, 0x1050, 'WindowCenter', 'DS'),
  kept(0x0028, 0x1051, 'WindowWidth', 'DS'),
  kept(0x0028, 0x1052, 'RescaleIntercept', 'DS'),
  kept(0x0028, 0x1053, 'RescaleSlope', 'DS'),
  kept(0x7fe0, 0x0010, 'PixelData', 'OW'),
];

const KEPT_BY_TAG: ReadonlyMap<number, KeptTag> = new Map(KEPT_TAGS.map((k) => [k.tag, k]));

/** The keep-list entry for a tag, or `undefined` if the tag is dropped. */
export function keptTag(tag: number): KeptTag | undefined {
  return KEPT_BY_TAG.get(tag);
}

/** One line of the "tags dropped" report. */
export interface DroppedTag {
  /** `(0010,0010)`, or `private` for the summary of all private tags. */
  readonly tag: string;
  /** Keyword such as `PatientName`; the tag number when the keyword is unknown; `private tags` for the summary. */
  readonly name: string;
  /** Elements this line stands for: 1, or the number of private tags. */
  readonly count: number;
}

/**
 * Group lengths (gggg,0000), item delimiters and trailing padding only
 * describe the encoding; listing them as "dropped" would only add noise.
 */
function isStructural(tag: number): boolean {
  return (tag & 0xffff) === 0 || tag >>> 16 === 0xfffe || tag === 0xfffcfffc;
}

/**
 * Collects the top-level tags a parse leaves behind. Values are never passed
 * in, so they cannot leak into the report.
 */
export class DroppedTagCollector {
  private readonly seen = new Set<number>();
  private readonly order: number[] = [];
  private privateCount = 0;

  /** Records a tag that was not kept. Kept tags and structural elements are ignored. */
  add(tag: number): void {
    if (KEPT_BY_TAG.has(tag) || isStructural(tag)) return;
    if (isPrivateTag(tag)) {
      this.privateCount++;
      return;
    }
    if (this.seen.has(tag)) return;
    this.seen.add(tag);
    this.order.push(tag);
  }

  /** The report, in file order, with private tags summarised as one line at the end. */
  list(): DroppedTag[] {
    const out: DroppedTag[] = this.order.map((tag) => ({ tag: formatTag(tag), name: tagKeyword(tag) ?? formatTag(tag), count: 1 }));
    if (this.privateCount > 0) out.push({ tag: 'private', name: 'private tags', count: this.privateCount });
    return out;
  }
}
