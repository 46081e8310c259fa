// make bench: JetStream on a cluster of three nats-server processes on loopback (PrivateInfra),
// as docs/scale.md sizes NATS from it:
// - stored publishes per second into a stream at replicas 1 and at replicas 3, 4 KB messages
//   (a recording chunk's order of size), BENCH_NATS_IN_FLIGHT awaiting their acks at once;
// - the gap a client sees when the server leading a replicas-3 stream is killed: from the kill
//   to the first publish stored again (the cluster elects a new leader), BENCH_NATS_KILLS times.
// Goal: the gap under 10 s, the time the end of a browser session waits for its recording's last
// chunks before it goes on (CLOSE_WAIT_MS in services/browser-host/src/recording/recording.ts).
//   node libs/testkit/dist/nats-cluster.bench.js
import { connectNats, ensureStreams, Publisher } from '@wap/events';
import { createLogger } from '@wap/log';
import { goal, printGoals } from './goals.js';
import { PrivateInfra } from './private-infra.js';

const MESSAGES = Number(process.env.BENCH_NATS_MESSAGES ?? 5_000);
const IN_FLIGHT = Number(process.env.BENCH_NATS_IN_FLIGHT ?? 64);
const KILLS = Number(process.env.BENCH_NATS_KILLS ?? 3);
const BODY = new Uint8Array(4096).fill(120);

const log = createLogger({ service: 'bench', level: 'silent' });

/** Stored publishes per second into `subject`, IN_FLIGHT at once. */
async function rate(publisher: Publisher, subject: string): Promise<number> {
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < MESSAGES) {
      const i = next++;
      await publisher.publishBytes(subject, BODY, { msgId: `${subject}:${i}` });
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return MESSAGES / ((performance.now() - started) / 1000);
}

/** The server leading `stream` now, from the monitoring endpoint of a live one. */
async function leaderOf(infra: PrivateInfra, stream: string, ask: number): Promise<number> {
  type Jsz = { account_details?: { stream_detail?: { name: string; cluster?: { leader?: string } }[] }[] };
  const jsz = await infra.natsMonitor<Jsz>(ask, 'jsz?accounts=true&streams=true');
  const detail = jsz.account_details?.flatMap((a) => a.stream_detail ?? []).find((d) => d.name === stream);
  return Number(String(detail?.cluster?.leader).replace('wap-', ''));
}

async function main() {
  const infra = new PrivateInfra({ natsServers: 3 });
  await infra.init();
  const link = await connectNats({ url: infra.infra.natsUrl, name: 'bench', log });
  try {
    await ensureStreams(link.nc, [{ name: 'R1', subjects: ['r1.>'], retention: 'limits' }], [], 1);
    await ensureStreams(link.nc, [{ name: 'R3', subjects: ['r3.>'], retention: 'limits' }], [], 3);
    const publisher = new Publisher(link.nc);
    const r1 = await rate(publisher, 'r1.x');
    const r3 = await rate(publisher, 'r3.x');

    const gaps: number[] = [];
    for (let k = 0; k < KILLS; k++) {
      const leader = await leaderOf(infra, 'R3', (k + 1) % 3);
      await infra.stopNatsServer(leader);
      const killed = performance.now();
      for (let i = 0; ; i++) {
        try {
          await publisher.publishBytes('r3.gap', BODY, { msgId: `gap:${k}:${i}` });
          break;
        } catch {
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      gaps.push(performance.now() - killed);
      await infra.startNatsServer(leader);
    }
    const worst = Math.max(...gaps);
    console.log(
      `4 KB publishes stored, ${IN_FLIGHT} in flight: replicas 1 ${r1.toFixed(0)}/s, replicas 3 ${r3.toFixed(0)}/s`,
    );
    console.log(
      `leader killed, publishes stored again after: ${gaps.map((g) => `${(g / 1000).toFixed(1)} s`).join(', ')}`,
    );
    const goals = [
      goal('JetStream replicas-3 stream leader killed: publishes stored again', worst, '<=', 10_000, 'ms'),
    ];
    printGoals(goals);
    console.log(
      JSON.stringify({
        bench: 'nats-cluster',
        messages: MESSAGES,
        inFlight: IN_FLIGHT,
        publishesPerSecond: { replicas1: Math.round(r1), replicas3: Math.round(r3) },
        gapsMs: gaps.map(Math.round),
        goals,
      }),
    );
  } finally {
    await link.drain();
    await infra.destroy();
  }
}

void main();
