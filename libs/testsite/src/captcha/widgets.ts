// Stand-ins for the captcha widgets people meet, served on loopback where the
// real scripts cannot load: each page loads its widget's script from a path
// named for the real one (`/www.google.com/recaptcha/api.js`), and the script
// puts in the page what the real widget puts there (its frame, its response
// field, its global) and calls the page's callback as the real one does once
// a token is set (here: by whoever fills its field and calls the callback,
// as a solver provider's token is used). The wall pages answer as the
// real challenge pages do (403, 405).

/** A stand-in's script: what it adds for each of its widgets. */
const tokenWidget = (o: { selector: string; frame: string; field: string; extraField?: string; global: string }) => `
(() => {
  const frameUrl = (w) => ${o.frame};
  for (const w of document.querySelectorAll(${JSON.stringify(o.selector)})) {
    const frame = document.createElement('iframe');
    frame.src = frameUrl(w);
    frame.width = '304'; frame.height = '78'; frame.style.border = '0';
    w.appendChild(frame);
    for (const name of [${JSON.stringify(o.field)}${o.extraField ? `, ${JSON.stringify(o.extraField)}` : ''}]) {
      const field = document.createElement(name.startsWith('cf-') ? 'input' : 'textarea');
      field.name = name;
      if (field.tagName === 'INPUT') field.type = 'hidden'; else { field.id = name; field.style.display = 'none'; }
      w.appendChild(field);
    }
  }
  window.${o.global} = {
    getResponse: () => (document.querySelector('[name=${o.field}]') || {}).value || '',
    render: () => 0, reset: () => {}, ready: (cb) => cb(), execute: () => Promise.resolve(''),
  };
})();`;

/** Scripts by the path they are served at. */
export const WIDGET_SCRIPTS: Record<string, string> = {
  '/www.google.com/recaptcha/api.js': `
(() => {
  const v3 = new URL(document.currentScript.src).searchParams.get('render');
  if (v3 && v3 !== 'explicit') {
    window.grecaptcha = { ready: (cb) => cb(), execute: () => Promise.resolve('v3-stand-in-token') };
    return;
  }
  ${tokenWidget({
    selector: '.g-recaptcha',
    frame: "'/www.google.com/recaptcha/api2/anchor?ar=1&k=' + w.dataset.sitekey + '&hl=en&size=normal'",
    field: 'g-recaptcha-response',
    global: 'grecaptcha',
  })}
})();`,
  '/js.hcaptcha.com/1/api.js': tokenWidget({
    selector: '.h-captcha',
    frame:
      "'/newassets.hcaptcha.com/captcha/v1/b1c589a/static/hcaptcha.html#frame=checkbox&sitekey=' + w.dataset.sitekey",
    field: 'h-captcha-response',
    extraField: 'g-recaptcha-response',
    global: 'hcaptcha',
  }),
  '/challenges.cloudflare.com/turnstile/v0/api.js': tokenWidget({
    selector: '.cf-turnstile',
    frame:
      "'/challenges.cloudflare.com/cdn-cgi/challenge-platform/h/b/turnstile/if/ov2/av0/rcv0/0/' + w.dataset.sitekey + '/light/normal'",
    field: 'cf-turnstile-response',
    global: 'turnstile',
  }),
  '/client-api.arkoselabs.com/v2/11111111-1111-1111-1111-111111111111/api.js': `
(() => {
  const w = document.getElementById('FunCaptcha');
  const frame = document.createElement('iframe');
  frame.src = '/client-api.arkoselabs.com/fc/gc/?token=' + Date.now();
  w.appendChild(frame);
  const field = document.createElement('input');
  field.type = 'hidden'; field.id = 'FunCaptcha-Token'; field.name = 'fc-token';
  w.appendChild(field);
  window.ArkoseEnforcement = function () {};
})();`,
  '/static.geetest.com/v4/gt4.js': `
window.initGeetest4 = (config, cb) => {
  const holder = document.createElement('div');
  holder.className = 'geetest_captcha geetest_holder';
  cb({ appendTo: (sel) => document.querySelector(sel).appendChild(holder), onSuccess: () => {} });
};`,
  '/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1': 'window._cf_chl_opt = window._cf_chl_opt || {};',
  '/a1b2c3d4.token.awswaf.com/a1b2c3d4/e5f6/challenge.js':
    'window.AwsWafIntegration = { getToken: () => Promise.resolve("") };',
  '/a1b2c3d4.captcha.awswaf.com/a1b2c3d4/e5f6/captcha.js': 'window.AwsWafCaptcha = { renderCaptcha: () => {} };',
  '/js.datadome.co/tags.js': 'window.ddjskey = window.ddjskey || "";',
};

/** The frames' documents: empty, as the real ones are to a page that cannot look inside. */
export const WIDGET_FRAME =
  /^\/(www\.google\.com\/recaptcha\/api2\/anchor|newassets\.hcaptcha\.com\/|challenges\.cloudflare\.com\/cdn-cgi\/|client-api\.arkoselabs\.com\/fc\/|geo\.captcha-delivery\.com\/captcha\/)/;

const ARTICLE = `<article><h1>The article behind the check</h1>${'<p>The harbour opens at dawn; boats leave with the tide and come back with the light. Nets are mended on the quay while the market sets up its stalls along the wall.</p>'.repeat(6)}</article>`;

/** A page whose callback reports what it was given and sends its form on. */
const page = (title: string, head: string, body: string, wall: boolean) => `<!doctype html>
<html><head><meta charset="utf-8"><title>${title}</title>${head}</head>
<body>${wall ? '' : ARTICLE}<form id="gate" method="post" action="/captcha/passed">${body}<button type="submit">Send</button></form>
<script>
function onCaptcha(token) {
  const fields = {};
  for (const f of document.querySelectorAll('#gate textarea, #gate input[type=hidden]')) fields[f.name] = f.value;
  fetch('/captcha/report', { method: 'POST', body: JSON.stringify({ page: location.pathname, token, fields }) })
    .then(() => ${wall ? "document.getElementById('gate').submit()" : 'undefined'});
}
</script></body></html>`;

const SITE_KEY = '10000000-ffff-ffff-ffff-000000000001';

/** Fixture pages by path: [status, html]. `wall`: the page is the challenge alone. */
export function widgetPage(path: string, wall: boolean): [number, string] | undefined {
  switch (path) {
    case '/captcha/recaptcha-v2':
      return [
        200,
        page(
          'reCAPTCHA v2',
          '<script src="/www.google.com/recaptcha/api.js" async defer></script>',
          `<div class="g-recaptcha" data-sitekey="${SITE_KEY}" data-callback="onCaptcha"></div>`,
          wall,
        ),
      ];
    case '/captcha/recaptcha-v3':
      return [
        200,
        page('reCAPTCHA v3', `<script src="/www.google.com/recaptcha/api.js?render=${SITE_KEY}"></script>`, '', wall),
      ];
    case '/captcha/hcaptcha':
      return [
        200,
        page(
          'hCaptcha',
          '<script src="/js.hcaptcha.com/1/api.js" async defer></script>',
          `<div class="h-captcha" data-sitekey="${SITE_KEY}" data-callback="onCaptcha"></div>`,
          wall,
        ),
      ];
    case '/captcha/turnstile':
      return [
        200,
        page(
          'Turnstile',
          '<script src="/challenges.cloudflare.com/turnstile/v0/api.js" async defer></script>',
          `<div class="cf-turnstile" data-sitekey="${SITE_KEY}" data-callback="onCaptcha"></div>`,
          wall,
        ),
      ];
    case '/captcha/cloudflare-interstitial':
      return [
        403,
        `<!doctype html><html><head><title>Just a moment...</title></head><body><div class="main-wrapper"><div id="challenge-stage"></div>
<noscript>Enable JavaScript and cookies to continue</noscript>
<form id="challenge-form" action="/captcha/passed?__cf_chl_f_tk=0" method="POST"></form></div>
<script>window._cf_chl_opt = { cType: 'managed' };</script>
<script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1?ray=8f0000000000"></script></body></html>`,
      ];
    case '/captcha/arkose':
      return [
        200,
        page(
          'Arkose',
          '<script src="/client-api.arkoselabs.com/v2/11111111-1111-1111-1111-111111111111/api.js" async></script>',
          '<div id="FunCaptcha" data-pkey="11111111-1111-1111-1111-111111111111"></div>',
          wall,
        ),
      ];
    case '/captcha/geetest':
      return [
        200,
        page(
          'GeeTest',
          '<script src="/static.geetest.com/v4/gt4.js"></script>',
          `<div id="gt"></div><script>initGeetest4({ captchaId: '${SITE_KEY}' }, (c) => c.appendTo('#gt'));</script>`,
          wall,
        ),
      ];
    case '/captcha/aws-waf':
      return [
        405,
        `<!doctype html><html><head><title>Human Verification</title>
<script src="/a1b2c3d4.token.awswaf.com/a1b2c3d4/e5f6/challenge.js"></script>
<script src="/a1b2c3d4.captcha.awswaf.com/a1b2c3d4/e5f6/captcha.js"></script></head>
<body><div id="captcha-container" data-awswaf="captcha"></div>
<script>AwsWafCaptcha.renderCaptcha(document.getElementById('captcha-container'), {});</script></body></html>`,
      ];
    case '/captcha/datadome':
      return [
        403,
        `<!doctype html><html><head><title>example.com</title></head><body style="margin:0">
<script>var dd = { rt: 'c', cid: 'AHrlqAAAAAMA', hsh: 'ABCDEF', s: 17434, host: 'geo.captcha-delivery.com' };</script>
<script src="/js.datadome.co/tags.js"></script>
<iframe src="/geo.captcha-delivery.com/captcha/?initialCid=AHrlqAAAAAMA&cid=abc&referer=x" width="100%" height="600" title="DataDome CAPTCHA" frameborder="0"></iframe></body></html>`,
      ];
  }
  return undefined;
}
