// Where the CPU goes during a bench: user+system time of every process on the
// machine, read from /proc before and after, grouped by what the process is
// (a fleet service, Postgres, NATS, the load generator). Linux only.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux this runs on

type Sample = Map<number, { label: string; ticks: number }>;

function label(pid: number): string | undefined {
  if (pid === process.pid) return 'bench process';
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return undefined;
  }
  const service = /services\/([a-z-]+)\/dist\/main\.js/.exec(cmdline);
  if (service) return service[1];
  if (cmdline.startsWith('postgres')) return 'postgres';
  if (cmdline.includes('nats-server')) return 'nats';
  if (/(^|\/)hey /.test(cmdline)) return 'load generator';
  if (cmdline.includes('bare-server.js')) return 'bare server';
  return undefined;
}

function sample(): Sample {
  const out: Sample = new Map();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const what = label(pid);
    if (!what) continue;
    try {
      // Fields after the parenthesised command name; utime and stime are the 14th and 15th.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(pid, { label: what, ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // exited between the listing and the read
    }
  }
  return out;
}

/** Starts counting; the returned function answers CPU seconds per label since then. */
export function cpuMeter(): () => Record<string, number> {
  const before = sample();
  return () => {
    const totals: Record<string, number> = {};
    for (const [pid, now] of sample()) {
      const spent = (now.ticks - (before.get(pid)?.ticks ?? 0)) / TICKS_PER_SECOND;
      totals[now.label] = (totals[now.label] ?? 0) + spent;
    }
    return totals;
  };
}

/** `label 1.23 s` pairs, busiest first. */
export function formatCpu(totals: Record<string, number>): string {
  return Object.entries(totals)
    .filter(([, s]) => s > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([k, s]) => `${k} ${s.toFixed(2)} s`)
    .join(', ');
}

/** The machine's busy share of CPU time over `ms`, from /proc/stat (0 idle, 1 every core busy). */
async function busyShare(ms: number): Promise<number> {
  const read = () => {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
    const idle = (cpu[3] ?? 0) + (cpu[4] ?? 0); // idle + iowait
    return { idle, total: cpu.reduce((a, b) => a + b, 0) };
  };
  const before = read();
  await new Promise((r) => setTimeout(r, ms));
  const after = read();
  const total = after.total - before.total;
  return total > 0 ? 1 - (after.idle - before.idle) / total : 0;
}

/**
 * Waits until the machine has settled (a fleet just started fills its browser pool, compiles, migrates):
 * a figure measured while neighbours start measures the neighbours. Answers the busy share it saw last;
 * gives up after `timeoutMs` and measures anyway.
 */
export async function waitForQuiet(threshold = 0.15, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let busy = await busyShare(1_000);
  while (busy > threshold && Date.now() < deadline) busy = await busyShare(1_000);
  return busy;
}
