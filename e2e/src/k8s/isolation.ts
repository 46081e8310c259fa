// What a browser host's pod and the pages its browsers load can reach on the
// cluster of `make cluster`, whose NetworkPolicies kube-router's firewall
// enforces (docs/cluster.md), how two sessions of one pod are kept apart
// (docs/connect.md, "Isolation"), and what NATS and the ledger answer a process
// of the pod without the host's credentials. Used by chart.k8s.ts.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { promisify } from 'node:util';
import { until } from '@wap/testkit';
import { chromium } from 'playwright-core';
import { upgrade } from '../api.js';
import { apply, isReady, json, kubectl, type Pod } from './kube.js';

const run = promisify(execFile);
const BRIDGE = 'wapbr0';

/** Stand-ins on the node for what a cluster in a cloud has around it. */
export const STAND_INS = {
  /** A public web site (a documentation range, counted as the internet by the chart's NetworkPolicy). */
  public: { address: '198.51.100.1', port: 8080, title: 'A public site' },
  /** A cloud's metadata endpoint (AWS ECS task credentials' address). */
  metadata: { address: '169.254.170.2', port: 80, title: 'Metadata' },
} as const;

/** Starts a small HTTP server on each stand-in's address, added to the bridge; answers how to stop them. */
export async function startStandIns(): Promise<() => Promise<void>> {
  const servers: Server[] = [];
  for (const { address, port, title } of Object.values(STAND_INS)) {
    await run('ip', ['addr', 'replace', `${address}/32`, 'dev', BRIDGE]);
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><title>${title}</title><p>${title} answered.</p>`);
    });
    await new Promise<void>((resolve) => server.listen(port, address, resolve));
    servers.push(server);
  }
  return async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    for (const { address } of Object.values(STAND_INS)) {
      await run('ip', ['addr', 'del', `${address}/32`, 'dev', BRIDGE]).catch(() => undefined);
    }
  };
}

export interface Target {
  host: string;
  port: number;
}

/**
 * Run with `node -e` in a pod: a TCP connection to each target (JSON in
 * argv[1]), and a DNS lookup of the cluster's API name; prints what each
 * came to: open, refused, timeout, or the error's code.
 */
const PROBE = `
const net = require('node:net'), dns = require('node:dns/promises');
const targets = JSON.parse(process.argv[1]);
const tcp = ({ host, port }) => new Promise((resolve) => {
  const socket = net.connect({ host, port });
  const done = (what) => { socket.destroy(); resolve(what); };
  socket.setTimeout(4000, () => done('timeout'));
  socket.once('connect', () => done('open'));
  socket.once('error', (err) => done(err.code === 'ECONNREFUSED' ? 'refused' : err.code));
});
(async () => {
  const out = {};
  await Promise.all(Object.entries(targets).map(async ([name, t]) => { out[name] = await tcp(t); }));
  out.dns = await dns.lookup('kubernetes.default.svc.cluster.local').then(() => 'open', (err) => err.code);
  console.log(JSON.stringify(out));
})();
`;

/** Where a connection from a pod's network to each target got: open, or how it was stopped. */
export async function reach(
  pod: string,
  container: string,
  targets: Record<string, Target>,
): Promise<Record<string, string>> {
  const out = await kubectl('exec', pod, '-c', container, '--', 'node', '-e', PROBE, JSON.stringify(targets));
  return JSON.parse(out) as Record<string, string>;
}

/**
 * A pod of another application in the namespace, selected by no policy of
 * the chart: it shows each stand-in and node port answers when a policy does
 * not stop the connection, and it serves on 8080 itself.
 */
export async function startOtherApp(image: string): Promise<Pod> {
  const labels = { 'app.kubernetes.io/name': 'other-app' };
  apply(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'other-app', labels },
      spec: {
        securityContext: { runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: 'RuntimeDefault' } },
        automountServiceAccountToken: false,
        containers: [
          {
            name: 'app',
            image,
            imagePullPolicy: 'Never',
            command: ['node', '-e', "require('node:http').createServer((q, s) => s.end('ok')).listen(8080)"],
            ports: [{ containerPort: 8080 }],
            readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 2 },
            resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { memory: '128Mi' } },
            securityContext: {
              allowPrivilegeEscalation: false,
              readOnlyRootFilesystem: true,
              capabilities: { drop: ['ALL'] },
            },
          },
        ],
      },
    }),
  );
  let pod: Pod | undefined;
  await until(
    'the other application ready',
    async () => {
      pod = await json<Pod>('get', 'pod', 'other-app');
      return isReady(pod);
    },
    120_000,
  );
  return pod as Pod;
}

export interface PageVisit {
  status: number | null;
  text: string;
}

/**
 * Opens a session through the gateway's /connect as a client in the cluster
 * does (the host's address resolved by `resolve`), loads each URL in a page
 * of it, and answers what the page got: the status and text, or the error.
 */
export async function visit(
  gateway: string,
  key: string,
  resolve: (host: string) => Promise<string>,
  urls: Record<string, string>,
): Promise<Record<string, PageVisit>> {
  const { res } = await upgrade(`${gateway}/connect`, { Authorization: `Bearer ${key}` });
  const location = res.headers.location;
  if (res.statusCode !== 302 || !location) throw new Error(`GET /connect answered ${res.statusCode}`);
  const url = new URL(location);
  url.hostname = await resolve(url.hostname);
  const browser = await chromium.connectOverCDP(url.toString(), { timeout: 60_000 });
  const out: Record<string, PageVisit> = {};
  try {
    const page = await (browser.contexts()[0] ?? (await browser.newContext())).newPage();
    for (const [name, target] of Object.entries(urls)) {
      try {
        const response = await page.goto(target, { timeout: 20_000 });
        out[name] = { status: response?.status() ?? null, text: (await page.textContent('body')) ?? '' };
      } catch (err) {
        out[name] = { status: null, text: String((err as Error).message).split('\n')[0] ?? '' };
      }
    }
    // Ends the session (the host bills it and frees its slot).
    const cdp = await browser.newBrowserCDPSession();
    await cdp.send('Browser.close').catch(() => undefined);
  } finally {
    await browser.close().catch(() => undefined);
  }
  return out;
}

/**
 * Run in a browser host's pod while two sessions live in it: for the first
 * two session browsers, as the first one's OS user (setpriv, as the host
 * starts it), reads its own and the other's user-data dir, and asks its own
 * and the other's egress proxy for the public stand-in. Prints JSON.
 */
const TWO_SESSIONS = `
const fs = require('node:fs'), { execFileSync } = require('node:child_process');
const browsers = [];
for (const pid of fs.readdirSync('/proc').filter((p) => /^\\d+$/.test(p))) {
  let args;
  try { args = fs.readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0'); } catch { continue; }
  if (!/chromium$/.test(args[0] || '') || args.some((a) => a.startsWith('--type='))) continue;
  const dir = (args.find((a) => a.startsWith('--user-data-dir=/tmp/wap-session-')) || '').split('=')[1];
  const proxy = (args.find((a) => a.startsWith('--proxy-server=')) || '').split('=')[1];
  if (!dir || !proxy) continue;
  const uid = Number(/^Uid:\\s+(\\d+)/m.exec(fs.readFileSync('/proc/' + pid + '/status', 'utf8'))[1]);
  browsers.push({ uid, dir, proxy });
}
const [a, b] = browsers;
if (!a || !b) { console.log(JSON.stringify({ browsers })); process.exit(0); }
const AS_A = \`
const fs = require('node:fs'), http = require('node:http');
const [a, b, target] = JSON.parse(process.argv[1]);
const read = (dir) => { try { fs.readdirSync(dir); return 'read'; } catch (err) { return err.code; } };
const ask = (proxy) => new Promise((resolve) => {
  const p = new URL(proxy);
  const req = http.get({ host: p.hostname, port: p.port, path: target, headers: { host: new URL(target).host } }, (res) => {
    res.resume(); res.on('end', () => resolve(res.statusCode));
  });
  req.setTimeout(10000, () => { req.destroy(); resolve('timeout'); });
  req.on('error', (err) => resolve(err.code));
});
(async () => console.log(JSON.stringify({
  ownDir: read(a.dir), otherDir: read(b.dir), ownProxy: await ask(a.proxy), otherProxy: await ask(b.proxy),
})))();
\`;
const out = execFileSync('setpriv', ['--reuid=' + a.uid, '--regid=' + a.uid, '--clear-groups', '--no-new-privs',
  'node', '-e', AS_A, JSON.stringify([a, b, process.argv[1]])], { encoding: 'utf8', cwd: '/' });
console.log(JSON.stringify({ browsers, asFirst: JSON.parse(out) }));
`;

export interface TwoSessions {
  browsers: { uid: number; dir: string; proxy: string }[];
  asFirst?: { ownDir: string; otherDir: string; ownProxy: number | string; otherProxy: number | string };
}

/** What one session's OS user can do to another's files and proxy in `pod` (two sessions live there). */
export async function twoSessions(pod: string, target: string): Promise<TwoSessions> {
  const out = await kubectl('exec', pod, '-c', 'browser-host', '--', 'node', '-e', TWO_SESSIONS, target);
  return JSON.parse(out) as TwoSessions;
}

/**
 * Run in a browser host's pod as a uid that is not the host's (setpriv, as a
 * session's Chromium runs): reads the host process's environment, connects to
 * NATS without credentials (its INFO, then CONNECT and PING: what the server
 * answers), and calls the ledger's Credits and the health service over HTTP/2
 * without a token (each call's grpc-status). Prints JSON.
 */
const AS_ANOTHER_UID = `
const fs = require('node:fs'), net = require('node:net'), http2 = require('node:http2');
const { nats, ledger } = JSON.parse(process.argv[1]);
const host = fs.readdirSync('/proc').filter((p) => /^\\d+$/.test(p) && p !== String(process.pid)).find((pid) => {
  try { return fs.readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0').some((a) => a.endsWith('services/browser-host/dist/main.js')); }
  catch { return false; }
});
const environ = (() => {
  if (!host) return 'no host process';
  try { fs.readFileSync('/proc/' + host + '/environ'); return 'read'; } catch (err) { return err.code; }
})();
const natsAnswer = () => new Promise((resolve) => {
  const socket = net.connect(nats);
  let text = '';
  socket.setTimeout(5000, () => { socket.destroy(); resolve({ text, end: 'timeout' }); });
  socket.on('data', (chunk) => {
    const before = text;
    text += chunk;
    if (!before.includes('\\r\\n') && text.includes('\\r\\n')) socket.write('CONNECT {"verbose":false,"pedantic":false}\\r\\nPING\\r\\n');
  });
  socket.on('close', () => resolve({ text, end: 'closed' }));
  socket.on('error', (err) => resolve({ text, end: err.code }));
});
const grpcStatus = (path) => new Promise((resolve) => {
  const session = http2.connect('http://' + ledger.host + ':' + ledger.port);
  session.on('error', (err) => resolve(err.code));
  const req = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' });
  let status;
  const take = (headers) => { if (headers['grpc-status'] !== undefined) status = headers['grpc-status']; };
  req.on('response', take);
  req.on('trailers', take);
  req.on('data', () => {});
  req.on('end', () => { session.close(); resolve(status ?? 'none'); });
  req.on('error', (err) => { session.close(); resolve(err.code); });
  req.setTimeout(5000, () => { req.close(); session.close(); resolve('timeout'); });
  req.end(Buffer.alloc(5));
});
(async () => {
  const info = await natsAnswer();
  console.log(JSON.stringify({
    uid: process.getuid(),
    hostEnviron: environ,
    natsAsksCredentials: /"auth_required":\\s*true/.test(info.text),
    nats: info.text.split('\\r\\n').filter((l) => l && !l.startsWith('INFO ')).join(' | ') + ' (' + info.end + ')',
    ledgerCredits: await grpcStatus('/wap.billing.v1.LedgerService/Credits'),
    ledgerHealth: await grpcStatus('/grpc.health.v1.Health/Check'),
  }));
})();
`;

export interface WithoutCredentials {
  uid: number;
  hostEnviron: string;
  natsAsksCredentials: boolean;
  nats: string;
  ledgerCredits: string;
  ledgerHealth: string;
}

/**
 * What a process of a browser host's pod running as `uid` (not the host's, as a
 * session's Chromium) gets from NATS and the ledger at `targets`, having no
 * credentials: it cannot read them from the host's environment.
 */
export async function withoutCredentials(
  pod: string,
  uid: number,
  targets: { nats: Target; ledger: Target },
): Promise<WithoutCredentials> {
  const asUid = ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--no-new-privs'];
  const out = await kubectl(
    'exec',
    pod,
    '-c',
    'browser-host',
    '--',
    ...asUid,
    // From /, which any uid may enter.
    'env',
    '-C',
    '/',
    'node',
    '-e',
    AS_ANOTHER_UID,
    JSON.stringify(targets),
  );
  return JSON.parse(out) as WithoutCredentials;
}
