// The egress proxy hands a site exactly what the browser sent, in its order:
// a browser talking to a proxy says Proxy-Connection where it would say
// Connection to the site, and nothing of the proxy's own (a Connection: close
// of Node's, a Proxy-Authorization) may reach the site. A loopback site that
// records its raw headers, the proxy as a browser host runs it, a request
// written byte for byte as Chromium 156 writes it to a proxy.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { AllowList } from '@wap/netguard';
import { EgressProxy } from './proxy.js';

let site: Server;
let port = 0;
const received: string[][] = [];

before(async () => {
  site = createServer((req, res) => {
    received.push(req.rawHeaders);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  port = (site.address() as { port: number }).port;
});
after(() => site.close());

/** Chromium's headers for a plain-http navigation, as it sends them to a site directly. */
const browserHeaders = () => [
  ['Host', `127.0.0.1:${port}`],
  ['Connection', 'keep-alive'],
  ['Upgrade-Insecure-Requests', '1'],
  [
    'User-Agent',
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
  ],
  ['Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'],
  ['Accept-Encoding', 'gzip, deflate, br, zstd'],
  ['Accept-Language', 'en-US,en;q=0.9'],
];

/**
 * Chromium's request to a proxy: its headers with Proxy-Connection in Connection's place, and
 * `credentials` after it when given. Sent on a socket of its own; answers the headers the site got.
 */
function throughProxy(proxy: EgressProxy, credentials?: string): Promise<string[] | undefined> {
  const toProxy = browserHeaders().flatMap(([name, value]) => {
    if (name !== 'Connection') return [[name, value]];
    const proxyConnection = [['Proxy-Connection', value]];
    return credentials ? [...proxyConnection, ['Proxy-Authorization', `Basic ${credentials}`]] : proxyConnection;
  });
  const head = `GET http://127.0.0.1:${port}/page HTTP/1.1\r\n${toProxy.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;
  received.length = 0;
  const { port: proxyPort } = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(proxyPort), '127.0.0.1', () => socket.write(head));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (!answer.includes('\r\n\r\n')) return;
      socket.destroy();
      assert.match(answer, /^HTTP\/1\.1 200/);
      resolve(received[0]);
    });
    socket.on('error', reject);
  });
}

test("a plain-http request reaches the site with the browser headers, Connection in Proxy-Connection's place", async () => {
  const proxy = new EgressProxy(AllowList.parse('127.0.0.0/8'), { owner: true });
  await proxy.start();
  try {
    assert.deepEqual(await throughProxy(proxy), browserHeaders().flat());
  } finally {
    await proxy.stop();
  }
});

test("a tenant's credentials are the proxy's: they never reach the site", async () => {
  const proxy = new EgressProxy(AllowList.parse('127.0.0.0/8'));
  await proxy.start();
  const tenant = proxy.open();
  try {
    const credentials = Buffer.from(`${tenant.username}:${tenant.password}`).toString('base64');
    assert.deepEqual(await throughProxy(proxy, credentials), browserHeaders().flat());
  } finally {
    tenant.close();
    await proxy.stop();
  }
});
