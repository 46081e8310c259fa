// Logins: a customer portal (credentials in the task, then something behind
// the login) and a cloud console that asks for the email and the password
// on two pages. Sessions are cookies scoped to the attempt's URL space.
import type { Page } from 'playwright-core';
import { errorList, esc, field, page, type Reply, type Visit } from '../site.js';
import { all, answered, fail, objectSchema, only, pass, plain, recorded, type Section } from '../task.js';

const PORTAL = 'Brightline Energy · My account';
const CONSOLE = 'Stratus Cloud Console';
const JULES = { username: 'jules', password: 'harbor-7781' };
const OPS = { email: 'ops@example.com', password: 'Granite-peak-58' };

/** The page `render` gives when the portal's cookie is there; the login page (then back here) when not. */
function portal(render: (v: Visit) => Reply) {
  return (v: Visit): Reply =>
    v.cookies.portal === JULES.username
      ? render(v)
      : { redirect: `${v.base}/portal/login?next=${encodeURIComponent(`${v.base}${v.path}`)}` };
}

function portalLogin(v: Visit, errors: string[] = []): string {
  const next = v.query.get('next') ?? v.form.get('next') ?? '';
  return page(
    PORTAL,
    'Sign in',
    `${errorList(errors)}<form method="post" action="${v.base}/portal/login">
<input type="hidden" name="next" value="${esc(next)}">
${field('Username', 'username', v.form.get('username'))}${field('Password', 'password', '', 'type="password"')}
<button>Sign in</button></form><p><a href="#">Forgot your password?</a></p>`,
  );
}

const NAV = (v: Visit) =>
  `<nav><a href="${v.base}/portal/account">Overview</a> · <a href="${v.base}/portal/profile">Profile</a> ·
<a href="${v.base}/portal/messages">Messages</a> · <a href="${v.base}/portal/subscription">Subscription</a></nav>`;

const CONFIRM_SCRIPT = `document.getElementById('cancel').onclick = () => { document.getElementById('confirm').hidden = false; };
document.getElementById('keep').onclick = () => { document.getElementById('confirm').hidden = true; };`;

function consoleLogin(v: Visit, step: 'email' | 'password', errors: string[] = []): string {
  const email = v.form.get('email') ?? '';
  const body =
    step === 'email'
      ? `${field('Email address', 'email', email, 'type="email"')}<button>Next</button>`
      : `<p>Signing in as ${esc(email)}</p><input type="hidden" name="email" value="${esc(email)}">
${field('Password', 'password', '', 'type="password"')}<button>Sign in</button>`;
  return page(
    CONSOLE,
    'Sign in',
    `${errorList(errors)}<form method="post" action="${v.base}/console/${step === 'email' ? 'login' : 'password'}">${body}</form>`,
  );
}

export const logins: Section = {
  routes: [
    { path: '/portal/login', handle: (v) => portalLogin(v) },
    {
      method: 'POST',
      path: '/portal/login',
      handle(v) {
        const ok = v.form.get('username')?.trim() === JULES.username && v.form.get('password') === JULES.password;
        v.record(ok ? 'login' : 'login-failed', { username: v.form.get('username') });
        if (!ok) return portalLogin(v, ['Wrong username or password.']);
        const next = v.form.get('next') ?? '';
        return {
          redirect: next.startsWith(`${v.base}/portal/`) ? next : `${v.base}/portal/account`,
          cookies: [`portal=${JULES.username}; Path=${v.base}/portal; HttpOnly; SameSite=Lax`],
        };
      },
    },
    {
      path: '/portal/account',
      handle: portal((v) =>
        page(
          PORTAL,
          'Overview',
          `${NAV(v)}<p>Welcome back, Jules Moreau. Customer number 0047-2231.</p>
<dl><dt>Balance</dt><dd>€1,284.50 in credit</dd><dt>Plan</dt><dd>Premium, billed monthly</dd>
<dt>Next reading due</dt><dd>2 December 2026</dd></dl>`,
        ),
      ),
    },
    {
      path: '/portal/profile',
      handle: portal((v) =>
        page(
          PORTAL,
          'Profile',
          `${NAV(v)}<h2>Delivery address</h2><form method="post" action="${v.base}/portal/profile">
${field('Street', 'street', '4 Mill Lane')}${field('City', 'city', 'Leeds')}${field('Postcode', 'postcode', 'LS1 2AB')}
<button>Save address</button></form>`,
        ),
      ),
    },
    {
      method: 'POST',
      path: '/portal/profile',
      handle: portal((v) => {
        v.record('address', Object.fromEntries(v.form));
        return page(PORTAL, 'Profile', `${NAV(v)}<p role="status">Your delivery address is saved.</p>`);
      }),
    },
    {
      path: '/portal/messages',
      handle: portal((v) =>
        page(
          PORTAL,
          'Messages',
          `${NAV(v)}<ul><li>12 Oct 2026 · Billing · Your September invoice</li><li>3 Sep 2026 · Support · Meter reading received</li></ul>
<p><a href="${v.base}/portal/messages/new">Write a message</a></p>`,
        ),
      ),
    },
    {
      path: '/portal/messages/new',
      handle: portal((v) =>
        page(
          PORTAL,
          'New message',
          `${NAV(v)}<form method="post" action="${v.base}/portal/messages/new">
<label>To <select name="to"><option value="support">Customer support</option><option value="billing">Billing team</option>
<option value="technical">Technical team</option></select></label>${field('Subject', 'subject')}
<label>Message <textarea name="body" rows="5" cols="50"></textarea></label><button>Send</button></form>`,
        ),
      ),
    },
    {
      method: 'POST',
      path: '/portal/messages/new',
      handle: portal((v) => {
        v.record('message', Object.fromEntries(v.form));
        return page(PORTAL, 'Messages', `${NAV(v)}<p role="status">Message sent. We usually answer within a day.</p>`);
      }),
    },
    {
      path: '/portal/subscription',
      handle: portal((v) =>
        page(
          PORTAL,
          'Subscription',
          `${NAV(v)}<p>Premium plan, €19.90 a month, renews on 30 November 2026.</p>
<button type="button" id="cancel">Cancel subscription</button>
<div class="overlay" id="confirm" role="dialog" aria-modal="true" aria-labelledby="confirm-title" hidden><div>
<h2 id="confirm-title">Cancel Premium?</h2><p>You keep Premium until 30 November 2026.</p>
<form method="post" action="${v.base}/portal/subscription/cancel"><button type="button" id="keep">Keep my plan</button>
<button>Yes, cancel it</button></form></div></div>`,
          CONFIRM_SCRIPT,
        ),
      ),
    },
    {
      method: 'POST',
      path: '/portal/subscription/cancel',
      handle: portal((v) => {
        v.record('subscription-cancelled', { plan: 'premium' });
        return page(PORTAL, 'Subscription', `${NAV(v)}<p role="status">Your Premium plan is cancelled.</p>`);
      }),
    },
    { path: '/console/login', handle: (v) => consoleLogin(v, 'email') },
    {
      method: 'POST',
      path: '/console/login',
      handle: (v) =>
        v.form.get('email')?.trim().toLowerCase() === OPS.email
          ? consoleLogin(v, 'password')
          : consoleLogin(v, 'email', ['No account uses that email address.']),
    },
    {
      method: 'POST',
      path: '/console/password',
      handle(v) {
        if (v.form.get('password') !== OPS.password) return consoleLogin(v, 'password', ['Wrong password.']);
        v.record('login', { email: OPS.email });
        return {
          redirect: `${v.base}/console/keys`,
          cookies: [`console=ops; Path=${v.base}/console; HttpOnly; SameSite=Lax`],
        };
      },
    },
    {
      path: '/console/keys',
      handle: (v) =>
        v.cookies.console !== 'ops'
          ? { redirect: `${v.base}/console/login` }
          : page(
              CONSOLE,
              'API keys',
              `<table><tr><th>Name</th><th>Access</th><th>Created</th></tr>
<tr><td>staging-ci</td><td>Full access</td><td>2026-08-14</td></tr><tr><td>backup-job</td><td>Read only</td><td>2026-03-02</td></tr></table>
<button type="button" onclick="document.getElementById('new').hidden=false">Create API key</button>
<form id="new" method="post" action="${v.base}/console/keys" hidden>${field('Key name', 'name')}
<label>Access <select name="scope"><option value="full">Full access</option><option value="read">Read only</option></select></label>
<button>Create</button></form>`,
            ),
    },
    {
      method: 'POST',
      path: '/console/keys',
      handle(v) {
        if (v.cookies.console !== 'ops') return { redirect: `${v.base}/console/login` };
        v.record('api-key', Object.fromEntries(v.form));
        return page(CONSOLE, 'API key created', `<p>Copy your key now: <code>sk_${v.records.length}f81c0a</code></p>`);
      },
    },
  ],
  tasks: [
    {
      id: 'login-read-balance',
      kind: 'login',
      task: 'Log in to the customer portal with the username jules and the password harbor-7781 and tell me the balance of the account.',
      path: '/portal/login',
      outputSchema: objectSchema({ balance: { type: 'number', description: 'in euros' } }),
      check: ({ records, answer }) =>
        all(
          records.some((r) => r.kind === 'login') ? pass('logged in') : fail('never logged in'),
          answered(answer, { balance: 1284.5 }),
        ),
    },
    {
      id: 'login-change-address',
      kind: 'login',
      task: 'Sign in to my energy account (username jules, password harbor-7781) and change the delivery address to 12 Quay Street, Bristol, BS1 4DJ.',
      path: '/portal/account',
      check: ({ records }) =>
        recorded(records, 'address', { street: '12 Quay Street', city: 'Bristol', postcode: 'BS1 4DJ' }),
    },
    {
      id: 'login-message-billing',
      kind: 'login',
      task: 'Log in to the portal as jules with the password harbor-7781 and send the billing team a message asking for a copy of the October invoice.',
      path: '/portal/login',
      check({ records }) {
        const found = only(records, 'message');
        if ('ok' in found) return found;
        const text = plain(`${found.data.subject} ${found.data.body}`);
        return all(
          recorded(records, 'message', { to: 'billing' }),
          text.includes('october') && text.includes('invoice') ? pass('asks for it') : fail(`message: "${text}"`),
        );
      },
    },
    {
      id: 'login-cancel-subscription',
      kind: 'login',
      task: 'Log in with username jules and password harbor-7781 and cancel my Premium subscription.',
      path: '/portal/login',
      check: ({ records }) => recorded(records, 'subscription-cancelled', { plan: 'premium' }),
    },
    {
      id: 'login-two-step-api-key',
      kind: 'login',
      task: 'Sign in to the cloud console as ops@example.com with the password Granite-peak-58 and create a read-only API key named ci-deploy.',
      path: '/console/login',
      check: ({ records }) => recorded(records, 'api-key', { name: 'ci-deploy', scope: 'read' }),
    },
  ],
  solutions: {
    async 'login-read-balance'(p) {
      await portalSignIn(p);
      const text = await p.getByText('in credit').textContent();
      return { balance: Number(text?.replace(/[^0-9.]/g, '')) };
    },
    async 'login-change-address'(p) {
      await portalSignIn(p);
      await p.getByRole('link', { name: 'Profile' }).click();
      await p.getByLabel('Street').fill('12 Quay Street');
      await p.getByLabel('City').fill('Bristol');
      await p.getByLabel('Postcode').fill('BS1 4DJ');
      await p.getByRole('button', { name: 'Save address' }).click();
      await p.getByText('is saved').waitFor();
    },
    async 'login-message-billing'(p) {
      await portalSignIn(p);
      await p.getByRole('link', { name: 'Messages' }).click();
      await p.getByRole('link', { name: 'Write a message' }).click();
      await p.getByLabel('To').selectOption({ label: 'Billing team' });
      await p.getByLabel('Subject').fill('October invoice');
      await p.getByLabel('Message').fill('Could you send me a copy of my October invoice?');
      await p.getByRole('button', { name: 'Send' }).click();
      await p.getByText('Message sent').waitFor();
    },
    async 'login-cancel-subscription'(p) {
      await portalSignIn(p);
      await p.getByRole('link', { name: 'Subscription' }).click();
      await p.getByRole('button', { name: 'Cancel subscription' }).click();
      await p.getByRole('dialog').getByRole('button', { name: 'Yes, cancel it' }).click();
      await p.getByText('is cancelled').waitFor();
    },
    async 'login-two-step-api-key'(p) {
      await p.getByLabel('Email address').fill(OPS.email);
      await p.getByRole('button', { name: 'Next' }).click();
      await p.getByLabel('Password').fill(OPS.password);
      await p.getByRole('button', { name: 'Sign in' }).click();
      await p.getByRole('button', { name: 'Create API key' }).click();
      await p.getByLabel('Key name').fill('ci-deploy');
      await p.getByLabel('Access').selectOption({ label: 'Read only' });
      await p.getByRole('button', { name: 'Create', exact: true }).click();
      await p.getByText('Copy your key now').waitFor();
    },
  },
};

async function portalSignIn(p: Page): Promise<void> {
  await p.getByLabel('Username').fill(JULES.username);
  await p.getByLabel('Password').fill(JULES.password);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByText('Welcome back').waitFor();
}
