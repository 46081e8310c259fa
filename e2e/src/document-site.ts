// Documents served as a site serves them, for the suites that scrape (and upload) them: on
// 127.0.0.2, the one loopback address the 'site' fleet lets out to.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ServedFile {
  type: string;
  body: Buffer;
}

/** A report of `chapters` chapters, a page each, the second with a table: what the PDF tests print. */
export const reportHtml = (chapters: number) =>
  Array.from({ length: chapters }, (_, i) => i + 1)
    .map(
      (n) =>
        `<h1>Chapter ${n} of the report</h1><p>The archive's ${n === 1 ? 'first' : 'next'} chapter tells how the records were kept, in a paragraph long enough to wrap over several printed lines of the page.</p>` +
        (n === 2
          ? '<table style="border-collapse:collapse"><tr><th style="border:1px solid;padding:5px">Year</th><th style="border:1px solid;padding:5px">Visitors</th></tr><tr><td style="border:1px solid;padding:5px">2023</td><td style="border:1px solid;padding:5px">1,610</td></tr><tr><td style="border:1px solid;padding:5px">2024</td><td style="border:1px solid;padding:5px">1,702</td></tr></table>'
          : ''),
    )
    .join('<div style="break-after:page"></div>');

/**
 * Serves `files` by path with their type and length; `special` answers a request first when it
 * returns true (a file made on demand, a body that never ends). 404 for anything else.
 */
export async function serveFiles(
  files: Map<string, ServedFile>,
  special: (req: IncomingMessage, res: ServerResponse) => boolean = () => false,
): Promise<{ base: string; close: () => void }> {
  const server = createServer((req, res) => {
    if (special(req, res)) return;
    const file = files.get(req.url ?? '');
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file.type, 'content-length': file.body.length }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
  return {
    base: `http://127.0.0.2:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
