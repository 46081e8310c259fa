// What the tests of GET /connect and of the sessions it opens share (connect.suite.ts,
// sessions.suite.ts, connect-faults.test.ts): the site their browsers visit, and the
// workspaces they make, every key kept to look for in the fleet's logs once the tests are done.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { SERVICES } from '@wap/config';
import type { Fleet } from '@wap/fleet';

const FORM = `<!doctype html><html><head><title>Form</title></head><body>
<input id="name"><button id="go" onclick="document.getElementById('out').textContent = 'Hello, ' + document.getElementById('name').value">go</button>
<p id="out"></p></body></html>`;

/** The pages of the recorded session: a form with a password and a frame from another origin, then two more. */
function recordedPage(url: string, port: number): string {
  if (url === '/rec/frame') return '<!doctype html><p>Framed from another origin</p>';
  if (url === '/rec/one')
    return `<!doctype html><title>One</title><h1>Sign up</h1><input id="name"><input id="secret" type="password">
<button id="go" onclick="document.getElementById('out').textContent = 'Welcome, ' + document.getElementById('name').value">go</button>
<p id="out"></p><iframe src="http://localhost:${port}/rec/frame"></iframe>`;
  return `<!doctype html><title>${url}</title><h1>Page ${url.slice(5)}</h1><p>The last words of ${url.slice(5)}</p>`;
}

export interface ConnectSite {
  server: Server;
  /** The form's page: a name to type, a button, a greeting. */
  url: string;
}

/** The site on 127.0.0.1: the form (at any path), a JSON answer, a 404, and the recorded walk under /rec/. */
export async function startConnectSite(): Promise<ConnectSite> {
  const server = createServer((req, res) => {
    if (req.url === '/api.json')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"answer":42}');
    if (req.url === '/missing') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('no');
    const port = (server.address() as { port: number }).port;
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(req.url?.startsWith('/rec/') ? recordedPage(req.url, port) : FORM);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/form` };
}

export const auth = (apiKey: string) => ({ Authorization: `Bearer ${apiKey}` });

/** The workspaces of one file's tests on `fleet`, with every key they were given. */
export function workspaces(fleet: () => Fleet) {
  const keys: string[] = [];
  return {
    workspace: async (plan = 'free') => {
      const created = await fleet().workspace(plan);
      keys.push(created.apiKey);
      return created;
    },
    /** No key of them, nor its secret, is in any service's log. */
    assertNoKeyLogged: () => {
      assert.ok(keys.length > 5);
      for (const service of SERVICES) {
        const log = readFileSync(fleet().logFile(service), 'utf8');
        for (const key of keys) {
          const secret = key.split('.')[1] as string;
          assert.ok(!log.includes(secret), `${service} logged a key's secret`);
        }
      }
    },
  };
}
