// The captchas the host knows (docs/connect.md, "Captchas"): how each is
// recognised by its frames, scripts and DOM, and how it is solved. A widget's
// script and frame URLs are matched as `host/path`, so a page that serves the
// same files from elsewhere under the real host's name (the test site's
// stand-ins) is recognised the same way. Pure.

/** Every kind the host recognises, in the words of docs/connect.md. */
export const CAPTCHA_KINDS = [
  'recaptcha_v2',
  'recaptcha_v3',
  'hcaptcha',
  'turnstile',
  'cloudflare_interstitial',
  'arkose',
  'geetest',
  'aws_waf',
  'datadome',
  'altcha',
  'friendly_captcha',
  'mcaptcha',
  'text_image',
] as const;
export type CaptchaKind = (typeof CAPTCHA_KINDS)[number];

/**
 * How a kind is solved here: `pow`, by letting its proof of work run and
 * waiting for its answer; `ocr`, by reading its image; `provider`, by the
 * operator's solver service (a token put where the widget expects it);
 * `none`, not here (a person's, or the site's to let through).
 */
export type SolveMethod = 'pow' | 'ocr' | 'provider' | 'none';

export interface CaptchaSignature {
  kind: CaptchaKind;
  /** Script URLs (`host/path?query`, scheme dropped). */
  scripts?: RegExp;
  /** Frame URLs, the same way. */
  frames?: RegExp;
  /** Elements only the widget puts in a page. */
  selector?: string;
  method: SolveMethod;
  /** Where its answer goes: the form field the site reads (its token, its solution). */
  field?: string;
  /** The element whose attributes carry its site key and callback. */
  widget?: string;
  /** A page that is nothing but the challenge: the site is behind it until it is passed. */
  wall?: boolean;
  /** The provider's task type for it (2Captcha and CapSolver name them alike). */
  task?: string;
}

/** In the order they are tried: a page with reCAPTCHA v2 also loads its api.js, which v3 shares. */
export const SIGNATURES: readonly CaptchaSignature[] = [
  {
    kind: 'recaptcha_v2',
    frames: /(^|[/.])(google\.com|recaptcha\.net)\/recaptcha\/(api2|enterprise)\/anchor\?(?!.*size=invisible)/,
    selector: '.g-recaptcha[data-sitekey]:not([data-size="invisible"])',
    method: 'provider',
    field: 'textarea[name="g-recaptcha-response"]',
    widget: '.g-recaptcha[data-sitekey]',
    task: 'RecaptchaV2TaskProxyless',
  },
  {
    kind: 'recaptcha_v3',
    scripts: /(^|[/.])(google\.com|recaptcha\.net)\/recaptcha\/(api|enterprise)\.js\?(.*&)?render=(?!explicit)/,
    method: 'none',
  },
  {
    kind: 'hcaptcha',
    scripts: /(^|[/.])hcaptcha\.com\/1\/api\.js/,
    frames: /(^|[/.])hcaptcha\.com\/captcha\/v1\/[^?#]*\/hcaptcha\.html/,
    selector: '.h-captcha[data-sitekey]',
    method: 'provider',
    field: 'textarea[name="h-captcha-response"]',
    widget: '.h-captcha[data-sitekey]',
    task: 'HCaptchaTaskProxyless',
  },
  {
    kind: 'cloudflare_interstitial',
    scripts: /\/cdn-cgi\/challenge-platform\/h\/[a-z]\/orchestrate\/chl_page\//,
    selector: 'form#challenge-form, #challenge-stage, #cf-challenge-running',
    method: 'none',
    wall: true,
  },
  {
    kind: 'turnstile',
    scripts: /(^|[/.])challenges\.cloudflare\.com\/turnstile\/v0\/api\.js/,
    frames: /(^|[/.])challenges\.cloudflare\.com\/cdn-cgi\/challenge-platform\/[^?#]*\/turnstile\//,
    selector: '.cf-turnstile[data-sitekey]',
    method: 'provider',
    field: 'input[name="cf-turnstile-response"]',
    widget: '.cf-turnstile[data-sitekey]',
    task: 'TurnstileTaskProxyless',
  },
  {
    kind: 'arkose',
    scripts: /(^|[/.])arkoselabs\.com\/v2\/[^/]+\/api\.js/,
    frames: /(^|[/.])arkoselabs\.com\/fc\//,
    selector: '#FunCaptcha, [data-pkey]',
    method: 'none',
  },
  {
    kind: 'geetest',
    scripts: /(^|[/.])geetest\.com\/(static\/js\/gt\.|v4\/gt4\.js)/,
    selector: '.geetest_holder, .geetest_captcha, .geetest_panel',
    method: 'none',
  },
  {
    kind: 'aws_waf',
    scripts: /(^|[/.])(captcha|token)\.awswaf\.com\/[^?#]*\/(captcha|challenge|jsapi)\.js/,
    selector: 'awswaf-captcha, #captcha-container[data-awswaf]',
    method: 'none',
    wall: true,
  },
  {
    kind: 'datadome',
    scripts: /(^|[/.])(js\.datadome\.co\/tags\.js|ct\.captcha-delivery\.com\/)/,
    frames: /(^|[/.])(geo|interstitial)\.captcha-delivery\.com\/(captcha|interstitial)\//,
    method: 'none',
    wall: true,
  },
  {
    kind: 'altcha',
    selector: 'altcha-widget',
    method: 'pow',
    field: 'altcha-widget input[type="hidden"]',
  },
  {
    kind: 'friendly_captcha',
    scripts: /(^|[/.])(friendly-challenge|@friendlycaptcha)\/[^?#]*widget[^/]*\.js/,
    selector: '.frc-captcha[data-sitekey]',
    method: 'pow',
    field: 'input[name="frc-captcha-solution"]',
  },
  {
    kind: 'mcaptcha',
    frames: /\/widget\/\?sitekey=/,
    selector: '#mcaptcha__token, .mcaptcha__widget',
    method: 'pow',
    field: '#mcaptcha__token',
  },
];

/** A text captcha: an image named as one, and the field its text goes in. */
export const TEXT_IMAGE = {
  image: 'img[src*="captcha" i], img[id*="captcha" i], img[class*="captcha" i], img[alt*="captcha" i]',
  field:
    'input[name*="captcha" i]:not([type="hidden"]), input[id*="captcha" i]:not([type="hidden"]), input[placeholder*="captcha" i]',
};

export const signatureOf = (kind: CaptchaKind): CaptchaSignature | undefined => SIGNATURES.find((s) => s.kind === kind);

/** A URL as the signatures read it: `host/path?query`, without scheme or fragment. */
export function urlKey(url: string): string {
  return url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/#.*$/, '');
}

/** What a page showed of itself, as the detector gathered it. */
export interface PageTraces {
  scripts: string[];
  frames: string[];
  /** Kinds whose selector matched. */
  selectors: CaptchaKind[];
  textImage: boolean;
}

/** One captcha found in a page, and what gave it away. */
export interface FoundCaptcha {
  kind: CaptchaKind;
  by: 'frame' | 'script' | 'dom';
  method: SolveMethod;
  wall: boolean;
}

/** The captchas `traces` show, each kind once (reCAPTCHA v3's script is v2's too: v2's widget wins). */
export function recognise(traces: PageTraces): FoundCaptcha[] {
  const found: FoundCaptcha[] = [];
  for (const s of SIGNATURES) {
    const by = traces.frames.some((u) => s.frames?.test(urlKey(u)))
      ? 'frame'
      : traces.scripts.some((u) => s.scripts?.test(urlKey(u)))
        ? 'script'
        : traces.selectors.includes(s.kind)
          ? 'dom'
          : undefined;
    if (by) found.push({ kind: s.kind, by, method: s.method, wall: s.wall ?? false });
  }
  if (traces.textImage) found.push({ kind: 'text_image', by: 'dom', method: 'ocr', wall: false });
  if (found.some((f) => f.kind === 'recaptcha_v2')) return found.filter((f) => f.kind !== 'recaptcha_v3');
  return found;
}
