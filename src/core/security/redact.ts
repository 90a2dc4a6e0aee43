/**
 * Secrets out of text that came back from somewhere else. A server's error
 * message, a proxy's error page or a model's answer can repeat the request's
 * `Authorization` header ("400 Bad Request: Invalid header: Bearer sk-…"),
 * and such text is stored, journaled and exported. Every string an endpoint
 * returns goes through {@link redactSecrets} before anything keeps it: the
 * configured key wherever it appears, and any `Bearer <token>`, whoever's
 * token it is.
 */

/** What a secret is replaced with. */
export const REDACTED = '[redacted]';

/** Characters of a bearer token (RFC 6750's b64token). */
const TOKEN_CHARS = 'A-Za-z0-9\\-._~+/';
/** "Bearer" and a token: capitalised as in the header, so "the bearer of" is prose, not a credential. */
const BEARER = new RegExp(`\\bBearer(\\s+)([${TOKEN_CHARS}]+=*)`, 'g');
/** A bearer token still being written at the end of a stream. */
const OPEN_BEARER = new RegExp(`\\bBearer(\\s+[${TOKEN_CHARS}]*=*)?$`);

/** A word after "Bearer" that is a token rather than English: long, or holding a digit or a token's punctuation. */
function looksLikeToken(word: string): boolean {
  return word.length >= 20 || (word.length >= 8 && /[0-9\-._~+/=]/.test(word));
}

/** Keys too short to search for without destroying ordinary text are not searched for (a server takes no such key anyway). */
const MIN_SECRET_LENGTH = 6;

function usable(secrets: readonly string[]): string[] {
  return secrets.filter((s) => s.length >= MIN_SECRET_LENGTH);
}

function replaceSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

function replaceBearer(text: string): string {
  return text.replace(BEARER, (whole, space: string, token: string) => (looksLikeToken(token) ? `Bearer${space}${REDACTED}` : whole));
}

/** `text` with every configured secret and every `Bearer <token>` replaced by {@link REDACTED}. */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  return replaceBearer(replaceSecrets(text, usable(secrets)));
}

/**
 * The same for text that arrives in pieces (a streamed answer): each push
 * returns what can be shown now, holding back an end that could still grow
 * into a secret (the first letters of the key, an open "Bearer …"), so no
 * piece ever shows part of one. {@link end} returns the rest.
 */
export class StreamRedactor {
  readonly #secrets: string[];
  #held = '';

  constructor(secrets: readonly string[] = []) {
    this.#secrets = usable(secrets);
  }

  push(piece: string): string {
    const text = replaceSecrets(this.#held + piece, this.#secrets);
    let cut = text.length;
    for (const s of [...this.#secrets, 'Bearer']) {
      for (let k = Math.min(s.length - 1, text.length); k > 0; k--) {
        if (text.endsWith(s.slice(0, k))) {
          cut = Math.min(cut, text.length - k);
          break;
        }
      }
    }
    const open = OPEN_BEARER.exec(text);
    if (open) cut = Math.min(cut, open.index);
    // A cut inside a finished "Bearer <token>" would show its first half: cut before it instead.
    for (const m of text.matchAll(BEARER)) if (m.index < cut && m.index + m[0].length > cut) cut = m.index;
    this.#held = text.slice(cut);
    return replaceBearer(text.slice(0, cut));
  }

  end(): string {
    const rest = redactSecrets(this.#held, this.#secrets);
    this.#held = '';
    return rest;
  }
}
