// The multi-act kinds: a short sequence on one form, ended by its button.
// A word typed into the named field, the named boxes ticked, a sign-in, an
// entry picked from a list (a select or radio buttons), a password typed
// twice. Every submit is recorded, so a form sent twice shows as two.
import type { Page } from 'playwright-core';
import { errorList, esc, type Visit } from '../../site.js';
import { listed, recorded } from '../../task.js';
import {
  and,
  arrange,
  between,
  donePage,
  FIRST_NAMES,
  type Frame,
  frame,
  framed,
  LABEL_STYLES,
  LAST_NAMES,
  type LabelStyle,
  password,
  pick,
  rngFor,
  type SimpleKind,
  sample,
  seeded,
  slug,
  statusShown,
  taskOf,
  textBox,
  twice,
  WORDS,
} from './kit.js';

const SUBMITS = ['Submit', 'Send', 'Save', 'Continue', 'OK'];

/** A form posting back to the kind's page, ended by its button. */
const form = (v: Visit, kind: string, fields: string, submit: string, extra = '') =>
  `<form method="post" action="${v.base}/simple/${v.params.seed}/${kind}">${fields}<p><button>${esc(submit)}</button>${extra}</p></form>`;

const pressAndWait = async (p: Page, submit: string) => {
  await p.getByRole('button', { name: submit, exact: true }).click();
  await statusShown(p);
};

const TYPE_FIELDS = [
  'Search',
  'Coupon code',
  'Nickname',
  'Keyword',
  'Gift message',
  'Tag',
  'Project name',
  'Team name',
];

interface TypePage extends Frame {
  fields: string[];
  target: string;
  word: string;
  submit: string;
  labels: LabelStyle;
  sentence: string;
}

function makeType(seed: number): TypePage {
  const r = rngFor('type', seed);
  const f = frame(r, ['Quick form', 'One more thing', 'Tell us', 'Almost done']);
  const fields = sample(r, TYPE_FIELDS, between(r, 1, 3));
  const target = pick(r, fields);
  const word = pick(r, WORDS);
  const submit = pick(r, SUBMITS);
  const sentence = pick(r, [
    `Type “${word}” into the ${target} box and press ${submit}.`,
    `Enter the word ${word} in the “${target}” field, then click ${submit}.`,
    `Write ${word} in ${target} and press the ${submit} button.`,
  ]);
  return { ...f, fields, target, word, submit, labels: pick(r, LABEL_STYLES), sentence };
}

const typeSubmit: SimpleKind = {
  slug: 'type',
  routes: [
    seeded('GET', '/type', makeType, (it, v) =>
      framed(it, form(v, 'type', it.fields.map((l) => textBox(it.labels, l, slug(l))).join(''), it.submit)),
    ),
    seeded('POST', '/type', makeType, (it, v) => {
      v.record('typed', Object.fromEntries(v.form));
      return donePage(it, 'Thank you, we have it.');
    }),
  ],
  generate(seed) {
    const it = makeType(seed);
    const fill = (field: string, word: string) => async (p: Page) => {
      await p.getByLabel(field, { exact: true }).fill(word);
      await pressAndWait(p, it.submit);
    };
    const expected = Object.fromEntries(it.fields.map((l) => [slug(l), l === it.target ? it.word : '']));
    const otherWord = WORDS.find((w) => w !== it.word) as string;
    const otherField = it.fields.find((l) => l !== it.target);
    return {
      task: {
        ...taskOf('type', seed, 'type-submit', 'multi'),
        task: it.sentence,
        check: ({ records }) => recorded(records, 'typed', expected),
      },
      solution: fill(it.target, it.word),
      mistakes: {
        [`types ${otherWord}`]: fill(it.target, otherWord),
        ...(otherField && { [`types into ${otherField}`]: fill(otherField, it.word) }),
        'sends it twice': twice(fill(it.target, it.word)),
      },
    };
  },
};

/** Sets of boxes a form offers; a task names two or three of a few. */
const BOX_SETS = [
  {
    legend: 'Your interests',
    options: ['Cooking', 'Hiking', 'Music', 'Painting', 'Cycling', 'Photography', 'Gardening', 'Chess'],
  },
  { legend: 'Toppings', options: ['Mushrooms', 'Olives', 'Onions', 'Peppers', 'Ham', 'Pineapple', 'Spinach', 'Basil'] },
  { legend: 'Topics', options: ['Sport', 'Politics', 'Science', 'Travel', 'Food', 'Film', 'Business', 'Weather'] },
  {
    legend: 'Room features',
    options: ['Balcony', 'Sea view', 'Bathtub', 'Minibar', 'Desk', 'Air conditioning', 'Safe'],
  },
];

interface BoxesPage extends Frame {
  legend: string;
  options: string[];
  targets: string[];
  submit: string;
  sentence: string;
}

function makeBoxes(seed: number): BoxesPage {
  const r = rngFor('boxes', seed);
  const f = frame(r, ['Your choices', 'Preferences', 'Customise', 'Pick what you like']);
  const set = pick(r, BOX_SETS);
  const options = sample(r, set.options, between(r, 5, 7));
  const targets = sample(r, options, between(r, 2, 3));
  const submit = pick(r, SUBMITS);
  const sentence = pick(r, [
    `Tick ${and(targets)}, then press ${submit}.`,
    `Select the boxes ${and(targets.map((t) => `“${t}”`))} and nothing else, and click ${submit}.`,
    `Check ${and(targets)} under ${set.legend} and submit with ${submit}.`,
  ]);
  return { ...f, legend: set.legend, options, targets, submit, sentence };
}

const checkboxes: SimpleKind = {
  slug: 'boxes',
  routes: [
    seeded('GET', '/boxes', makeBoxes, (it, v) => {
      const boxes = it.options.map(
        (o) => `<label><input type="checkbox" name="box" value="${esc(o)}"> ${esc(o)}</label>`,
      );
      return framed(
        it,
        form(
          v,
          'boxes',
          `<fieldset><legend>${esc(it.legend)}</legend>${arrange(it.layout, boxes)}</fieldset>`,
          it.submit,
        ),
      );
    }),
    seeded('POST', '/boxes', makeBoxes, (it, v) => {
      v.record('ticked', { boxes: v.form.getAll('box') });
      return donePage(it, 'Saved, thank you.');
    }),
  ],
  generate(seed) {
    const it = makeBoxes(seed);
    const tick = (boxes: string[]) => async (p: Page) => {
      for (const b of boxes) await p.getByRole('checkbox', { name: b, exact: true }).check();
      await pressAndWait(p, it.submit);
    };
    const extra = it.options.find((o) => !it.targets.includes(o)) as string;
    return {
      task: {
        ...taskOf('boxes', seed, 'checkboxes', 'multi'),
        task: it.sentence,
        check: ({ records }) => listed(records, 'ticked', 'boxes', it.targets),
      },
      solution: tick(it.targets),
      mistakes: {
        'leaves one out': tick(it.targets.slice(1)),
        [`ticks ${extra} as well`]: tick([...it.targets, extra]),
        'sends it twice': twice(tick(it.targets)),
      },
    };
  },
};

interface SignInPage extends Frame {
  user: string;
  password: string;
  userLabel: string;
  passwordLabel: string;
  submit: string;
  labels: LabelStyle;
  /** A "Remember me" box beside the button. */
  remember: boolean;
  sentence: string;
}

function makeSignIn(seed: number): SignInPage {
  const r = rngFor('sign-in', seed);
  const f = frame(r, ['Sign in', 'Welcome back', 'Members area', 'Log in to continue']);
  const user = `${pick(r, FIRST_NAMES)}${pick(r, ['.', '_', ''])}${pick(r, LAST_NAMES)}`.toLowerCase();
  const secret = password(r);
  const submit = pick(r, ['Sign in', 'Log in', 'Continue']);
  const sentence = pick(r, [
    `Sign in as ${user} with the password ${secret} and press ${submit}.`,
    `Log in with user name “${user}” and password “${secret}”.`,
    `Use the user name ${user} and the password ${secret} to sign in, then press ${submit}.`,
  ]);
  return {
    ...f,
    user,
    password: secret,
    userLabel: pick(r, ['User name', 'Username', 'Your user name']),
    passwordLabel: pick(r, ['Password', 'Your password']),
    submit,
    labels: pick(r, LABEL_STYLES),
    remember: r() < 0.5,
    sentence,
  };
}

function signInPage(it: SignInPage, v: Visit, errors: string[] = []): string {
  const fields = `${textBox(it.labels, it.userLabel, 'user', `type="text" value="${esc(v.form.get('user'))}"`)}${textBox(it.labels, it.passwordLabel, 'password', 'type="password"')}${it.remember ? '<label><input type="checkbox" name="remember"> Remember me</label>' : ''}`;
  return framed(
    it,
    `${errorList(errors)}${form(v, 'sign-in', fields, it.submit, ' <a href="#">Forgot your password?</a>')}<p>New here? <a href="#">Create an account</a></p>`,
  );
}

const signIn: SimpleKind = {
  slug: 'sign-in',
  routes: [
    seeded('GET', '/sign-in', makeSignIn, (it, v) => signInPage(it, v)),
    seeded('POST', '/sign-in', makeSignIn, (it, v) => {
      const data = { user: v.form.get('user'), password: v.form.get('password') };
      // A site refuses wrong credentials and lets you try again; only a sign-in it accepted counts.
      const ok = data.user === it.user && data.password === it.password;
      v.record(ok ? 'signed-in' : 'sign-in-refused', data);
      return ok ? donePage(it, `Welcome back, ${it.user}.`) : signInPage(it, v, ['Wrong user name or password.']);
    }),
  ],
  generate(seed) {
    const it = makeSignIn(seed);
    const signInWith = (user: string, secret: string) => async (p: Page) => {
      await p.getByLabel(it.userLabel, { exact: true }).fill(user);
      await p.getByLabel(it.passwordLabel, { exact: true }).fill(secret);
      await p.getByRole('button', { name: it.submit, exact: true }).click();
      await p.getByRole(user === it.user && secret === it.password ? 'status' : 'alert').waitFor();
    };
    return {
      task: {
        ...taskOf('sign-in', seed, 'sign-in', 'multi'),
        task: it.sentence,
        check: ({ records }) => recorded(records, 'signed-in', { user: it.user, password: it.password }),
      },
      solution: signInWith(it.user, it.password),
      mistakes: {
        'types another password': signInWith(it.user, `${it.password}0`),
        'swaps the fields': signInWith(it.password, it.user),
        'signs in twice': twice(signInWith(it.user, it.password)),
      },
    };
  },
};

/** Lists to pick one entry of. */
const PICK_SETS = [
  { label: 'Country', options: ['Austria', 'Belgium', 'Canada', 'Denmark', 'Estonia', 'Finland', 'Greece', 'Ireland'] },
  { label: 'Colour', options: ['Red', 'Green', 'Blue', 'Yellow', 'Black', 'White', 'Purple', 'Orange'] },
  { label: 'Size', options: ['Extra small', 'Small', 'Medium', 'Large', 'Extra large'] },
  { label: 'Department', options: ['Sales', 'Support', 'Finance', 'Legal', 'Marketing', 'Engineering'] },
  {
    label: 'Delivery slot',
    options: ['8:00 to 10:00', '10:00 to 12:00', '12:00 to 14:00', '14:00 to 16:00', '16:00 to 18:00'],
  },
];

interface PickPage extends Frame {
  label: string;
  options: string[];
  target: string;
  /** A select element, or a radio button per entry. */
  select: boolean;
  submit: string;
  sentence: string;
}

function makePick(seed: number): PickPage {
  const r = rngFor('pick', seed);
  const f = frame(r, ['Your order', 'Options', 'One question', 'Choose']);
  const set = pick(r, PICK_SETS);
  const options = sample(r, set.options, between(r, 4, set.options.length));
  const target = pick(r, options);
  const submit = pick(r, SUBMITS);
  const sentence = pick(r, [
    `Choose ${target} as the ${set.label.toLowerCase()} and press ${submit}.`,
    `Pick “${target}” from the ${set.label} list, then click ${submit}.`,
    `Set ${set.label} to ${target} and submit with ${submit}.`,
  ]);
  return { ...f, label: set.label, options, target, select: r() < 0.5, submit, sentence };
}

const pickOne: SimpleKind = {
  slug: 'pick',
  routes: [
    seeded('GET', '/pick', makePick, (it, v) => {
      const options = it.options.map((o) => `<option value="${esc(o)}">${esc(o)}</option>`).join('');
      const radios = it.options.map(
        (o) => `<label><input type="radio" name="choice" value="${esc(o)}"> ${esc(o)}</label>`,
      );
      const list = it.select
        ? `<p><label for="choice">${esc(it.label)}</label> <select id="choice" name="choice"><option value="">Choose one…</option>${options}</select></p>`
        : `<fieldset><legend>${esc(it.label)}</legend>${arrange(it.layout, radios)}</fieldset>`;
      return framed(it, form(v, 'pick', list, it.submit));
    }),
    seeded('POST', '/pick', makePick, (it, v) => {
      v.record('picked', { choice: v.form.get('choice') ?? '' });
      return donePage(it, 'Got it, thank you.');
    }),
  ],
  generate(seed) {
    const it = makePick(seed);
    const choose = (entry: string) => async (p: Page) => {
      if (it.select) await p.getByLabel(it.label, { exact: true }).selectOption({ label: entry });
      else await p.getByRole('radio', { name: entry, exact: true }).check();
      await pressAndWait(p, it.submit);
    };
    const other = it.options.find((o) => o !== it.target) as string;
    return {
      task: {
        ...taskOf('pick', seed, 'pick', 'multi'),
        task: it.sentence,
        check: ({ records }) => recorded(records, 'picked', { choice: it.target }),
      },
      solution: choose(it.target),
      mistakes: { [`picks ${other}`]: choose(other), 'sends it twice': twice(choose(it.target)) },
    };
  },
};

const PASSWORD_LABELS: [string, string][] = [
  ['New password', 'Confirm new password'],
  ['Password', 'Repeat password'],
  ['Choose a password', 'Type it again'],
];

interface PasswordsPage extends Frame {
  password: string;
  first: string;
  second: string;
  submit: string;
  labels: LabelStyle;
  sentence: string;
}

function makePasswords(seed: number): PasswordsPage {
  const r = rngFor('passwords', seed);
  const f = frame(r, ['Set your password', 'Change password', 'Security', 'Finish your account']);
  const secret = password(r);
  const [first, second] = pick(r, PASSWORD_LABELS);
  const submit = pick(r, ['Save password', 'Set password', 'Submit', 'Change password']);
  const sentence = pick(r, [
    `Set the password to ${secret}: type it into both fields and press ${submit}.`,
    `Type ${secret} in the password field and again in the field below it, then click ${submit}.`,
    `Make my new password “${secret}” (it has to be entered twice) and press ${submit}.`,
  ]);
  return { ...f, password: secret, first, second, submit, labels: pick(r, LABEL_STYLES), sentence };
}

function passwordsPage(it: PasswordsPage, v: Visit, errors: string[] = []): string {
  const fields = `<p>At least 8 characters.</p>${textBox(it.labels, it.first, 'password', 'type="password"')}${textBox(it.labels, it.second, 'again', 'type="password"')}`;
  return framed(it, `${errorList(errors)}${form(v, 'passwords', fields, it.submit)}`);
}

const passwords: SimpleKind = {
  slug: 'passwords',
  routes: [
    seeded('GET', '/passwords', makePasswords, (it, v) => passwordsPage(it, v)),
    seeded('POST', '/passwords', makePasswords, (it, v) => {
      const [secret, again] = [v.form.get('password') ?? '', v.form.get('again') ?? ''];
      // Two fields that differ are refused (and may be fixed); a password the site set counts.
      const ok = secret === again && secret.length >= 8;
      v.record(ok ? 'password-set' : 'password-refused', { password: secret, again });
      return ok
        ? donePage(it, 'Your password is set.')
        : passwordsPage(it, v, [secret === again ? 'Use at least 8 characters.' : 'The two passwords differ.']);
    }),
  ],
  generate(seed) {
    const it = makePasswords(seed);
    const type = (secret: string, again: string) => async (p: Page) => {
      await p.getByLabel(it.first, { exact: true }).fill(secret);
      await p.getByLabel(it.second, { exact: true }).fill(again);
      await p.getByRole('button', { name: it.submit, exact: true }).click();
      await p.getByRole(secret === again ? 'status' : 'alert').waitFor();
    };
    const other = `${it.password.slice(0, -1)}${(Number(it.password.at(-1)) + 1) % 10}`;
    return {
      task: {
        ...taskOf('passwords', seed, 'passwords', 'multi'),
        task: it.sentence,
        check: ({ records }) => recorded(records, 'password-set', { password: it.password, again: it.password }),
      },
      solution: type(it.password, it.password),
      mistakes: {
        'types the first field only': type(it.password, ''),
        'types another password twice': type(other, other),
        'sets it twice': twice(type(it.password, it.password)),
      },
    };
  },
};

export const multiKinds: SimpleKind[] = [typeSubmit, checkboxes, signIn, pickOne, passwords];
