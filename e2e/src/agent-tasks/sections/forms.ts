// Forms: a contact form, and a sign-up form whose server-side validation
// rejects what the task's wording invites (a spelled-out date, a formatted
// phone number, a username already taken) until the run fixes it.
import type { Page } from 'playwright-core';
import { errorList, esc, field, page, type Visit } from '../site.js';
import { all, type CheckContext, fail, only, pass, plain, recorded, type Section } from '../task.js';

const BRAND = 'Kettle & Co. Tea Merchants';
const TAKEN = new Set(['oliver', 'marta', 'admin', 'priya']);

function contactPage(v: Visit, errors: string[] = []): string {
  const f = v.form;
  return page(
    BRAND,
    'Contact us',
    `<p>Questions about an order? Write to us and we answer within two working days.</p>${errorList(errors)}
<form method="post" action="${v.base}/support/contact">
${field('Your name', 'name', f.get('name'), 'required')}
${field('Email', 'email', f.get('email'), 'type="email" required')}
${field('Order number (if any)', 'order', f.get('order'))}
${field('Subject', 'subject', f.get('subject'), 'required')}
<label>Message <textarea name="message" rows="5" cols="50" required>${esc(f.get('message'))}</textarea></label>
<button>Send message</button></form>`,
  );
}

function signupPage(v: Visit, errors: string[] = []): string {
  const f = v.form;
  return page(
    BRAND,
    'Create your account',
    `${errorList(errors)}<form method="post" action="${v.base}/account/signup">
${field('Full name', 'fullName', f.get('fullName'))}
${field('Username', 'username', f.get('username'))}
${field('Email', 'email', f.get('email'))}
${field('Password', 'password', '', 'type="password"')}
${field('Confirm password', 'confirm', '', 'type="password"')}
${field('Date of birth', 'dob', f.get('dob'), 'placeholder="YYYY-MM-DD"')}
${field('Phone (optional)', 'phone', f.get('phone'))}
<label><input type="checkbox" name="terms" value="yes"> I accept the terms of sale</label>
<button>Create account</button></form>`,
  );
}

function signupErrors(f: URLSearchParams): string[] {
  const errors: string[] = [];
  const username = f.get('username') ?? '';
  if (!(f.get('fullName') ?? '').trim()) errors.push('Enter your full name.');
  if (!/^[a-z0-9_]{3,20}$/.test(username))
    errors.push('Usernames are 3 to 20 lowercase letters, digits or underscores.');
  else if (TAKEN.has(username)) errors.push(`The username "${username}" is taken. Choose another one.`);
  if (!/^[^@\s]+@[^@\s]+\.[a-z]+$/i.test(f.get('email') ?? '')) errors.push('Enter a valid email address.');
  const password = f.get('password') ?? '';
  if (password.length < 10 || !/\d/.test(password))
    errors.push('Passwords need at least 10 characters, one of them a digit.');
  else if (password !== f.get('confirm')) errors.push('The two passwords differ.');
  const dob = f.get('dob') ?? '';
  if (!/^\d{4}-\d{2}-\d{2}$/.test(dob) || Number.isNaN(Date.parse(dob)))
    errors.push('Write the date of birth as YYYY-MM-DD, for example 1984-07-21.');
  const phone = f.get('phone') ?? '';
  if (phone && !/^\d{8,15}$/.test(phone))
    errors.push('Phone numbers are digits only, country code first, for example 447700900077.');
  if (f.get('terms') !== 'yes') errors.push('Accept the terms of sale to continue.');
  return errors;
}

/** The account the run created, field by field. */
function account(expected: Record<string, string>) {
  return ({ records }: CheckContext) => recorded(records, 'account', expected);
}

export const forms: Section = {
  routes: [
    { path: '/support/contact', handle: (v) => contactPage(v) },
    {
      method: 'POST',
      path: '/support/contact',
      handle(v) {
        const f = v.form;
        const errors: string[] = [];
        if (!f.get('name')?.trim()) errors.push('Enter your name.');
        if (!/^[^@\s]+@[^@\s]+\.[a-z]+$/i.test(f.get('email') ?? '')) errors.push('Enter a valid email address.');
        if ((f.get('message') ?? '').trim().length < 10) errors.push('Write a message of at least 10 characters.');
        if (errors.length) return contactPage(v, errors);
        v.record('contact', Object.fromEntries(f));
        return page(BRAND, 'Message sent', `<p>Thank you. Your reference is C-${3000 + v.records.length}.</p>`);
      },
    },
    { path: '/account/signup', handle: (v) => signupPage(v) },
    {
      method: 'POST',
      path: '/account/signup',
      handle(v) {
        const errors = signupErrors(v.form);
        v.record(errors.length ? 'signup-rejected' : 'account', { ...Object.fromEntries(v.form), errors });
        if (errors.length) return signupPage(v, errors);
        return page(BRAND, 'Welcome', `<p>Your account ${esc(v.form.get('username'))} is ready.</p>`);
      },
    },
  ],
  tasks: [
    {
      id: 'contact-damaged-order',
      kind: 'form',
      task: 'Use the contact form to tell the shop that order 4417 arrived with the teapot lid cracked, and ask for a replacement lid. Sign it as Dana Whitfield, dana.whitfield@example.org.',
      path: '/support/contact',
      check({ records }) {
        const found = only(records, 'contact');
        if ('ok' in found) return found;
        const d = found.data as Record<string, string>;
        const text = plain(`${d.subject} ${d.message}`);
        return all(
          recorded(records, 'contact', { name: 'Dana Whitfield', email: 'dana.whitfield@example.org' }),
          plain(`${d.order} ${text}`).includes('4417') ? pass('names the order') : fail('order 4417 not mentioned'),
          /lid/.test(text) && /crack/.test(text) ? pass('says the lid cracked') : fail('the cracked lid not mentioned'),
        );
      },
    },
    {
      id: 'signup-date-of-birth',
      kind: 'form',
      task: 'Create an account for Marta Kowalski: username marta_k, email marta.k@example.com, password Tulip-garden-42, born on 14 March 1990. Accept the terms.',
      path: '/account/signup',
      check: account({
        username: 'marta_k',
        email: 'marta.k@example.com',
        password: 'Tulip-garden-42',
        dob: '1990-03-14',
      }),
    },
    {
      id: 'signup-username-taken',
      kind: 'form',
      task: 'Sign up as Oliver Grant with the username oliver, email oliver.grant@example.net, password Quartz-lantern-9 and date of birth 1987-06-02, accepting the terms. If that username is already taken, use oliver_grant instead.',
      path: '/account/signup',
      check: account({ username: 'oliver_grant', email: 'oliver.grant@example.net', dob: '1987-06-02' }),
    },
    {
      id: 'signup-phone-format',
      kind: 'form',
      task: 'Register Priya Nair on this shop: username priya_n, email priya.nair@example.in, password Monsoon-2025-tea, born 1995-11-30, UK phone number +44 7700 900123. Accept the terms.',
      path: '/account/signup',
      check: account({ username: 'priya_n', phone: '447700900123', dob: '1995-11-30' }),
    },
  ],
  solutions: {
    async 'contact-damaged-order'(p) {
      await p.getByLabel('Your name').fill('Dana Whitfield');
      await p.getByLabel('Email').fill('dana.whitfield@example.org');
      await p.getByLabel('Order number').fill('4417');
      await p.getByLabel('Subject').fill('Cracked teapot lid');
      await p.getByLabel('Message').fill('The teapot lid arrived cracked. Could you send a replacement lid?');
      await p.getByRole('button', { name: 'Send message' }).click();
      await p.getByText('Your reference is').waitFor();
    },
    'signup-date-of-birth': (p) =>
      signUp(p, ['Marta Kowalski', 'marta_k', 'marta.k@example.com', 'Tulip-garden-42', '1990-03-14', '']),
    'signup-username-taken': async (p) => {
      await signUp(
        p,
        ['Oliver Grant', 'oliver', 'oliver.grant@example.net', 'Quartz-lantern-9', '1987-06-02', ''],
        false,
      );
      await p.getByText('is taken').waitFor();
      await signUp(p, [
        'Oliver Grant',
        'oliver_grant',
        'oliver.grant@example.net',
        'Quartz-lantern-9',
        '1987-06-02',
        '',
      ]);
    },
    'signup-phone-format': (p) =>
      signUp(p, ['Priya Nair', 'priya_n', 'priya.nair@example.in', 'Monsoon-2025-tea', '1995-11-30', '447700900123']),
  },
};

async function signUp(p: Page, values: string[], waitWelcome = true): Promise<void> {
  const [fullName, username, email, password, dob, phone] = values as [string, string, string, string, string, string];
  await p.getByLabel('Full name').fill(fullName);
  await p.getByLabel('Username').fill(username);
  await p.getByLabel('Email').fill(email);
  await p.getByLabel('Password', { exact: true }).fill(password);
  await p.getByLabel('Confirm password').fill(password);
  await p.getByLabel('Date of birth').fill(dob);
  await p.getByLabel('Phone').fill(phone);
  await p.getByLabel('I accept the terms').check();
  await p.getByRole('button', { name: 'Create account' }).click();
  if (waitWelcome) await p.getByText('is ready').waitFor();
}
