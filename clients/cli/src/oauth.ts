// `wap login` and `wap logout` (docs/oauth.md, "The CLI"): the CLI registers itself, sends
// the browser to the gateway's sign-in page with PKCE, a state and `resource` = the REST API,
// takes the code on a loopback redirect (RFC 8252) and stores the tokens; logout revokes them
// (RFC 7009) and forgets them. No token is ever printed.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Login, LoginStore } from '@web-access/sdk';

export interface ServerMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint: string;
  revocation_endpoint: string;
}

export class LoginFailed extends Error {
  override name = 'LoginFailed';
}

async function postForm(
  url: string,
  form: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    // not JSON: the status says enough
  }
  return { status: res.status, body };
}

/** The authorization server's metadata (RFC 8414). */
export async function discover(baseUrl: string): Promise<ServerMetadata> {
  let res: Response;
  try {
    res = await fetch(`${baseUrl}/.well-known/oauth-authorization-server`, { signal: AbortSignal.timeout(30_000) });
  } catch (err) {
    throw new LoginFailed(`${baseUrl} cannot be reached (${(err as Error).cause ?? (err as Error).message})`);
  }
  if (!res.ok) throw new LoginFailed(`${baseUrl} offers no sign-in (${res.status}); use an API key (--api-key)`);
  return (await res.json()) as ServerMetadata;
}

/** Opens `url` in the person's browser: $BROWSER if set (`%s` stands for the URL), else the platform's opener. */
export function openBrowser(url: string, env: Record<string, string | undefined>): Promise<boolean> {
  const custom = env.BROWSER?.trim();
  const [command, args] = custom
    ? custom.includes('%s')
      ? ['/bin/sh', ['-c', custom.replaceAll('%s', `'${url.replaceAll("'", "'\\''")}'`)]]
      : [custom, [url]]
    : process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url.replaceAll('&', '^&')]]
        : ['xdg-open', [url]];
  return new Promise((resolve) => {
    const child = spawn(command as string, args as string[], { stdio: 'ignore', detached: true });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}

const page = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif;margin:3em"><h1>${title}</h1><p>${text}</p></body>`;

export interface LoginOptions {
  baseUrl: string;
  store: LoginStore;
  env: Record<string, string | undefined>;
  /** Print the URL only (no browser is opened). */
  noBrowser: boolean;
  /** Longest wait for the person to sign in. */
  timeoutMs: number;
  note: (text: string) => void;
}

/** Signs in through the browser and stores the login; answers where it was stored. */
export async function login(o: LoginOptions): Promise<{ storage: string; warning?: string; file: string }> {
  const meta = await discover(o.baseUrl);
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const state = randomBytes(16).toString('base64url');

  let settle: (result: { code?: string; error?: string }) => void = () => undefined;
  const arrived = new Promise<{ code?: string; error?: string }>((resolve) => {
    settle = resolve;
  });
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (u.pathname !== '/callback') return void res.writeHead(404).end();
    const reply = (status: number, title: string, text: string) =>
      res
        .writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
        .end(page(title, text));
    // Another tab, or another program on this machine, must not finish this sign-in.
    if (u.searchParams.get('state') !== state)
      return reply(400, 'Not this sign-in', 'Start again from the command line.');
    const iss = u.searchParams.get('iss');
    if (iss && iss !== meta.issuer) {
      reply(400, 'Wrong server', 'The answer came from another server than the one asked.');
      return settle({ error: `the answer came from ${iss}, not ${meta.issuer}` });
    }
    const error = u.searchParams.get('error');
    if (error) {
      reply(400, 'Not signed in', `The sign-in ended: ${error}. You can close this tab.`);
      return settle({ error: u.searchParams.get('error_description') ?? error });
    }
    reply(200, 'Signed in', 'The command line has what it needs. You can close this tab.');
    settle({ code: u.searchParams.get('code') ?? '' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  try {
    const registered = await fetch(meta.registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'wap CLI',
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
      signal: AbortSignal.timeout(30_000),
    });
    const client = (await registered.json().catch(() => ({}))) as { client_id?: string; error_description?: string };
    if (!registered.ok || !client.client_id)
      throw new LoginFailed(
        `the server refused to register the CLI (${registered.status} ${client.error_description ?? ''})`,
      );
    const resource = `${o.baseUrl}/v1`;
    const authorize = new URL(meta.authorization_endpoint);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
      resource,
      scope: 'api',
    }))
      authorize.searchParams.set(k, v);
    const opened = !o.noBrowser && (await openBrowser(authorize.href, o.env));
    o.note(
      opened
        ? `Opened the browser to sign in. If it did not open, go to:\n${authorize.href}`
        : `Open this address in a browser to sign in:\n${authorize.href}`,
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new LoginFailed(`nobody signed in within ${Math.round(o.timeoutMs / 1000)} s`)),
        o.timeoutMs,
      );
    });
    const answer = await Promise.race([arrived, timeout]).finally(() => clearTimeout(timer));
    if (answer.error || !answer.code)
      throw new LoginFailed(`the sign-in ended without a code: ${answer.error ?? 'none'}`);
    const issued = await postForm(meta.token_endpoint, {
      grant_type: 'authorization_code',
      code: answer.code,
      redirect_uri: redirectUri,
      client_id: client.client_id,
      code_verifier: verifier,
      resource,
    });
    const b = issued.body;
    if (issued.status !== 200 || typeof b.access_token !== 'string' || typeof b.refresh_token !== 'string')
      throw new LoginFailed(`the code was refused (${issued.status} ${String(b.error ?? '')})`);
    const stored: Login = {
      baseUrl: o.baseUrl,
      clientId: client.client_id,
      accessToken: b.access_token,
      refreshToken: b.refresh_token,
      expiresAt: Date.now() + Number(b.expires_in ?? 3600) * 1000,
      tokenEndpoint: meta.token_endpoint,
      revocationEndpoint: meta.revocation_endpoint,
      ...(typeof b.scope === 'string' && { scope: b.scope }),
    };
    const previous = o.store.read();
    const written = o.store.write(stored);
    // The login this one replaces is revoked, not left valid for the rest of its 30 days.
    if (previous.status === 'found') await revoke(previous.login).catch(() => undefined);
    return { ...written, file: o.store.file };
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

/** Revokes a login's tokens: the refresh token names their family, so the access token ends too (docs/oauth.md). */
async function revoke(l: Login): Promise<void> {
  const res = await postForm(l.revocationEndpoint, {
    token: l.refreshToken,
    token_type_hint: 'refresh_token',
    client_id: l.clientId,
  });
  if (res.status !== 200) throw new Error(`the server answered ${res.status}`);
}

/** Revokes the stored login's tokens and forgets them. */
export async function logout(
  store: LoginStore,
): Promise<{ baseUrl: string; revoked: boolean; error?: string } | undefined> {
  const found = store.read();
  if (found.status !== 'found') {
    if (found.status === 'unreadable') store.remove();
    return undefined;
  }
  let error: string | undefined;
  await revoke(found.login).catch((err: Error) => {
    error = err.message;
  });
  store.remove();
  return { baseUrl: found.login.baseUrl, revoked: error === undefined, ...(error && { error }) };
}
