import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Where a credential can be used: the REST API, or the MCP server for agents. */
export const SURFACES = ['rest', 'mcp'] as const;
export type Surface = (typeof SURFACES)[number];

export const isSurface = (value: string): value is Surface => (SURFACES as readonly string[]).includes(value);

export type ParsedCredential =
  | { kind: 'api_key'; keyId: string; secret: string }
  | { kind: 'oauth_token'; token: string };

const KEY_ID = /^[a-z0-9]{16}$/;
const SECRET = /^[A-Za-z0-9_-]{43}$/;

/** Reads `ock_<keyId>.<secret>` or `oat_...`; anything else is not a credential. */
export function parseCredential(raw: string): ParsedCredential | undefined {
  if (raw.startsWith('ock_')) {
    const [keyId, secret, extra] = raw.slice(4).split('.');
    if (extra !== undefined || !keyId || !secret || !KEY_ID.test(keyId) || !SECRET.test(secret)) return undefined;
    return { kind: 'api_key', keyId, secret };
  }
  if (raw.startsWith('oat_') && raw.length > 4 && /^[A-Za-z0-9_.-]+$/.test(raw)) {
    return { kind: 'oauth_token', token: raw };
  }
  return undefined;
}

/**
 * The secret is 256 random bits, so a plain SHA-256 is enough to store it:
 * there is nothing to brute-force, unlike a password.
 */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

export function secretMatches(secret: string, storedHash: Uint8Array): boolean {
  const candidate = hashSecret(secret);
  return storedHash.length === candidate.length && timingSafeEqual(candidate, storedHash);
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A new key: the full credential is shown once; only `keyId` and the hash are stored. */
export function mintApiKey(): { keyId: string; secret: string; credential: string; secretHash: Buffer } {
  // Bytes of 252 and above are skipped so every character is equally likely (252 = 7 × 36).
  let keyId = '';
  while (keyId.length < 16) {
    for (const byte of randomBytes(32)) {
      if (byte < 252 && keyId.length < 16) keyId += ALPHABET[byte % 36];
    }
  }
  const secret = randomBytes(32).toString('base64url');
  return { keyId, secret, credential: `ock_${keyId}.${secret}`, secretHash: hashSecret(secret) };
}

/**
 * The one `Bearer` credential of a request, or why there is none. Node folds a
 * repeated Authorization header into the first, so the raw headers are counted.
 */
export function bearerFrom(rawHeaders: string[]): { credential: string } | { problem: string } {
  const values: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() === 'authorization') values.push(rawHeaders[i + 1] ?? '');
  }
  if (values.length === 0) return { problem: 'missing' };
  if (values.length > 1) return { problem: 'multiple' };
  const match = /^Bearer ([^\s,]+)$/i.exec(values[0]?.trim() ?? '');
  if (!match?.[1]) return { problem: 'malformed' };
  return { credential: match[1] };
}

/** A cookie's value from a request's Cookie header, by name; the first when it is sent twice. */
export function cookieFrom(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
