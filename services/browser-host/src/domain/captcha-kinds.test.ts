// The signatures read the real widgets' URLs as they do the test site's
// stand-ins (served under the real host's name): a script or frame seen on a
// live site is recognised, and a look-alike path on another host is not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CaptchaKind, type PageTraces, recognise } from './captcha-kinds.js';

const traces = (t: Partial<PageTraces>): PageTraces => ({
  scripts: [],
  frames: [],
  selectors: [],
  textImage: false,
  ...t,
});
const kinds = (t: Partial<PageTraces>): CaptchaKind[] => recognise(traces(t)).map((f) => f.kind);

test("the real widgets' scripts and frames are recognised, each as its kind", () => {
  const cases: [Partial<PageTraces>, CaptchaKind][] = [
    [
      {
        scripts: ['https://www.google.com/recaptcha/api.js'],
        frames: ['https://www.google.com/recaptcha/api2/anchor?ar=1&k=6Le-abc&co=aHR0&hl=en&v=x&size=normal&cb=1'],
      },
      'recaptcha_v2',
    ],
    [{ frames: ['https://www.recaptcha.net/recaptcha/enterprise/anchor?ar=1&k=6Le&size=normal'] }, 'recaptcha_v2'],
    [{ scripts: ['https://www.google.com/recaptcha/api.js?render=6LeAbCdE'] }, 'recaptcha_v3'],
    [
      {
        scripts: ['https://js.hcaptcha.com/1/api.js?hl=en'],
        frames: ['https://newassets.hcaptcha.com/captcha/v1/b1c589a/static/hcaptcha.html#frame=checkbox&id=0'],
      },
      'hcaptcha',
    ],
    [{ scripts: ['https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit'] }, 'turnstile'],
    [
      {
        scripts: ['https://example.com/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=8f1a2b3c4d5e6f70'],
      },
      'cloudflare_interstitial',
    ],
    [{ scripts: ['https://client-api.arkoselabs.com/v2/476068BF-9607-4799-B53D-966BE98E2B81/api.js'] }, 'arkose'],
    [{ scripts: ['https://static.geetest.com/v4/gt4.js'] }, 'geetest'],
    [{ scripts: ['https://static.geetest.com/static/js/gt.0.4.9.js'] }, 'geetest'],
    [{ scripts: ['https://3bd5e4c1.a2b3c4d5e6f7.us-east-1.token.awswaf.com/3bd5e4c1/a2b3/challenge.js'] }, 'aws_waf'],
    [{ frames: ['https://geo.captcha-delivery.com/captcha/?initialCid=AHrlqAAAAAMA&hash=ABC&cid=x'] }, 'datadome'],
    [{ scripts: ['https://js.datadome.co/tags.js'] }, 'datadome'],
  ];
  for (const [seen, kind] of cases) assert.deepEqual(kinds(seen), [kind], JSON.stringify(seen));
});

test('v2 wins over the api.js it shares with v3; an invisible v2 is not a checkbox', () => {
  assert.deepEqual(
    kinds({
      scripts: ['https://www.google.com/recaptcha/api.js?render=6Le'],
      frames: ['https://www.google.com/recaptcha/api2/anchor?k=6Le&size=normal'],
    }),
    ['recaptcha_v2'],
  );
  assert.deepEqual(kinds({ frames: ['https://www.google.com/recaptcha/api2/anchor?k=6Le&size=invisible'] }), []);
});

test('look-alike paths on other hosts, and ordinary pages, are no captcha', () => {
  assert.deepEqual(
    kinds({
      scripts: [
        'https://cdn.example.com/js/recaptcha-helpers.js',
        'https://example.com/static/api.js',
        'https://notgoogle.com/recaptcha/api.js?render=x',
        'https://example.com/turnstile/v0/api.js',
      ],
      frames: ['https://www.youtube.com/embed/abc', 'https://example.com/captcha/'],
    }),
    [],
  );
});
