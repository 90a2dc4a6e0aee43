/**
 * Stored names never come from the user's files: a DICOM export's file name
 * is often the patient's name or record number, and an image's path travels
 * into the database, run exports and bundle exports. Every image of a
 * finished bundle is renamed after its content hash, the name a stored
 * benchmark is exported under anyway, so import(export(x)) is unchanged.
 * Cases say what an image is through their own fields (sequence, plane,
 * slice, label), which is what the case browser shows.
 */
import type { Bundle, CaseImage } from './types.ts';

const EXT: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif' };

/** `images/<sha256>.<ext>`: the one name an image with this content and type is stored and exported under. */
export function neutralImagePath(sha256: string, mime: string | undefined): string {
  return `images/${sha256}.${EXT[mime ?? ''] ?? 'bin'}`;
}

/** The bundle with every image named by its hash (images must have been hashed: see finalize.ts). */
export function withNeutralImageNames(bundle: Bundle): Bundle {
  const images = new Map<string, Uint8Array>();
  const rename = (img: CaseImage): CaseImage => {
    const bytes = bundle.images.get(img.path);
    if (!img.sha256 || !bytes) return img;
    const path = neutralImagePath(img.sha256, img.mime);
    images.set(path, bytes);
    return { ...img, path };
  };
  const cases = bundle.cases.map((c) => ({ ...c, images: c.images.map(rename) }));
  return { ...bundle, cases, images };
}
