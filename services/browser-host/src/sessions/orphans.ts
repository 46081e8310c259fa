// Session browsers a killed host left behind. Chromium runs in a process group
// of its own (puppeteer launches it detached), so a host killed with SIGKILL
// leaves its session browsers running, adopted by init. A host starting on
// the same machine ends them and removes their user-data dirs.
import { readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const SESSION_DIR_PREFIX = path.join(tmpdir(), 'wap-session-');

interface Orphan {
  pid: number;
  userDataDir: string;
}

/** Chromium browser processes of session dirs whose parent is gone (adopted by pid 1). */
export function findOrphans(): Orphan[] {
  const found: Orphan[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const dir = args.find((a) => a.startsWith(`--user-data-dir=${SESSION_DIR_PREFIX}`));
      // The browser process only: its renderers and helpers carry --type=.
      if (!dir || args.some((a) => a.startsWith('--type='))) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === 1) found.push({ pid, userDataDir: dir.slice('--user-data-dir='.length) });
    } catch {
      // gone between the listing and the read
    }
  }
  return found;
}

/** Ends the orphans (their whole process groups) and removes their dirs; answers how many. */
export async function endOrphans(): Promise<number> {
  const orphans = findOrphans();
  for (const { pid, userDataDir } of orphans) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await rm(userDataDir, { recursive: true, force: true });
  }
  return orphans.length;
}
