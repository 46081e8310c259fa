// A bot-detection site on loopback: a page that asks a browser what careful
// detectors ask (page.ts), in its every context, and a judgement of the
// answers against the headers each request carried (verdict.ts). Two
// listeners, on two loopback addresses, so the page's frame is of another
// site (an out-of-process frame, a target of its own in Chromium).
//
//   const site = await startDetectionSite();
//   const visit = site.visit();          // { id, url }: a page of its own per visit
//   site.visit('held-out')               // the held-out detectors' page instead (held-out.ts)
//   await page.goto(visit.url);          // any engine, any client
//   const verdict = await site.verdict(visit.id); // once the page has reported
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { heldOutPage, heldOutScripts, judgeHeldOut } from './held-out.js';
import { detectionScript, FRAME_PAGE, HINTS, WORKER_SCRIPTS } from './page.js';
import { judge, type Received, type Verdict } from './verdict.js';

export interface DetectionSite {
  /** The page's origin: `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** A new visit of the suite's page or the held-out detectors': its URL, and the id its verdict is kept under. */
  visit(page?: VisitPage): { id: string; url: string };
  /** The verdict of a visit, once its page has reported (rejects after `timeoutMs`). */
  verdict(id: string, timeoutMs?: number): Promise<Verdict>;
  close(): Promise<void>;
}

/** The suite's own page (page.ts), or the held-out detectors' (held-out.ts). */
export type VisitPage = 'suite' | 'held-out';

export interface DetectionSiteOptions {
  /** Where the page is served. Default 127.0.0.1. */
  host?: string;
  /** Where its cross-site frame is served. Default 127.0.0.2. */
  frameHost?: string;
}

/** The high-entropy hints asked for with Accept-CH, in the header names Chromium sends. */
const ACCEPT_CH = HINTS.flatMap((hint) => {
  const name = {
    architecture: 'Sec-CH-UA-Arch',
    bitness: 'Sec-CH-UA-Bitness',
    formFactors: 'Sec-CH-UA-Form-Factors',
    fullVersionList: 'Sec-CH-UA-Full-Version-List',
    model: 'Sec-CH-UA-Model',
    platformVersion: 'Sec-CH-UA-Platform-Version',
    wow64: 'Sec-CH-UA-WoW64',
  }[hint];
  return name ? [name] : [];
}).join(', ');

const VISIT_PATH = /^\/v\/([a-z0-9]{1,32})\/([a-z.-]{1,24})$/;
const MAX_REPORT = 2 * 1024 * 1024;

interface Visit {
  page: VisitPage;
  requests: Received[];
  verdict?: Verdict;
  waiting: ((verdict: Verdict) => void)[];
}

async function listen(server: Server, host: string): Promise<string> {
  server.listen(0, host);
  await once(server, 'listening');
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

function readReport(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REPORT) req.destroy();
      else parts.push(chunk);
    });
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(parts).toString('utf8')));
      } catch {
        resolve({});
      }
    });
    req.on('error', () => resolve({}));
  });
}

export async function startDetectionSite(options: DetectionSiteOptions = {}): Promise<DetectionSite> {
  const visits = new Map<string, Visit>();
  let frameOrigin = '';

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const match = VISIT_PATH.exec(new URL(req.url ?? '/', 'http://site').pathname);
    const visit = match && visits.get(match[1] as string);
    if (!match || !visit) return void res.writeHead(404).end();
    const [, id, file] = match as unknown as [string, string, string];
    visit.requests.push({ path: `/v/${id}/${file}`, rawHeaders: [...req.rawHeaders] });
    const base = `/v/${id}/`;
    if (file === 'page' && visit.page === 'held-out')
      return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(heldOutPage(base));
    if (file === 'page')
      return void res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'accept-ch': ACCEPT_CH })
        .end(
          `<!doctype html><html><head><title>detection</title></head><body><h1>detection</h1><script>${detectionScript(base, `${frameOrigin}${base}frame`)}</script></body></html>`,
        );
    if (file === 'frame')
      return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(FRAME_PAGE);
    const script = visit.page === 'held-out' ? heldOutScripts()[file] : WORKER_SCRIPTS[file];
    if (script) return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    if (file === 'report' && req.method === 'POST') {
      const answers = await readReport(req);
      const verdict =
        visit.page === 'held-out'
          ? judgeHeldOut(answers as Parameters<typeof judgeHeldOut>[0])
          : judge(answers as Parameters<typeof judge>[0], visit.requests);
      visit.verdict = verdict;
      for (const resolve of visit.waiting.splice(0)) resolve(verdict);
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(verdict));
    }
    res.writeHead(404).end();
  };

  const page = createServer((req, res) => void handle(req, res));
  const frame = createServer((req, res) => void handle(req, res));
  const url = await listen(page, options.host ?? '127.0.0.1');
  frameOrigin = await listen(frame, options.frameHost ?? '127.0.0.2');

  return {
    url,
    visit(page = 'suite') {
      const id = randomBytes(8).toString('hex');
      visits.set(id, { page, requests: [], waiting: [] });
      return { id, url: `${url}/v/${id}/page` };
    },
    verdict(id, timeoutMs = 30_000) {
      const visit = visits.get(id);
      if (!visit) return Promise.reject(new Error(`no visit ${id}`));
      if (visit.verdict) return Promise.resolve(visit.verdict);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`visit ${id} did not report in ${timeoutMs} ms`)), timeoutMs);
        visit.waiting.push((verdict) => {
          clearTimeout(timer);
          resolve(verdict);
        });
      });
    },
    async close() {
      page.closeAllConnections();
      frame.closeAllConnections();
      await Promise.all([new Promise((r) => page.close(r)), new Promise((r) => frame.close(r))]);
    },
  };
}
