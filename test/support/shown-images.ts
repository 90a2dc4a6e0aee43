/**
 * What a person sees against what is stored: the pixels of every image on
 * screen and the pixels of a case's stored images (each decoded by the same
 * browser, then hashed), after checking that every stored asset's bytes hash
 * to the SHA-256 the case names. A screen shows a case's images when the two
 * lists are equal. Pixels, not the bytes behind the `blob:` URLs: the app's
 * Content Security Policy (rightly) lets no script fetch a `blob:` URL.
 */
import type { Locator, Page } from '@playwright/test';

/** SHA-256 (hex) of the decoded pixels of each `<img>` inside `scope`, in document order (waits for each to load). */
export async function shownImageHashes(scope: Locator): Promise<string[]> {
  return scope.locator('img').evaluateAll(async (imgs) => {
    const out: string[] = [];
    for (const img of imgs as HTMLImageElement[]) {
      await img.decode();
      const canvas = new OffscreenCanvas(img.naturalWidth, img.naturalHeight);
      const ctx = canvas.getContext('2d')!;
      ctx.drawImage(img, 0, 0);
      const pixels = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
      out.push([...new Uint8Array(await crypto.subtle.digest('SHA-256', pixels))].map((x) => x.toString(16).padStart(2, '0')).join(''));
    }
    return out;
  });
}

/** SHA-256 of the decoded pixels of a case's stored images, after checking each stored asset's bytes against the hash the case names. */
export async function storedCaseImageHashes(page: Page, benchmarkId: string, caseId: string): Promise<string[]> {
  return page.evaluate(async ({ benchmarkId, caseId }) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open('neuroeval');
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const get = <T,>(store: string, key: IDBValidKey) =>
      new Promise<T | undefined>((resolve, reject) => {
        const req = db.transaction(store).objectStore(store).get(key);
        req.onsuccess = () => resolve(req.result as T | undefined);
        req.onerror = () => reject(req.error);
      });
    try {
      const kase = await get<{ images: { sha256?: string }[] }>('cases', [benchmarkId, caseId]);
      if (!kase) throw new Error(`no stored case ${caseId} in ${benchmarkId}`);
      const hex = (b: ArrayBuffer) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, '0')).join('');
      const out: string[] = [];
      for (const img of kase.images) {
        const asset = await get<{ blob: Blob }>('assets', img.sha256!);
        if (!asset) throw new Error(`case ${caseId}: no stored asset ${img.sha256}`);
        const actual = hex(await crypto.subtle.digest('SHA-256', await asset.blob.arrayBuffer()));
        if (actual !== img.sha256) throw new Error(`case ${caseId}: asset ${img.sha256} holds bytes hashing to ${actual}`);
        const bitmap = await createImageBitmap(asset.blob);
        const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
        const ctx = canvas.getContext('2d')!;
        ctx.drawImage(bitmap, 0, 0);
        out.push(hex(await crypto.subtle.digest('SHA-256', ctx.getImageData(0, 0, canvas.width, canvas.height).data)));
      }
      return out;
    } finally {
      db.close();
    }
  }, { benchmarkId, caseId });
}
