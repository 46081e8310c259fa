// How many failed sign-ins each key may have before its attempts wait, and
// how long they wait (docs/oauth.md, "Guessing passwords"). The counting is
// sign_in_take() in the gateway's Postgres, shared by every replica.
import { isIPv4, isIPv6 } from 'node:net';

export interface KeyPolicy {
  /** Failures that cost nothing: typos. */
  free: number;
  /** The wait after the last free failure; each failure after it doubles the wait... */
  firstMs: number;
  /** ...up to this. */
  longestMs: number;
  /** The count starts again after this long without a failure. */
  lapseMs: number;
}

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The keys of one attempt, in the order sign_in_take() takes them. */
export const SIGN_IN_POLICY = {
  /** One address guessing one account: held longest, and only that address is. */
  pair: { free: 5, firstMs: 5 * SECOND, longestMs: 15 * MINUTE, lapseMs: 24 * HOUR },
  /** One address trying many accounts (password spraying). */
  address: { free: 20, firstMs: 5 * SECOND, longestMs: 15 * MINUTE, lapseMs: HOUR },
  /**
   * One account guessed from many addresses: only slowed, a minute at most,
   * and never for an address that signed in to it within KNOWN_ADDRESS_MS.
   */
  account: { free: 10, firstMs: 5 * SECOND, longestMs: MINUTE, lapseMs: 15 * MINUTE },
} as const satisfies Record<string, KeyPolicy>;

/** How long an address that signed in to an account is not held by that account's lock. */
export const KNOWN_ADDRESS_MS = 30 * 24 * HOUR;

const ORDER = ['pair', 'address', 'account'] as const;
export type SignInKey = (typeof ORDER)[number];

/** An attempt's keys, in ORDER. */
export type SignInKeys = [pair: string, address: string, account: string];

/** The keys an attempt to sign in to `email` from `address` counts under. */
export function signInKeys(email: string, address: string): SignInKeys {
  const account = email.trim().toLowerCase().slice(0, 320);
  const from = clientAddress(address);
  return [`pair:${from} ${account}`, `address:${from}`, `account:${account}`];
}

/** The arrays sign_in_take() reads its policy from. */
export function policyArrays(): [number[], number[], number[], number[]] {
  const of = (field: keyof KeyPolicy) => ORDER.map((key) => SIGN_IN_POLICY[key][field]);
  return [of('free'), of('firstMs'), of('longestMs'), of('lapseMs')];
}

/** Which key held an attempt (sign_in_take's `held`, counted from 1). */
export const heldKey = (index: number): SignInKey => ORDER[index - 1] ?? 'pair';

/**
 * Who is guessing, as far as the address tells: an IPv4 address, or the /64
 * an IPv6 address is in (one machine may hold all of it). IPv4-mapped IPv6
 * is IPv4.
 */
export function clientAddress(raw: string | undefined): string {
  const address = (raw ?? '').replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return mapped;
  if (isIPv4(address) || !isIPv6(address)) return address || 'unknown';
  const [head = '', tail] = address.split('::');
  const groups = (part: string) => (part ? part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])) : []);
  const before = groups(head);
  const after = tail === undefined ? [] : groups(tail);
  const full = [...before, ...Array<string>(Math.max(0, 8 - before.length - after.length)).fill('0'), ...after];
  return `${full
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
