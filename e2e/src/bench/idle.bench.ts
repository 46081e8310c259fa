// make bench: what an idle fleet holds. `make up`'s own command (with data,
// ports and databases of its own) starts the whole fleet; once it is up and
// has sat idle, the resident memory (VmRSS) of the supervisor and of each
// service process is read from /proc. Browsers the browser-host keeps warm
// are reported apart: the budget is the fleet without browsers.
// Goals: at most 80 MB a process; at most 0.6 GB the idle fleet.
import { readdirSync, readFileSync } from 'node:fs';
import { Fleet } from '@wap/fleet';
import { goal, printGoals } from '@wap/testkit';
import { makeUp, upAndReady } from '../make-up-run.js';
import { table } from './run-load.js';

const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 20);
const PROCESS_MB = 80;
const FLEET_MB = 600;

interface Proc {
  pid: number;
  ppid: number;
  cmdline: string;
  rssMb: number;
}

function processes(): Proc[] {
  const out: Proc[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const rss = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
      const ppid = /PPid:\s+(\d+)/.exec(status)?.[1];
      if (!rss || !ppid) continue;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      out.push({ pid, ppid: Number(ppid), cmdline, rssMb: Number(rss) / 1024 });
    } catch {
      // exited between the listing and the read
    }
  }
  return out;
}

/** The supervisor's descendants, each labelled: a service, a browser, or what its command names. */
function fleetMemory(supervisor: number): { label: string; rssMb: number; browser: boolean }[] {
  const all = processes();
  const children = new Map<number, Proc[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const rows: { label: string; rssMb: number; browser: boolean }[] = [];
  const walk = (pid: number, browser: boolean) => {
    for (const child of children.get(pid) ?? []) {
      const service = /services\/([a-z-]+)\/dist\/main\.js/.exec(child.cmdline)?.[1];
      const isBrowser = browser || /chrom/i.test(child.cmdline.split(' ')[0] ?? '');
      rows.push({
        label: service ?? child.cmdline.split(' ')[0] ?? String(child.pid),
        rssMb: child.rssMb,
        browser: isBrowser,
      });
      walk(child.pid, isBrowser);
    }
  };
  const self = all.find((p) => p.pid === supervisor);
  if (self) rows.push({ label: 'make up supervisor', rssMb: self.rssMb, browser: false });
  walk(supervisor, false);
  return rows;
}

async function main() {
  const run = await makeUp('');
  try {
    await upAndReady(run);
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    const rows = fleetMemory(run.child.pid as number);
    const fleet = rows.filter((r) => !r.browser);
    const browsers = rows.filter((r) => r.browser);
    const total = fleet.reduce((n, r) => n + r.rssMb, 0);
    const browserTotal = browsers.reduce((n, r) => n + r.rssMb, 0);
    console.log(`\nResident memory of the fleet of \`make up\`, idle ${IDLE_SECONDS} s after it was up\n`);
    console.log(
      table([
        ...fleet.map((r) => ({ process: r.label, 'RSS MB': r.rssMb.toFixed(0) })),
        { process: 'the fleet without browsers', 'RSS MB': total.toFixed(0) },
        { process: `browsers kept warm (${browsers.length} processes)`, 'RSS MB': browserTotal.toFixed(0) },
      ]),
    );
    const goals = [
      ...fleet.map((r) => goal(`idle RSS, ${r.label}`, r.rssMb, '<=', PROCESS_MB, 'MB')),
      goal('idle RSS, the fleet without browsers', total, '<=', FLEET_MB, 'MB'),
    ];
    printGoals(goals);
    console.log(
      JSON.stringify({
        bench: 'idle-memory',
        idleSeconds: IDLE_SECONDS,
        rssMb: Object.fromEntries(fleet.map((r) => [r.label, Number(r.rssMb.toFixed(1))])),
        fleetMb: Number(total.toFixed(1)),
        browsersMb: Number(browserTotal.toFixed(1)),
        goals,
      }),
    );
  } finally {
    if (run.child.exitCode === null) run.child.kill('SIGTERM');
    await run.exited;
    await new Fleet({ infra: run.infra, dbPrefix: run.dbPrefix, logDir: run.dir }).dropDatabases();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
