import type { EngineImage } from '../engine.ts';

/** Base64 of bytes without Node's Buffer (runs in workers too), chunked to avoid call-stack limits. */
function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function toDataUrl(image: EngineImage): string {
  return `data:${image.mime};base64,${toBase64(image.bytes)}`;
}
