// The gates' check before an action runs. Pure: the dispatcher says what it is
// about to do and what it knows of the run, and hears whether the action may
// run, or which rule stops it and why (for the event that names the rule, and
// for the model's next step). A gate that cannot be checked for want of a fact
// (the run's spend, the purchase's amount) stops the action: rules fail closed.
import type { CompiledRule } from './compile.js';
import { domainPatternOf, hostOf, matchingDomain, onDomain } from './domains.js';
import { type Gate, type GatedAction, merchantName } from './gate.js';

/** What an action does, as the dispatcher names it; `record`, `ask` and `finish` leave the run alone and are not checked. */
export type ActionKind =
  | 'navigate'
  | 'click'
  | 'type'
  | 'select'
  | 'press'
  | 'scroll'
  | 'extract'
  | 'go_back'
  | 'switch_tab'
  | GatedAction;

export interface ActionContext {
  kind: ActionKind;
  /** The page's URL, or the navigation's target for `navigate`. */
  url: string;
  /** `fill_secret`: the secret's handle. */
  handle?: string;
  /** `fill_secret`: the domains the secret was saved for. */
  secretDomains?: string[];
  /** `purchase`: what the agent declared before filling a card. */
  purchase?: { merchant: string; amount: number; currency: string };
  /** Credits the run has spent so far. */
  runSpentCredits?: number;
  /** Purchases the run has made so far, this one not included. */
  runPurchases?: { amount: number; currency: string }[];
  /** The step the action belongs to, from 1. */
  step?: number;
  /** A person approved this very action (after an `approval` verdict). */
  approved?: boolean;
}

/** A rule's gate with the rule's words, which a refusal names. */
export interface RuleGate {
  rule: string;
  gate: Gate;
}

/** Whether the action may run; when not, the rule and why. `approval`: a person may let it run (pause, ask, check again with `approved`). */
export type Verdict = { allowed: true } | { allowed: false; rule: string; why: string; approval?: true };

/** The gates of the enforced rules, in their order. */
export const gatesOf = (rules: readonly CompiledRule[]): RuleGate[] =>
  rules.flatMap((r) => (r.class === 'ENFORCED' && r.gate ? [{ rule: r.text, gate: r.gate }] : []));

const money = (amount: number, currency: string) => `${amount} ${currency}`;
const list = (items: readonly string[]) => items.slice(0, 5).join(', ') + (items.length > 5 ? ', …' : '');
/** Money sums to a millionth, so 0.1 + 0.2 is not over a cap of 0.3. */
const sum = (amounts: number[]) => Math.round(amounts.reduce((a, b) => a + b, 0) * 1e6) / 1e6;

/** The merchant entry (a domain or a name) the declared merchant, or the page it pays on, is. */
function merchantAmong(entries: readonly string[], merchant: string, host: string | null): string | undefined {
  const declared = domainPatternOf(merchant);
  const name = merchantName(merchant);
  return entries.find((e) =>
    e.includes('.')
      ? (declared !== undefined && !declared.startsWith('*.') && onDomain(declared, e)) ||
        (host !== null && onDomain(host, e))
      : e === name,
  );
}

/** Why a purchase gate stops the action; undefined when it lets it run. */
function purchaseRefusal(gate: Gate, a: ActionContext, host: string | null): string | undefined {
  const p = a.purchase;
  if (!p) return 'the purchase was not declared';
  const currency = p.currency.toUpperCase();
  switch (gate.kind) {
    case 'purchase_limit':
      if (currency !== gate.currency) return `the purchase is in ${currency}; the limit is in ${gate.currency}`;
      return p.amount > gate.amount
        ? `${money(p.amount, currency)} is over ${money(gate.amount, currency)} a purchase`
        : undefined;
    case 'spend_cap': {
      if (!a.runPurchases) return "the run's purchases are not known";
      const other = [...a.runPurchases.map((r) => r.currency.toUpperCase()), currency].find((c) => c !== gate.currency);
      if (other) return `the run spends in ${other}; the cap is in ${gate.currency}`;
      const total = sum([...a.runPurchases.map((r) => r.amount), p.amount]);
      return total > gate.amount
        ? `the run's purchases would total ${money(total, currency)}, over ${money(gate.amount, currency)}`
        : undefined;
    }
    case 'max_purchases':
      if (!a.runPurchases) return "the run's purchases are not known";
      return a.runPurchases.length >= gate.purchases
        ? `the run has made ${a.runPurchases.length} of at most ${gate.purchases} purchases`
        : undefined;
    case 'merchant_allow':
      // Only what the agent declared: a card is often paid on a processor's page, not the merchant's.
      return merchantAmong(gate.merchants, p.merchant, null)
        ? undefined
        : `${p.merchant.slice(0, 100)} is not an allowed merchant`;
    case 'merchant_deny': {
      const hit = merchantAmong(gate.merchants, p.merchant, host);
      return hit ? `${hit} is a forbidden merchant` : undefined;
    }
    default:
      return undefined;
  }
}

function secretRefusal(gate: Extract<Gate, { kind: 'secret_domains' }>, a: ActionContext, host: string | null) {
  if (gate.handle && a.handle === undefined) return "the secret's handle is not known";
  if (gate.handle && a.handle !== gate.handle) return undefined;
  const secret = gate.handle ?? 'a secret';
  const domains =
    gate.domains === 'own' ? (a.secretDomains ?? []).flatMap((d) => domainPatternOf(d) ?? []) : gate.domains;
  if (domains.length === 0) return `${secret} has no domains it may be filled on`;
  if (host && matchingDomain(host, domains)) return undefined;
  return `${secret} may be filled only on ${list(domains)}, not on ${host ?? 'this page'}`;
}

/** Why `gate` stops the action; undefined when it lets it run. Approval gates are asked apart (`approvalNeeded`). */
function refusal(gate: Gate, a: ActionContext): string | undefined {
  const host = hostOf(a.url);
  switch (gate.kind) {
    case 'domain_allow':
      if (host === null)
        return a.url === 'about:blank' ? undefined : 'the page is not on the web, so not on the allowed domains';
      return matchingDomain(host, gate.domains)
        ? undefined
        : `${host} is not on the allowed domains (${list(gate.domains)})`;
    case 'domain_deny': {
      const hit = host && matchingDomain(host, gate.domains);
      return hit ? `${host} is on ${hit}, which is forbidden` : undefined;
    }
    case 'forbid': {
      if (!gate.actions.includes(a.kind as GatedAction)) return undefined;
      if (!gate.domains) return `${a.kind} is forbidden`;
      const hit = host && matchingDomain(host, gate.domains);
      return hit ? `${a.kind} is forbidden on ${hit}` : undefined;
    }
    case 'credit_cap':
      if (a.runSpentCredits === undefined) return "the run's spend in credits is not known";
      return a.runSpentCredits >= gate.credits
        ? `the run has spent ${a.runSpentCredits} of at most ${gate.credits} credits`
        : undefined;
    case 'max_steps':
      if (a.step === undefined) return "the run's step is not known";
      return a.step > gate.steps ? `step ${a.step} is past the limit of ${gate.steps} steps` : undefined;
    case 'secret_domains':
      return a.kind === 'fill_secret' ? secretRefusal(gate, a, host) : undefined;
    case 'approval':
      return undefined;
    default:
      return a.kind === 'purchase' ? purchaseRefusal(gate, a, host) : undefined;
  }
}

/** Why the action waits for a person under an approval gate; undefined when the gate does not hold it. */
function approvalNeeded(gate: Gate, a: ActionContext): string | undefined {
  if (gate.kind !== 'approval' || !gate.actions.includes(a.kind as GatedAction)) return undefined;
  const host = hostOf(a.url);
  if (gate.domains && !(host && matchingDomain(host, gate.domains))) return undefined;
  if (gate.over) {
    const p = a.purchase;
    const within = p && p.currency.toUpperCase() === gate.over.currency && p.amount <= gate.over.amount;
    if (within) return undefined;
    return `a purchase over ${money(gate.over.amount, gate.over.currency)} needs a person's approval`;
  }
  return `${a.kind} needs a person's approval`;
}

/**
 * Whether the action may run under the workspace's gates. Refusals come
 * before approvals: a person is not asked to approve what a rule forbids anyway.
 */
export function checkAction(gates: readonly RuleGate[], action: ActionContext): Verdict {
  for (const { rule, gate } of gates) {
    const why = refusal(gate, action);
    if (why) return { allowed: false, rule, why };
  }
  if (!action.approved)
    for (const { rule, gate } of gates) {
      const why = approvalNeeded(gate, action);
      if (why) return { allowed: false, rule, why, approval: true };
    }
  return { allowed: true };
}
