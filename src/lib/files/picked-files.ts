/**
 * Files the user chose, with the path relative to what they picked: a file
 * input, a folder input (`webkitdirectory`) or a drag-and-drop of files and
 * folders. Importers match image paths in CSVs against these paths.
 */
import type { PickedFile } from '../../core/bundle/importer.ts';

/** From `<input type="file">`, with or without `webkitdirectory`. */
export function fromFileList(list: FileList | null): PickedFile[] {
  return [...(list ?? [])].map((file) => ({ path: file.webkitRelativePath || file.name, file }));
}

function readEntries(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  return new Promise((resolve, reject) => reader.readEntries(resolve, reject));
}

async function walk(entry: FileSystemEntry, prefix: string, out: PickedFile[]): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    out.push({ path: prefix + entry.name, file });
  } else if (entry.isDirectory) {
    const reader = (entry as FileSystemDirectoryEntry).createReader();
    // readEntries returns at most ~100 entries per call: keep reading until empty.
    for (let batch = await readEntries(reader); batch.length > 0; batch = await readEntries(reader)) {
      for (const child of batch) await walk(child, `${prefix}${entry.name}/`, out);
    }
  }
}

/** From a drop: folders are walked recursively. */
export async function fromDataTransfer(dt: DataTransfer): Promise<PickedFile[]> {
  const entries = [...dt.items].map((i) => i.webkitGetAsEntry?.()).filter((e): e is FileSystemEntry => !!e);
  if (entries.length === 0) return fromFileList(dt.files);
  const out: PickedFile[] = [];
  for (const e of entries) await walk(e, '', out);
  return out;
}
