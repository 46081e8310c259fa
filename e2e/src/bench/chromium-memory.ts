// Chromium's memory and CPU on this machine, as the browser benches count them. `root`, when
// given, keeps only processes under that pid (one fleet's browser host), so other fleets'
// browsers on a shared machine are not counted.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ

function stat(pid: string): { ppid: number; ticks: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

/** The pids of Chromium processes, under `root` when given. */
function chromiumPids(root?: number): string[] {
  const pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  const parent = new Map(pids.map((pid) => [Number(pid), stat(pid)?.ppid ?? 0]));
  const under = (pid: number) => {
    for (let p = pid, hops = 0; p > 1 && hops < 64; p = parent.get(p) ?? 0, hops++) if (p === root) return true;
    return false;
  };
  return pids.filter((pid) => {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmd.startsWith('/usr/lib/chromium/chromium') && !cmd.startsWith('/usr/bin/chromium')) return false;
      return root === undefined || under(Number(pid));
    } catch {
      return false;
    }
  });
}

/** Pss (proportional set size: shared pages split among their users) of Chromium's processes, in MiB. */
export function chromiumPssMiB(root?: number): number {
  let kib = 0;
  for (const pid of chromiumPids(root)) {
    try {
      const pss = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
      kib += Number(pss?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return kib / 1024;
}

/** CPU seconds Chromium's processes under `root` have used so far (those that exited are not counted). */
export function chromiumCpuSeconds(root: number): number {
  return chromiumPids(root).reduce((sum, pid) => sum + (stat(pid)?.ticks ?? 0), 0) / TICKS_PER_SECOND;
}
