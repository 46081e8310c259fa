// What a secret is, apart from where it is kept: its kinds, the value each
// holds, and the hosts it may be used on.
import { isIP } from 'node:net';

export const SECRET_KINDS = ['card', 'login', 'env'] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

/** A value as the run loop receives it from a redeemed intent, and nothing else does. */
export type SecretValue =
  | { kind: 'card'; number: string; expMonth: number; expYear: number; holder: string }
  | { kind: 'login'; username: string; password: string }
  | { kind: 'env'; value: string };

/** The purpose a purchase's CVC is sealed under (for its run alone) while it waits for its one fill. */
export const CVC_PURPOSE = 'wap purchase cvc v1';

/** What a handle may be: a name a task and a model can write, never a value. */
export const HANDLE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * A host as a domains list keeps it (lower case, IDNs in punycode, no trailing
 * dot, IPv6 in brackets); undefined for anything that is not a bare host.
 */
export function normaliseHost(input: string): string | undefined {
  const text = input.trim();
  if (!text || /[/?#@\s:]/.test(text.replace(/^\[.*\]$/, '[]'))) return undefined;
  let host: string;
  try {
    host = new URL(`http://${text}/`).hostname.replace(/\.$/, '');
  } catch {
    return undefined;
  }
  if (isIP(host.replace(/^\[|\]$/g, '')) !== 0) return host;
  return /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(host) && host.length <= 253
    ? host
    : undefined;
}

/**
 * Whether `host` is one of `domains` or under one of them: `example.com`
 * covers `shop.example.com`; an address covers only itself.
 */
export function hostAllowed(host: string, domains: readonly string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return domains.some((d) => h === d || (isIP(d.replace(/^\[|\]$/g, '')) === 0 && h.endsWith(`.${d}`)));
}

/**
 * Whether `text` shows what `value` keeps secret: a card's number (however its
 * digits are grouped), a login's password, an env value. A user name is not
 * secret; a part shorter than 4 characters would match by chance and is not looked for.
 */
export function reveals(value: SecretValue, text: string): boolean {
  switch (value.kind) {
    case 'card':
      return text.replace(/[\s-]/g, '').includes(value.number);
    case 'login':
      return value.password.length >= 4 && text.includes(value.password);
    case 'env':
      return value.value.length >= 4 && text.includes(value.value);
  }
}
