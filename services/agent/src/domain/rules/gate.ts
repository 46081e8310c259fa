// A gate: what one enforced workspace rule holds the dispatcher to, checked
// before each action (check.ts). The schema is strict, so a gate proposed by a
// model or read back from storage is either one of these shapes exactly or
// nothing. `canonicalGate` orders its lists, so equal rules are equal values.
import { z } from 'zod';
import { isCurrency } from '../currencies.js';
import { isDomainPattern } from './domains.js';

/** Actions a gate may forbid or hold for approval; the dispatcher names them (check.ts). */
export const GATED_ACTIONS = ['download', 'fill_secret', 'purchase', 'submit', 'upload'] as const;
export type GatedAction = (typeof GATED_ACTIONS)[number];

const domain = z.string().max(253).refine(isDomainPattern, 'a domain such as example.com or *.example.com');
const domains = z.array(domain).min(1).max(50);
const actions = z.array(z.enum(GATED_ACTIONS)).min(1).max(GATED_ACTIONS.length);
const amount = z.number().min(0).max(1e9);
const currency = z
  .string()
  .regex(/^[A-Z]{3}$/)
  .refine(isCurrency, 'an ISO 4217 currency code');

/** A merchant's name as gates hold it and purchases are matched: "Macy's" → "macys", "Best  Buy" → "best buy". */
export const merchantName = (name: string): string =>
  name
    .toLowerCase()
    .replace(/'/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/** A merchant by domain (`amazon.com`) or by name as `merchantName` writes it (`best buy`). */
const merchant = z
  .string()
  .max(100)
  .refine((m) => isDomainPattern(m) || (m !== '' && merchantName(m) === m), 'a merchant domain or name');

export const money = z.strictObject({ amount, currency });
export type Money = z.infer<typeof money>;

export const gateSchema = z.discriminatedUnion('kind', [
  /** Every action is on one of `domains`. */
  z.strictObject({ kind: z.literal('domain_allow'), domains }),
  /** No action is on any of `domains`. */
  z.strictObject({ kind: z.literal('domain_deny'), domains }),
  /** None of `actions`, on `domains` or anywhere. */
  z.strictObject({ kind: z.literal('forbid'), actions, domains: domains.optional() }),
  /** `actions` (on `domains`, purchases `over` an amount) wait for a person's approval. */
  z
    .strictObject({ kind: z.literal('approval'), actions, domains: domains.optional(), over: money.optional() })
    .refine((g) => !g.over || (g.actions.length === 1 && g.actions[0] === 'purchase'), {
      message: 'over applies to purchases only',
      path: ['over'],
    }),
  /** The run spends at most `credits` of the platform's credits. */
  z.strictObject({ kind: z.literal('credit_cap'), credits: amount }),
  /** The run's purchases total at most `amount` in `currency`. */
  z.strictObject({ kind: z.literal('spend_cap'), amount, currency }),
  /** Each purchase is at most `amount` in `currency`. */
  z.strictObject({ kind: z.literal('purchase_limit'), amount, currency }),
  /** Purchases only from `merchants`. */
  z.strictObject({ kind: z.literal('merchant_allow'), merchants: z.array(merchant).min(1).max(50) }),
  /** No purchase from `merchants`. */
  z.strictObject({ kind: z.literal('merchant_deny'), merchants: z.array(merchant).min(1).max(50) }),
  /** A secret (`handle`, or any) is filled only on `domains`, or `own`: the domains the secret was saved for. */
  z.strictObject({
    kind: z.literal('secret_domains'),
    handle: z
      .string()
      .regex(/^[A-Za-z0-9_:.-]{1,100}$/)
      .optional(),
    domains: z.union([domains, z.literal('own')]),
  }),
  /** The run takes at most `steps` steps. */
  z.strictObject({ kind: z.literal('max_steps'), steps: z.number().int().min(1).max(10_000) }),
  /** The run makes at most `purchases` purchases. */
  z.strictObject({ kind: z.literal('max_purchases'), purchases: z.number().int().min(0).max(1_000) }),
]);
export type Gate = z.infer<typeof gateSchema>;
export type GateKind = Gate['kind'];

const sorted = <T extends string>(list: readonly T[]): T[] => [...new Set(list)].sort();

/** The gate with its lists deduplicated and sorted: two wordings of one rule give equal gates. */
export function canonicalGate(gate: Gate): Gate {
  switch (gate.kind) {
    case 'domain_allow':
    case 'domain_deny':
      return { ...gate, domains: sorted(gate.domains) };
    case 'forbid':
    case 'approval':
      return { ...gate, actions: sorted(gate.actions), ...(gate.domains && { domains: sorted(gate.domains) }) };
    case 'merchant_allow':
    case 'merchant_deny':
      return { ...gate, merchants: sorted(gate.merchants) };
    case 'secret_domains':
      return { ...gate, domains: gate.domains === 'own' ? 'own' : sorted(gate.domains) };
    default:
      return gate;
  }
}

/** A gate from anything (a model's proposal, a stored row), canonical; or the first reason it is not one. */
export function parseGate(value: unknown): { gate: Gate } | { error: string } {
  const parsed = gateSchema.safeParse(value);
  if (parsed.success) return { gate: canonicalGate(parsed.data) };
  const issue = parsed.error.issues[0];
  return { error: `${issue?.path.join('.') || 'gate'}: ${issue?.message ?? 'invalid'}`.slice(0, 200) };
}
