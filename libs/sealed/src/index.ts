// Secrets and private state at rest: AES-256-GCM under a key derived with
// HKDF-SHA256 from a fleet secret and what the bytes belong to (a profile,
// a monitor's target), so one owner's key opens nothing else. The owner is
// also bound in as additional data: a blob moved to another owner fails.
// The blob is version (1 byte) | nonce (12) | tag (16) | ciphertext.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 1;
const NONCE = 12;
const TAG = 16;

const keyOf = (secret: string, owner: string, purpose: string) =>
  Buffer.from(hkdfSync('sha256', secret, owner, purpose, 32));

/** `purpose` names the kind of thing sealed (`wap profile state v1`): keys differ per purpose and per owner. */
export function seal(secret: string, purpose: string, owner: string, plain: Buffer): Buffer {
  const nonce = randomBytes(NONCE);
  const cipher = createCipheriv('aes-256-gcm', keyOf(secret, owner, purpose), nonce);
  cipher.setAAD(Buffer.from(owner));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), nonce, cipher.getAuthTag(), body]);
}

/** The plain bytes; throws when the blob was changed, is another owner's, or was sealed with another key. */
export function unseal(secret: string, purpose: string, owner: string, blob: Buffer): Buffer {
  if (blob.length < 1 + NONCE + TAG || blob[0] !== VERSION) throw new Error('not a sealed blob');
  const nonce = blob.subarray(1, 1 + NONCE);
  const tag = blob.subarray(1 + NONCE, 1 + NONCE + TAG);
  const decipher = createDecipheriv('aes-256-gcm', keyOf(secret, owner, purpose), nonce);
  decipher.setAAD(Buffer.from(owner));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(blob.subarray(1 + NONCE + TAG)), decipher.final()]);
}

/** A string sealed and written as base64url, for a text column. */
export const sealText = (secret: string, purpose: string, owner: string, text: string) =>
  seal(secret, purpose, owner, Buffer.from(text, 'utf8')).toString('base64url');

export const unsealText = (secret: string, purpose: string, owner: string, sealed: string) =>
  unseal(secret, purpose, owner, Buffer.from(sealed, 'base64url')).toString('utf8');
