// Passwords of local accounts (docs/oauth.md): argon2id with OWASP's
// parameters (19 MiB, two passes, one lane), Node's own implementation,
// stored as a PHC string so the parameters can change later. An email with
// no password behind it is checked against a stand-in of the same parameters,
// so the time of a refusal does not tell whether the account exists.
import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';

const PARAMS = { memory: 19_456, passes: 2, parallelism: 1, tagLength: 32 };

const derive = (password: string, nonce: Buffer, p: typeof PARAMS) =>
  new Promise<Buffer>((resolve, reject) =>
    argon2('argon2id', { message: password, nonce, ...p }, (err, key) => (err ? reject(err) : resolve(key))),
  );

const phc = (nonce: Buffer, tag: Buffer) => {
  const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');
  return `$argon2id$v=19$m=${PARAMS.memory},t=${PARAMS.passes},p=${PARAMS.parallelism}$${b64(nonce)}$${b64(tag)}`;
};

export async function hashPassword(password: string): Promise<string> {
  const nonce = randomBytes(16);
  return phc(nonce, await derive(password, nonce, PARAMS));
}

/** What a missing password is checked against: today's parameters, a random tag no password gives. */
const STAND_IN = phc(randomBytes(16), randomBytes(PARAMS.tagLength));

const PHC = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

/**
 * Whether `password` is the one `stored` was made from. Anything else stored
 * (nothing: an unknown email or an account without a password) costs the
 * same hash, against the stand-in, and is false.
 */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const real = PHC.exec(stored ?? '');
  const m = real ?? (PHC.exec(STAND_IN) as RegExpExecArray);
  const expected = Buffer.from(m[5] as string, 'base64');
  const tag = await derive(password, Buffer.from(m[4] as string, 'base64'), {
    memory: Number(m[1]),
    passes: Number(m[2]),
    parallelism: Number(m[3]),
    tagLength: expected.length,
  });
  return real !== null && tag.length === expected.length && timingSafeEqual(tag, expected);
}
