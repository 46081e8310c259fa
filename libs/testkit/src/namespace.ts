import { randomBytes } from 'node:crypto';

/** A NATS namespace no other test shares (streams and subjects are prefixed with it). */
export const uniqueNamespace = (tag: string): string => `${tag}_${randomBytes(4).toString('hex')}_`;
