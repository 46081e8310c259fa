import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ActionContext, checkAction, gatesOf, type RuleGate } from './check.js';
import { compileRules } from './compile.js';
import type { Gate } from './gate.js';

const one = (gate: Gate): RuleGate[] => [{ rule: 'the rule', gate }];
const allowed = (gate: Gate, action: ActionContext) => checkAction(one(gate), action).allowed;
const buy = (amount: number, currency = 'USD', merchant = 'shop.example', over: Partial<ActionContext> = {}) =>
  ({
    kind: 'purchase',
    url: 'https://pay.example.net/checkout',
    purchase: { merchant, amount, currency },
    runPurchases: [],
    ...over,
  }) as ActionContext;

test('a domain rule covers its subdomains by whole labels, never a longer name that ends alike', () => {
  const gate: Gate = { kind: 'domain_allow', domains: ['example.com'] };
  const at = (url: string) => allowed(gate, { kind: 'navigate', url });
  assert.equal(at('https://example.com/a'), true);
  assert.equal(at('https://Shop.EXAMPLE.com./cart'), true);
  assert.equal(at('https://badexample.com/'), false);
  assert.equal(at('https://example.com.evil.net/'), false);
  assert.equal(at('about:blank'), true, 'a fresh tab is on no site');
  assert.equal(at('data:text/html,hi'), false);
  assert.equal(at('not a url'), false);
  const wild: Gate = { kind: 'domain_deny', domains: ['*.example.com'] };
  assert.equal(allowed(wild, { kind: 'click', url: 'https://a.example.com/' }), false);
  assert.equal(allowed(wild, { kind: 'click', url: 'https://example.com/' }), true, 'a wildcard is subdomains only');
});

test('a refusal names the rule and says why', () => {
  const verdict = checkAction(
    [
      { rule: 'Only visit example.com', gate: { kind: 'domain_allow', domains: ['example.com'] } },
      { rule: 'Never visit admin.example.com', gate: { kind: 'domain_deny', domains: ['admin.example.com'] } },
    ],
    { kind: 'navigate', url: 'https://admin.example.com/users' },
  );
  assert.deepEqual(verdict, {
    allowed: false,
    rule: 'Never visit admin.example.com',
    why: 'admin.example.com is on admin.example.com, which is forbidden',
  });
});

test('forbidden actions are refused where the rule says and nowhere else', () => {
  const gate: Gate = { kind: 'forbid', actions: ['submit'], domains: ['linkedin.com'] };
  assert.equal(allowed(gate, { kind: 'submit', url: 'https://www.linkedin.com/jobs' }), false);
  assert.equal(allowed(gate, { kind: 'click', url: 'https://www.linkedin.com/jobs' }), true);
  assert.equal(allowed(gate, { kind: 'submit', url: 'https://example.com/form' }), true);
  assert.equal(allowed({ kind: 'forbid', actions: ['download'] }, { kind: 'download', url: 'about:blank' }), false);
});

test('purchases are held to the limit, the cap, the count and the merchants, in their currency', () => {
  const limit: Gate = { kind: 'purchase_limit', amount: 50, currency: 'USD' };
  assert.equal(allowed(limit, buy(50)), true);
  assert.equal(allowed(limit, buy(50.01)), false);
  assert.equal(allowed(limit, buy(10, 'EUR')), false, 'another currency is not compared');
  assert.equal(allowed(limit, buy(10, 'usd')), true);
  assert.equal(allowed(limit, { kind: 'click', url: 'https://a.example' }), true, 'only purchases');

  const cap: Gate = { kind: 'spend_cap', amount: 0.3, currency: 'USD' };
  assert.equal(allowed(cap, buy(0.2, 'USD', 'm', { runPurchases: [{ amount: 0.1, currency: 'USD' }] })), true);
  assert.equal(allowed(cap, buy(0.21, 'USD', 'm', { runPurchases: [{ amount: 0.1, currency: 'USD' }] })), false);
  assert.equal(allowed(cap, buy(0.1, 'USD', 'm', { runPurchases: [{ amount: 0.1, currency: 'EUR' }] })), false);

  const count: Gate = { kind: 'max_purchases', purchases: 1 };
  assert.equal(allowed(count, buy(1)), true);
  assert.equal(allowed(count, buy(1, 'USD', 'm', { runPurchases: [{ amount: 1, currency: 'USD' }] })), false);

  const shops: Gate = { kind: 'merchant_allow', merchants: ['amazon.com', 'best buy'] };
  assert.equal(allowed(shops, buy(5, 'USD', 'https://www.amazon.com/')), true);
  assert.equal(allowed(shops, buy(5, 'USD', 'smile.amazon.com')), true);
  assert.equal(allowed(shops, buy(5, 'USD', 'Best  Buy')), true);
  assert.equal(allowed(shops, buy(5, 'USD', 'amazon.com.evil.net')), false);
  assert.equal(allowed(shops, buy(5, 'USD', 'Amazon')), false, 'a domain entry wants a declared domain');

  const banned: Gate = { kind: 'merchant_deny', merchants: ['ebay.com', 'walmart'] };
  assert.equal(allowed(banned, buy(5, 'USD', 'Walmart')), false);
  assert.equal(allowed(banned, buy(5, 'USD', 'Some Seller', { url: 'https://www.ebay.com/checkout' })), false);
  assert.equal(allowed(banned, buy(5, 'USD', 'target.com')), true);
});

test('a gate that cannot be checked for want of a fact refuses', () => {
  assert.equal(
    allowed({ kind: 'purchase_limit', amount: 5, currency: 'USD' }, { kind: 'purchase', url: 'https://a.example' }),
    false,
  );
  assert.equal(
    allowed({ kind: 'spend_cap', amount: 5, currency: 'USD' }, buy(1, 'USD', 'm', { runPurchases: undefined })),
    false,
  );
  assert.equal(allowed({ kind: 'credit_cap', credits: 10 }, { kind: 'click', url: 'https://a.example' }), false);
  assert.equal(allowed({ kind: 'max_steps', steps: 10 }, { kind: 'click', url: 'https://a.example' }), false);
});

test('credits and steps are capped at the rule’s number', () => {
  const credits: Gate = { kind: 'credit_cap', credits: 100 };
  assert.equal(allowed(credits, { kind: 'scroll', url: 'https://a.example', runSpentCredits: 99.5 }), true);
  assert.equal(allowed(credits, { kind: 'scroll', url: 'https://a.example', runSpentCredits: 100 }), false);
  const steps: Gate = { kind: 'max_steps', steps: 20 };
  assert.equal(allowed(steps, { kind: 'click', url: 'https://a.example', step: 20 }), true);
  assert.equal(allowed(steps, { kind: 'click', url: 'https://a.example', step: 21 }), false);
});

test('a secret is filled only on its rule’s domains, or on those it was saved for', () => {
  const github: Gate = { kind: 'secret_domains', handle: 'github_token', domains: ['github.com'] };
  const fill = (url: string, handle = 'github_token', more: Partial<ActionContext> = {}): ActionContext => ({
    kind: 'fill_secret',
    url,
    handle,
    ...more,
  });
  assert.equal(allowed(github, fill('https://github.com/login')), true);
  assert.equal(allowed(github, fill('https://github.com.phish.example/login')), false);
  assert.equal(allowed(github, fill('https://evil.example/login', 'other')), true, 'another secret is not this rule’s');
  assert.equal(allowed(github, { kind: 'type', url: 'https://evil.example/' }), true, 'typing text is not a secret');
  const any: Gate = { kind: 'secret_domains', domains: ['example.com'] };
  assert.equal(allowed(any, fill('https://evil.example/', 'x')), false);
  const own: Gate = { kind: 'secret_domains', domains: 'own' };
  assert.equal(allowed(own, fill('https://id.bank.com/', 'x', { secretDomains: ['https://bank.com'] })), true);
  assert.equal(allowed(own, fill('https://bank.com.evil.net/', 'x', { secretDomains: ['bank.com'] })), false);
  assert.equal(allowed(own, fill('https://bank.com/', 'x')), false, 'a secret saved for no domain is filled nowhere');
});

test('approval holds an action until a person approves it, after any refusal', () => {
  const over100: RuleGate = {
    rule: 'Get my approval before any purchase over $100',
    gate: { kind: 'approval', actions: ['purchase'], over: { amount: 100, currency: 'USD' } },
  };
  assert.deepEqual(checkAction([over100], buy(100)), { allowed: true });
  const held = checkAction([over100], buy(120));
  assert.equal(held.allowed === false && held.approval, true);
  assert.deepEqual(checkAction([over100], { ...buy(120), approved: true }), { allowed: true });
  const forbidden: RuleGate = {
    rule: 'Never buy from ebay.com',
    gate: { kind: 'merchant_deny', merchants: ['ebay.com'] },
  };
  const verdict = checkAction([over100, forbidden], { ...buy(500, 'USD', 'ebay.com'), approved: true });
  assert.equal(verdict.allowed === false && verdict.rule, 'Never buy from ebay.com');
  const first = checkAction([over100, forbidden], buy(500, 'USD', 'ebay.com'));
  assert.equal(first.allowed === false && first.approval, undefined, 'no one is asked to approve a forbidden purchase');
});

test('a run that tries a forbidden action is refused, naming the workspace’s rule', () => {
  const gates = gatesOf(
    compileRules([
      'Be polite.',
      'Only visit shop.example.com and pay.example.net',
      'Never submit a form on shop.example.com',
      'Spend at most $30 per run',
    ]),
  );
  assert.equal(gates.length, 3, 'guidance holds no gate');
  const run: ActionContext[] = [
    { kind: 'navigate', url: 'https://shop.example.com/' },
    { kind: 'click', url: 'https://shop.example.com/' },
    buy(20, 'USD', 'shop.example.com', { runPurchases: [] }),
    { kind: 'navigate', url: 'https://elsewhere.example.org/' },
    { kind: 'submit', url: 'https://shop.example.com/contact' },
    buy(20, 'USD', 'shop.example.com', { runPurchases: [{ amount: 20, currency: 'USD' }] }),
  ];
  const verdicts = run.map((a) => checkAction(gates, a));
  assert.deepEqual(
    verdicts.map((v) => (v.allowed ? 'ok' : v.rule)),
    [
      'ok',
      'ok',
      'ok',
      'Only visit shop.example.com and pay.example.net',
      'Never submit a form on shop.example.com',
      'Spend at most $30 per run',
    ],
  );
});
