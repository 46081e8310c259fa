// Envelope encryption of stored secrets (docs/secrets.md): every value is
// sealed with a data key of its own (AES-256-GCM, libs/sealed), and only that
// data key is wrapped by the key-encryption key (KEK). The KEK sits behind an
// interface a KMS can implement: it sees 32 random bytes per secret, never a
// value. Both layers bind the secret's context (workspace and id) as additional
// data, so a ciphertext or a wrapped key moved to another row opens nothing.
import { createHash, randomBytes } from 'node:crypto';
import { seal, unseal } from '@wap/sealed';

/** What wraps and unwraps data keys: the local key below, or a KMS. */
export interface KeyEncryptionKey {
  /** Names this key; stored beside each wrapped key, so a rotation can tell old from new. */
  readonly id: string;
  wrap(dataKey: Buffer, context: string): Promise<Buffer>;
  /** Throws when `wrapped` was changed, belongs to another context, or was wrapped by another key. */
  unwrap(wrapped: Buffer, context: string): Promise<Buffer>;
}

const WRAP_PURPOSE = 'wap agent secret data key v1';
const VALUE_PURPOSE = 'wap agent secret value v1';

/**
 * A KEK from a fleet secret (AGENT_SECRETS_KEY): the data key sealed under a
 * key derived from it. Its id is a fingerprint of the secret, so a replica
 * started with another secret says so rather than failing to open every value.
 */
export function localKek(secret: string): KeyEncryptionKey {
  const id = `local:${createHash('sha256').update(`wap agent kek id:${secret}`).digest('hex').slice(0, 16)}`;
  return {
    id,
    wrap: async (dataKey, context) => seal(secret, WRAP_PURPOSE, context, dataKey),
    unwrap: async (wrapped, context) => unseal(secret, WRAP_PURPOSE, context, wrapped),
  };
}

/** A value at rest: its ciphertext, its wrapped data key, and which KEK wrapped it. */
export interface Envelope {
  sealed: Buffer;
  wrappedKey: Buffer;
  kekId: string;
}

/** Seals `plain` under a new data key, wrapped by `kek`; `context` names the row (`<workspace>/<secret>`). */
export async function sealEnvelope(kek: KeyEncryptionKey, context: string, plain: Buffer): Promise<Envelope> {
  const dataKey = randomBytes(32);
  try {
    const sealed = seal(dataKey.toString('base64'), VALUE_PURPOSE, context, plain);
    return { sealed, wrappedKey: await kek.wrap(dataKey, context), kekId: kek.id };
  } finally {
    dataKey.fill(0);
  }
}

/** The plain value; throws when any part was changed, moved, or wrapped by a KEK other than `kek`. */
export async function openEnvelope(kek: KeyEncryptionKey, context: string, envelope: Envelope): Promise<Buffer> {
  if (envelope.kekId !== kek.id) throw new Error(`wrapped by ${envelope.kekId}, not by ${kek.id}`);
  const dataKey = await kek.unwrap(envelope.wrappedKey, context);
  try {
    return unseal(dataKey.toString('base64'), VALUE_PURPOSE, context, envelope.sealed);
  } finally {
    dataKey.fill(0);
  }
}
