// A profile's stored state sealed at rest (docs/profiles.md): AES-256-GCM
// under a key derived with HKDF-SHA256 from the fleet's PROFILE_KEY and the
// profile id, so one profile's key opens no other. The blob is
// version (1 byte) | nonce (12) | tag (16) | ciphertext; the profile id is
// bound in as additional data, so a blob moved to another profile fails.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 1;
const NONCE = 12;
const TAG = 16;

const keyOf = (secret: string, profileId: string) =>
  Buffer.from(hkdfSync('sha256', secret, profileId, 'wap profile state v1', 32));

export function seal(secret: string, profileId: string, plain: Buffer): Buffer {
  const nonce = randomBytes(NONCE);
  const cipher = createCipheriv('aes-256-gcm', keyOf(secret, profileId), nonce);
  cipher.setAAD(Buffer.from(profileId));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), nonce, cipher.getAuthTag(), body]);
}

/** The plain bytes; throws when the blob was changed, is another profile's, or was sealed with another key. */
export function unseal(secret: string, profileId: string, blob: Buffer): Buffer {
  if (blob.length < 1 + NONCE + TAG || blob[0] !== VERSION) throw new Error('not a sealed profile state');
  const nonce = blob.subarray(1, 1 + NONCE);
  const tag = blob.subarray(1 + NONCE, 1 + NONCE + TAG);
  const decipher = createDecipheriv('aes-256-gcm', keyOf(secret, profileId), nonce);
  decipher.setAAD(Buffer.from(profileId));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(blob.subarray(1 + NONCE + TAG)), decipher.final()]);
}
