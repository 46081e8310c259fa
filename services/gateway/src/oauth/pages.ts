// The sign-in and consent pages the gateway serves (docs/oauth.md): plain
// forms, no script, a policy that loads nothing and posts only to the
// gateway (and, from the consent page, on to the client's redirect origin).

import { escapeHtml } from '../http/html.js';

/** The pages' Content-Security-Policy; `redirectOrigin` may receive the form's redirect. */
export const pagePolicy = (redirectOrigin?: string) =>
  [
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    `form-action 'self'${redirectOrigin ? ` ${redirectOrigin}` : ''}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:26rem;margin:4rem auto;padding:0 1rem;color:#1b1f24}
h1{font-size:1.3rem}label{display:block;margin:.8rem 0 .2rem}input,select{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}
button{margin-top:1rem;padding:.6rem 1rem;font:inherit;cursor:pointer}.row{display:flex;gap:.5rem}.fail{color:#b00020}
.muted{color:#57606a;font-size:.9rem}`;

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;

/** "5 seconds", "a minute", "15 minutes". */
const duration = (seconds: number) => {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? 'a minute' : `${minutes} minutes`;
};

export function signInPage(o: {
  client: string;
  request: string;
  failed?: boolean;
  email?: string;
  /** Too many failed sign-ins: seconds before the next one is checked. */
  waitSeconds?: number;
}) {
  const notice = o.waitSeconds
    ? `<p class="fail" id="wait">Too many failed sign-ins. Please wait ${duration(o.waitSeconds)} and try again.</p>`
    : o.failed
      ? '<p class="fail" id="failed">That email and password do not match an account.</p>'
      : '';
  return page(
    'Sign in',
    `<h1>Sign in to connect ${escapeHtml(o.client)}</h1>
<p class="muted">${escapeHtml(o.client)} asks to act in one of your workspaces.</p>
${notice}
<form method="post" action="/oauth/authorize">
<input type="hidden" name="step" value="sign-in"><input type="hidden" name="request" value="${escapeHtml(o.request)}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(o.email ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit" id="sign-in">Sign in</button>
</form>`,
  );
}

export function consentPage(o: {
  client: string;
  surface: string;
  redirect: string;
  workspaces: { id: string; name: string }[];
  request: string;
}) {
  const options = o.workspaces
    .map((w) => `<option value="${escapeHtml(w.id)}">${escapeHtml(w.name)}</option>`)
    .join('');
  return page(
    'Allow access',
    `<h1>Allow ${escapeHtml(o.client)}?</h1>
<p><strong>${escapeHtml(o.client)}</strong> will use ${escapeHtml(o.surface)} as you, in the workspace you pick, spending its credits, until you sign out. It will be sent back to <code>${escapeHtml(o.redirect)}</code>.</p>
<form method="post" action="/oauth/authorize">
<input type="hidden" name="step" value="consent"><input type="hidden" name="request" value="${escapeHtml(o.request)}">
<label for="workspace">Workspace</label><select id="workspace" name="workspace">${options}</select>
<div class="row"><button type="submit" name="decision" value="allow" id="allow">Allow</button>
<button type="submit" name="decision" value="deny" id="deny">Deny</button></div>
</form>`,
  );
}

export function errorPage(message: string) {
  return page('Cannot continue', `<h1>Cannot continue</h1><p id="error">${escapeHtml(message)}</p>`);
}
