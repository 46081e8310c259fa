// A session's Chromium as the machine sees it, for tests that kill it or its
// host. A client cannot ask Chromium for its process ids (the CDP filter
// refuses SystemInfo.getProcessInfo: they are the host's), so a test opens its
// session with a viewport no other session here has, and finds the browser
// process whose window is that wide.
import { readdirSync, readFileSync } from 'node:fs';

const argsOf = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
const parentOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
};

/** Every Chromium browser process on the machine (not a renderer or helper), with its command line. */
function* chromiums(): Generator<{ pid: number; args: string[] }> {
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    let args: string[];
    try {
      args = argsOf(pid);
    } catch {
      continue; // gone between the listing and the read
    }
    // Chromium itself: not Debian's launcher script, nor the wall or the user switch it runs under.
    if (/\/chromium$/.test(args[0] ?? '') && !args.some((a) => a.startsWith('--type='))) yield { pid, args };
  }
}

/** The browser process (not a renderer or helper) of the session opened with `viewportWidth`; undefined while none. */
export function sessionChromium(viewportWidth: number): number | undefined {
  for (const { pid, args } of chromiums())
    if (args.some((a) => a.startsWith(`--window-size=${viewportWidth},`))) return pid;
  return undefined;
}

/** The nearest ancestor of `pid` whose command line has `part` (the browser host that started a Chromium). */
export function ancestorWith(pid: number, part: string): number | undefined {
  for (let at = parentOf(pid); at > 1; at = parentOf(at)) if (argsOf(at).some((a) => a.includes(part))) return at;
  return undefined;
}

/** Whether `pid` descends from `ancestor`; false once either is gone. */
function descendsFrom(pid: number, ancestor: number): boolean {
  try {
    for (let at = parentOf(pid); at > 1; at = parentOf(at)) if (at === ancestor) return true;
  } catch {
    // gone meanwhile
  }
  return false;
}

/** The browser processes (not renderers or helpers) a browser host started: its sessions' and its warm ones. */
export function hostChromiums(hostPid: number): number[] {
  const out: number[] = [];
  for (const { pid } of chromiums()) if (descendsFrom(pid, hostPid)) out.push(pid);
  return out.sort((a, b) => a - b);
}
