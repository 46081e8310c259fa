// What the host's CDP relay costs per message, apart from sockets and
// Chromium (docs/decisions/0036-relay-reads-without-parsing.md): a client's
// command through the filter and the hub onto the pipe, and Chromium's
// message off the pipe through the hub and the filter, on in-memory streams,
// in CPU microseconds a message, by kind. connect.bench measures the relay
// whole, with its sockets and a real Chromium.
//   node services/browser-host/dist/sessions/relay.bench.js   (or make bench)
// Prints a table, then one JSON line (the last line) for tools.
import { PassThrough, Writable } from 'node:stream';
import { CdpFilter } from './cdp-filter.js';
import { type CdpChannel, CdpHub } from './cdp-hub.js';

const ROUNDS = Number(process.env.BENCH_RELAY_ROUNDS ?? 5);
const BROWSER = 'B'.repeat(32);
const PAGE = 'A1B2C3D4E5F60718293A4B5C6D7E8F90';

const clientKinds: Record<string, { text: string; count: number }> = {
  'Runtime.evaluate 1': {
    text: `{"id":7,"method":"Runtime.evaluate","params":{"expression":"1"},"sessionId":"${PAGE}"}`,
    count: 50_000,
  },
  'Input.dispatchMouseEvent': {
    text: `{"id":8,"method":"Input.dispatchMouseEvent","params":{"type":"mouseMoved","x":120.5,"y":88,"button":"none","modifiers":0},"sessionId":"${PAGE}"}`,
    count: 50_000,
  },
  'Page.navigate': {
    text: `{"id":9,"method":"Page.navigate","params":{"url":"https://example.com/a/path?q=1"},"sessionId":"${PAGE}"}`,
    count: 50_000,
  },
  'Runtime.callFunctionOn (args)': {
    text: `{"id":10,"method":"Runtime.callFunctionOn","params":{"functionDeclaration":"(a,b)=>a+b","arguments":[{"value":1},{"value":2}],"executionContextId":3,"returnByValue":true},"sessionId":"${PAGE}"}`,
    count: 50_000,
  },
  'Runtime.evaluate 256 KB': {
    text: JSON.stringify({
      id: 11,
      method: 'Runtime.evaluate',
      params: { expression: `"${'x'.repeat(256 * 1024)}"` },
      sessionId: PAGE,
    }),
    count: 500,
  },
};

const browserKinds: Record<string, { text: string; count: number }> = {
  'answer, small': {
    text: `{"id":7,"result":{"result":{"type":"number","value":1,"description":"1"}},"sessionId":"${PAGE}"}`,
    count: 50_000,
  },
  'Network.requestWillBeSent': {
    text: JSON.stringify({
      method: 'Network.requestWillBeSent',
      params: {
        requestId: '1000.1',
        loaderId: 'L'.repeat(32),
        documentURL: 'https://example.com/',
        request: { url: 'https://example.com/app.js', method: 'GET', headers: { 'User-Agent': 'x'.repeat(120) } },
        timestamp: 1234.5,
        wallTime: 1_700_000_000.1,
        initiator: { type: 'parser', url: 'https://example.com/', lineNumber: 12 },
        type: 'Script',
        frameId: 'F'.repeat(32),
      },
      sessionId: PAGE,
    }),
    count: 50_000,
  },
  'Runtime.executionContextCreated (read)': {
    text: `{"method":"Runtime.executionContextCreated","params":{"context":{"id":3,"origin":"https://example.com","name":"","uniqueId":"-1.-2","auxData":{"isDefault":true,"type":"default","frameId":"F1"}}},"sessionId":"${PAGE}"}`,
    count: 20_000,
  },
  'screenshot 1.5 MB': {
    text: `{"id":12,"result":{"data":"${Buffer.alloc(1.1 * 1024 * 1024, 7).toString('base64')}"},"sessionId":"${PAGE}"}`,
    count: 200,
  },
};

/** CPU microseconds a call of `run` takes, `count` calls a round, the median of the rounds. */
async function measure(count: number, run: () => Promise<void>): Promise<number> {
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS + 1; r++) {
    const start = process.cpuUsage();
    for (let i = 0; i < count; i++) await run();
    const used = process.cpuUsage(start);
    // The first round warms the code up.
    if (r > 0) rounds.push((used.user + used.system) / count);
  }
  rounds.sort((a, b) => a - b);
  return rounds[Math.floor(rounds.length / 2)] as number;
}

async function main() {
  let written = 0;
  const toBrowser = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written += chunk.length;
      done();
    },
    writev(chunks, done) {
      for (const c of chunks) written += (c.chunk as Buffer).length;
      done();
    },
  });
  const fromBrowser = new PassThrough();
  const hub = new CdpHub(toBrowser, fromBrowser);
  const opening = hub.open();
  await new Promise((resolve) => setImmediate(resolve));
  fromBrowser.write(`{"id":1,"result":{"sessionId":"${BROWSER}"}}\0`);
  const channel: CdpChannel = await opening;
  // The page's session, attached through this connection.
  fromBrowser.write(
    `{"method":"Target.attachedToTarget","params":{"sessionId":"${PAGE}","targetInfo":{"targetId":"T1","type":"page","url":"about:blank"},"waitingForDebugger":false},"sessionId":"${BROWSER}"}\0`,
  );
  await new Promise((resolve) => setImmediate(resolve));
  const filter = new CdpFilter();
  // A page context the client was shown, so the callFunctionOn above is forwarded.
  filter.fromBrowser(browserKinds['Runtime.executionContextCreated (read)']?.text as string);

  const rows: { direction: string; message: string; bytes: number; 'µs/message': string }[] = [];
  const figures: Record<string, number> = {};
  for (const [name, { text, count }] of Object.entries(clientKinds)) {
    // A client's messages arrive as many as one socket read holds, and go to the pipe at the end of that turn.
    const batch = Math.max(1, Math.min(100, Math.floor((64 * 1024) / text.length)));
    const us =
      (await measure(Math.ceil(count / batch), async () => {
        for (let i = 0; i < batch; i++) {
          const verdict = filter.fromClient(text);
          if (verdict.kind !== 'forward') throw new Error(`${name}: ${verdict.kind}`);
          channel.send(verdict.text);
        }
        await new Promise((resolve) => setImmediate(resolve));
      })) / batch;
    rows.push({ direction: 'client → Chromium', message: name, bytes: text.length, 'µs/message': us.toFixed(2) });
    figures[`client ${name}`] = Number(us.toFixed(2));
  }
  let delivered = 0;
  channel.onmessage = (text) => {
    if (filter.fromBrowser(text).toClient !== undefined) delivered++;
  };
  for (const [name, { text, count }] of Object.entries(browserKinds)) {
    const framed = Buffer.from(`${text}\0`);
    // Chromium's messages arrive in chunks of many; each is handed over on a turn of its own.
    const batch = Math.max(1, Math.min(100, Math.floor((64 * 1024) / framed.length)));
    const us =
      (await measure(Math.ceil(count / batch), async () => {
        const target = delivered + batch;
        for (let i = 0; i < batch; i++) fromBrowser.write(framed);
        while (delivered < target) await new Promise((resolve) => setImmediate(resolve));
      })) / batch;
    rows.push({ direction: 'Chromium → client', message: name, bytes: text.length, 'µs/message': us.toFixed(2) });
    figures[`chromium ${name}`] = Number(us.toFixed(2));
  }
  if (delivered === 0 || written === 0) throw new Error('nothing went through the relay');
  hub.end();
  console.log(`\nThe CDP relay's CPU per message (filter and hub, in-memory pipe; median of ${ROUNDS} rounds)\n`);
  console.table(rows);
  console.log(JSON.stringify({ bench: 'browser-host.relay', usPerMessage: figures }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
