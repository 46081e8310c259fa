// A loopback TCP proxy in front of the gateway that can lose an answer: it forwards a
// matching request, reads the gateway's whole answer (so the work was done), and then cuts
// the client's connection without sending a byte of it. A network fault, not a fake service.
import { connect, createServer, type Socket } from 'node:net';

export interface ProxiedRequest {
  /** `POST /v1/crawl HTTP/1.1` */
  line: string;
  headers: Record<string, string>;
}

export interface LostAnswer {
  request: ProxiedRequest;
  /** What the gateway answered and the client never saw: status and body. */
  status: number;
  body: string;
}

export interface FaultProxy {
  /** `http://127.0.0.1:<port>`: give it to the client as its base URL. */
  readonly url: string;
  /** Every request that passed, in order. */
  readonly requests: ProxiedRequest[];
  readonly lost: LostAnswer[];
  /** Loses the answers of the next `count` requests whose line matches. */
  loseAnswer(match: RegExp, count?: number): void;
  close(): Promise<void>;
}

const HEAD_END = '\r\n\r\n';

function parseHead(head: string): { line: string; headers: Record<string, string> } {
  const [line = '', ...rest] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const h of rest) {
    const colon = h.indexOf(':');
    if (colon > 0) headers[h.slice(0, colon).trim().toLowerCase()] = h.slice(colon + 1).trim();
  }
  return { line, headers };
}

/** The length of a whole HTTP message at the start of `buffer`, or undefined while it is incomplete. */
function messageLength(buffer: Buffer): number | undefined {
  const end = buffer.indexOf(HEAD_END);
  if (end < 0) return undefined;
  const { headers } = parseHead(buffer.subarray(0, end).toString('latin1'));
  const bodyStart = end + HEAD_END.length;
  if (headers['transfer-encoding']?.includes('chunked')) {
    const last = buffer.indexOf('\r\n0\r\n\r\n', bodyStart - 2);
    return last < 0 ? undefined : last + '\r\n0\r\n\r\n'.length;
  }
  const length = Number(headers['content-length'] ?? 0);
  return buffer.length >= bodyStart + length ? bodyStart + length : undefined;
}

function dechunk(body: Buffer): string {
  let out = '';
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    const size = Number.parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (!size) return out;
    out += body.subarray(lineEnd + 2, lineEnd + 2 + size).toString('utf8');
    at = lineEnd + 2 + size + 2;
  }
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const { hostname, port } = new URL(target);
  const requests: ProxiedRequest[] = [];
  const lost: LostAnswer[] = [];
  const rules: { match: RegExp; count: number }[] = [];
  const sockets = new Set<Socket>();

  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    let pending = Buffer.alloc(0);
    let losing: ProxiedRequest | undefined;
    let answer = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      // Each whole request: recorded, and marked when its answer is to be lost.
      for (let length = messageLength(pending); length !== undefined; length = messageLength(pending)) {
        const head = pending.subarray(0, pending.indexOf(HEAD_END)).toString('latin1');
        const request = parseHead(head);
        requests.push(request);
        const rule = rules.find((r) => r.count > 0 && r.match.test(request.line));
        if (rule) {
          rule.count--;
          losing = request;
        }
        pending = pending.subarray(length);
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!losing) return void client.write(chunk);
      answer = Buffer.concat([answer, chunk]);
      const length = messageLength(answer);
      if (length === undefined) return;
      const end = answer.indexOf(HEAD_END);
      const head = parseHead(answer.subarray(0, end).toString('latin1'));
      const raw = answer.subarray(end + HEAD_END.length, length);
      lost.push({
        request: losing,
        status: Number(head.line.split(' ')[1]),
        body: head.headers['transfer-encoding']?.includes('chunked') ? dechunk(raw) : raw.toString('utf8'),
      });
      // The gateway finished its work and its answer; the client gets a reset instead.
      client.resetAndDestroy();
      upstream.destroy();
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    requests,
    lost,
    loseAnswer(match, count = 1) {
      rules.push({ match, count });
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
