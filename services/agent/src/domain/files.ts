// A run's files at rest: sealed under the run (libs/sealed), so a blob moved
// to another run, or read without the fleet's key, opens nothing.
import { randomBytes } from 'node:crypto';
import { seal, unseal } from '@wap/sealed';

const PURPOSE = 'wap agent file v1';

/** A handle the model and the caller name a file by: random, never a path. */
export const newFileHandle = (): string => `file_${randomBytes(12).toString('base64url')}`;

export const sealFile = (key: string, runId: string, bytes: Uint8Array): Uint8Array<ArrayBuffer> =>
  new Uint8Array(seal(key, PURPOSE, runId, Buffer.from(bytes)));

export const unsealFile = (key: string, runId: string, sealed: Uint8Array): Buffer =>
  unseal(key, PURPOSE, runId, Buffer.from(sealed));
