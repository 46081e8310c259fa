// A site of captchas on loopback (docs/connect.md, "Captchas"): stand-ins of
// the token widgets and challenge pages (widgets.ts), the real ALTCHA widget
// with challenges made by altcha-lib and its answers verified, and text
// captchas (svg-captcha's, or plain text for a test that must read it) whose
// form lets through only the right text. `?wall=1` makes a page the challenge
// alone: what it guards shows once it is passed.
//
//   const site = await startCaptchaSite();
//   await page.goto(`${site.url}/captcha/altcha?wall=1`);
//   site.reports;  // what each widget's callback was given
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { createChallenge, randomInt, verifySolution } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import svgCaptcha from 'svg-captcha';
import { WIDGET_FRAME, WIDGET_SCRIPTS, widgetPage } from './widgets.js';

export interface CaptchaReport {
  page: string;
  token: string;
  fields: Record<string, string>;
}

export interface CaptchaSite {
  readonly url: string;
  /** What the widgets' callbacks were given, oldest first. */
  readonly reports: CaptchaReport[];
  /** ALTCHA answers the site verified, and text answers it let through. */
  readonly passed: { kind: 'altcha' | 'text'; ok: boolean }[];
  /**
   * A new text captcha's page and its answer: svg-captcha's (its defaults: 4
   * random characters, one random noise curve), or plain text. `text` fixes
   * the characters; `line` (an SVG path) replaces svg-captcha's noise curve
   * with one drawn as it draws them, for a test that must know where it is
   * (and then the image is the same every time).
   * `turnBack` answers are called wrong, whatever they are, before any is
   * checked: the same image shown again, as for a wrong text.
   */
  textCaptcha(options?: { plain?: boolean; wall?: boolean; text?: string; line?: string; turnBack?: number }): {
    url: string;
    text: string;
  };
  close(): Promise<void>;
}

export interface CaptchaSiteOptions {
  /** ALTCHA's PBKDF2 iterations per try, and the range its answer lies in (altcha-lib's example: 5000, 5000-10000). */
  altcha?: { cost: number; counter: [number, number] };
}

const HMAC = 'captcha-site-hmac-secret';
const HMAC_KEY = 'captcha-site-hmac-key-secret';
const ARTICLE = `<h1>Through</h1>${'<p>What the check kept: the tide tables, the market days, and the names of the boats that came back this week.</p>'.repeat(8)}`;

const readBody = async (req: IncomingMessage, max = 64 * 1024): Promise<string> => {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > max) break;
  }
  return body;
};

const html = (res: ServerResponse, status: number, body: string) => {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(body);
};

function altchaPage(wall: boolean): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>ALTCHA</title>
<script type="module" src="/altcha/altcha.js"></script></head><body>
${wall ? '' : ARTICLE}
<form id="gate" method="post" action="/captcha/altcha/verify">
<altcha-widget challenge="/altcha/challenge" name="altcha"></altcha-widget>
<button type="submit">Send</button></form>
<script>
document.querySelector('altcha-widget').addEventListener('verified', () => ${wall ? "document.getElementById('gate').submit()" : '{}'});
</script></body></html>`;
}

function textPage(id: string, wall: boolean, wrong = false): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Check</title></head><body>
${wall ? '' : ARTICLE}${wrong ? '<p class="error">Wrong text, try again.</p>' : ''}
<form method="post" action="/captcha/text/${id}">
<img id="captcha-image" src="/captcha/text/${id}.svg" alt="captcha" width="150" height="50">
<input name="captcha" autocomplete="off" placeholder="Type the text"><button type="submit">Send</button></form>
</body></html>`;
}

/** Plain text, the same size as svg-captcha's: a test that checks the reading, not the reader's accuracy. */
const plainSvg = (text: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="150" height="50" viewBox="0 0 150 50"><rect width="150" height="50" fill="#fff"/><text x="75" y="35" font-family="DejaVu Sans, sans-serif" font-size="28" text-anchor="middle" fill="#222" letter-spacing="4">${text}</text></svg>`;

/** svg-captcha's image of a given text: the module itself is that function (its types leave it out). */
const drawCaptcha = svgCaptcha as unknown as (text: string, options?: { noise?: number }) => string;

/**
 * svg-captcha's image of `text`, with `line` (an SVG path) as its one noise
 * curve, else its own random one. With a curve given the image is the same
 * every time: svg-captcha moves each point of a glyph a little by
 * Math.random, here a generator seeded by the text (the call is synchronous).
 */
function outlined(text: string, line: string | undefined): { text: string; data: string } {
  if (line === undefined) return { text, data: drawCaptcha(text) };
  const curve = `<path d="${line}" stroke="#555" fill="none"/>`;
  let seed = [...text].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
  const random = Math.random;
  Math.random = () => {
    seed = (seed * 1_103_515_245 + 12_345) >>> 0;
    return seed / 2 ** 32;
  };
  try {
    return { text, data: drawCaptcha(text, { noise: 0 }).replace('</svg>', `${curve}</svg>`) };
  } finally {
    Math.random = random;
  }
}

export async function startCaptchaSite(options: CaptchaSiteOptions = {}): Promise<CaptchaSite> {
  const altcha = options.altcha ?? { cost: 5_000, counter: [5_000, 10_000] };
  const altchaScript = readFileSync(join(dirname(require.resolve('altcha')), 'altcha.js'), 'utf8');
  const reports: CaptchaReport[] = [];
  const passed: CaptchaSite['passed'] = [];
  const texts = new Map<string, { text: string; svg: string; wall: boolean; turnBack: number }>();
  let nextText = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://site');
    const path = url.pathname;
    const wall = url.searchParams.get('wall') === '1';
    const script = WIDGET_SCRIPTS[path];
    if (script !== undefined) {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return res.end(script);
    }
    if (WIDGET_FRAME.test(path)) return html(res, 200, '<!doctype html><html><body></body></html>');
    const fixture = widgetPage(path, wall);
    if (fixture) return html(res, fixture[0], fixture[1]);
    if (path === '/captcha/report' && req.method === 'POST') {
      try {
        reports.push(JSON.parse(await readBody(req)) as CaptchaReport);
      } catch {
        res.writeHead(400);
        return res.end();
      }
      res.writeHead(204);
      return res.end();
    }
    if (path === '/captcha/passed') return html(res, 200, `<!doctype html><title>Through</title>${ARTICLE}`);
    if (path === '/altcha/altcha.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return res.end(altchaScript);
    }
    if (path === '/altcha/challenge') {
      const challenge = await createChallenge({
        algorithm: 'PBKDF2/SHA-256',
        cost: altcha.cost,
        counter: randomInt(altcha.counter[0], altcha.counter[1]),
        deriveKey,
        hmacSignatureSecret: HMAC,
        hmacKeySignatureSecret: HMAC_KEY,
      });
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      return res.end(JSON.stringify(challenge));
    }
    if (path === '/captcha/altcha') return html(res, 200, altchaPage(wall));
    if (path === '/captcha/altcha/verify' && req.method === 'POST') {
      const payload = new URLSearchParams(await readBody(req)).get('altcha') ?? '';
      let ok = false;
      try {
        const { challenge, solution } = JSON.parse(Buffer.from(payload, 'base64').toString('utf8'));
        ok = (
          await verifySolution({
            challenge,
            solution,
            deriveKey,
            hmacSignatureSecret: HMAC,
            hmacKeySignatureSecret: HMAC_KEY,
          })
        ).verified;
      } catch {
        ok = false;
      }
      passed.push({ kind: 'altcha', ok });
      return ok ? html(res, 200, `<!doctype html><title>Through</title>${ARTICLE}`) : html(res, 403, altchaPage(true));
    }
    const text = /^\/captcha\/text\/(\d+)(\.svg)?$/.exec(path);
    const held = text && texts.get(text[1] as string);
    if (text && held) {
      if (text[2]) {
        res.writeHead(200, { 'content-type': 'image/svg+xml', 'cache-control': 'no-store' });
        return res.end(held.svg);
      }
      if (req.method !== 'POST') return html(res, 200, textPage(text[1] as string, held.wall));
      const answer = new URLSearchParams(await readBody(req)).get('captcha') ?? '';
      const ok = held.turnBack-- <= 0 && answer.toLowerCase() === held.text.toLowerCase();
      passed.push({ kind: 'text', ok });
      return ok
        ? html(res, 200, `<!doctype html><title>Through</title>${ARTICLE}`)
        : html(res, 200, textPage(text[1] as string, held.wall, true));
    }
    html(res, 404, '<!doctype html><title>Not found</title>');
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    reports,
    passed,
    textCaptcha({ plain = false, wall = false, text, line, turnBack = 0 } = {}) {
      const id = String(++nextText);
      const made = plain
        ? (() => {
            const t =
              text ?? Array.from({ length: 4 }, () => 'ABCDEFGHJKMNPRSTUVWXYZ23456789'[randomInt(0, 29)]).join('');
            return { text: t, data: plainSvg(t) };
          })()
        : text === undefined && line === undefined
          ? svgCaptcha.create({ ignoreChars: '0oO1ilI' })
          : outlined(text ?? svgCaptcha.create({ ignoreChars: '0oO1ilI' }).text, line);
      texts.set(id, { text: made.text, svg: made.data, wall, turnBack });
      return { url: `${base}/captcha/text/${id}`, text: made.text };
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
