// Each session's Chromium runs as an OS user of its own, so the kernel, not
// the CDP filter alone, keeps one session out of another's files: a session's
// user-data dir is mode 0700 and owned by its user, and the host's own files
// are root's. It takes a host running as root (make up as root, the chart's
// browser host); elsewhere sessions share the host's user, and the host says
// so at start (docs/connect.md, "Isolation").
//
// A user is a bare uid (and gid) from SESSION_UIDS: no passwd entry is needed.
// A uid is taken with a lock file created exclusively under a root-only
// directory, so two hosts on one machine never hand out the same one; a lock
// whose host died is taken back. Chromium is started through setpriv (Debian's
// util-linux), which drops to the uid with no supplementary groups and
// no_new_privs; with the user a session's Chromium keeps its own sandbox where
// the kernel allows user namespaces (probed at start).
import { execFile } from 'node:child_process';
import {
  chmodSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '@wap/log';
import { parseUidRange } from '../domain/uid-range.js';

const SETPRIV = '/usr/bin/setpriv';
const LOCKS = path.join(tmpdir(), 'wap-session-uids');

/** One session's OS user while its browser lives. */
export interface OsUser {
  uid: number;
  /** How Chromium is started as this user: the program, and the environment it needs (`home`: its user-data dir). */
  executablePath: string;
  env(home: string): Record<string, string>;
  /** Whether Chromium's own sandbox works for this user here (else --no-sandbox stays). */
  sandbox: boolean;
  /** Gives `dir` (and all in it) to this user, readable by it alone. */
  own(dir: string): void;
  release(): void;
}

/**
 * How to launch Chromium for `userDataDir`: as `user` when there is one (its
 * wrapper, its sandbox kept where it works), else as the host; either way
 * with nothing of the host's environment (its database URL, its keys) but a
 * PATH, a HOME in the dir, and `env` (a face's TZ and LANGUAGE).
 */
export function launchAs(
  user: OsUser | undefined,
  chromium: string,
  userDataDir: string,
  args: readonly string[],
  env: Record<string, string> = {},
): { executablePath: string; args: string[]; env: Record<string, string> } {
  return {
    executablePath: user?.executablePath ?? chromium,
    args: args.filter((arg) => !(user?.sandbox && arg === '--no-sandbox')),
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      ...(user ? user.env(userDataDir) : { HOME: userDataDir }),
      ...env,
    },
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class OsUsers {
  private readonly wrapper: string;
  private sandbox = false;
  /** Settles once it is known whether Chromium's sandbox works here. */
  probed: Promise<void> = Promise.resolve();

  private constructor(
    private readonly range: { first: number; last: number },
    private readonly chromium: string,
  ) {
    this.wrapper = path.join(LOCKS, 'chromium-as-user');
  }

  /**
   * The session users of this host, or undefined (with the reason logged)
   * when it cannot have them: not root, no setpriv, or SESSION_UIDS=off.
   */
  static start(rangeText: string, chromium: string, log: Logger): OsUsers | undefined {
    const range = parseUidRange(rangeText);
    if (!range) return undefined;
    const why =
      process.getuid?.() !== 0
        ? 'the host does not run as root'
        : !exists(SETPRIV)
          ? `${SETPRIV} is missing`
          : undefined;
    if (why) {
      log.warn(
        { reason: why },
        "session browsers run as the host's own user: one session's files are walled off from another's by the CDP filter alone",
      );
      return undefined;
    }
    // Root's alone: a lock dir another user made could hand out uids under it. Other hosts here share it.
    rootsAlone(LOCKS);
    const users = new OsUsers(range, chromium);
    // Written whole, then renamed: another host here may be starting Chromium through it.
    const next = `${users.wrapper}.${process.pid}`;
    writeFileSync(
      next,
      `#!/bin/sh\nexec ${SETPRIV} --reuid="$WAP_CHROMIUM_UID" --regid="$WAP_CHROMIUM_UID" --clear-groups --no-new-privs -- "$WAP_CHROMIUM" "$@"\n`,
      { mode: 0o700 },
    );
    renameSync(next, users.wrapper);
    // Browsers launched before the probe answers run without Chromium's sandbox, as their own users all the same.
    users.probed = users.probeSandbox().then((sandbox) => {
      users.sandbox = sandbox;
      log.info(
        { uids: rangeText, sandbox },
        sandbox
          ? "session browsers run as users of their own, in Chromium's sandbox"
          : "session browsers run as users of their own; Chromium's sandbox is not available here (no user namespaces)",
      );
    });
    return users;
  }

  /** Whether Chromium starts with its sandbox as an unprivileged user on this kernel. */
  private async probeSandbox(): Promise<boolean> {
    const user = this.take();
    const dir = mkdtempSync(path.join(tmpdir(), 'wap-sandbox-probe-'));
    try {
      user.own(dir);
      await promisify(execFile)(
        this.wrapper,
        ['--headless=new', '--disable-gpu', `--user-data-dir=${dir}`, '--dump-dom', 'about:blank'],
        { env: user.env(dir), timeout: 30_000 },
      );
      return true;
    } catch {
      return false;
    } finally {
      user.release();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** A uid no live browser on this machine runs as; its lock goes with `release`. */
  take(): OsUser {
    const span = this.range.last - this.range.first + 1;
    const start = Math.floor(Math.random() * span);
    for (let i = 0; i < Math.min(span, 10_000); i++) {
      const uid = this.range.first + ((start + i) % span);
      const lock = path.join(LOCKS, String(uid));
      if (!this.lock(lock)) continue;
      let released = false;
      return {
        uid,
        executablePath: this.wrapper,
        env: (home) => ({ WAP_CHROMIUM_UID: String(uid), WAP_CHROMIUM: this.chromium, HOME: home }),
        sandbox: this.sandbox,
        own: (dir) => giveTo(dir, uid),
        release: () => {
          if (released) return;
          released = true;
          rmSync(lock, { force: true });
        },
      };
    }
    throw new Error('no session uid is free');
  }

  /** Creates `lock` for this process; takes it over when its holder is dead. */
  private lock(lock: string): boolean {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
      return true;
    } catch {
      const holder = Number(readFileSync(lock, 'utf8'));
      if (Number.isInteger(holder) && holder > 0 && alive(holder)) return false;
      rmSync(lock, { force: true });
      try {
        writeFileSync(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
        return true;
      } catch {
        return false;
      }
    }
  }
}

/** Makes `dir` a directory root alone may enter, unless it is one already (other hosts here share it). */
export function rootsAlone(dir: string): void {
  const ok = () => {
    const made = lstatSync(dir, { throwIfNoEntry: false });
    return !!made && made.isDirectory() && made.uid === 0 && (made.mode & 0o777) === 0o700;
  };
  if (ok()) return;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { mode: 0o700 });
  if (!ok()) throw new Error(`${dir} is not root's alone`);
}

const exists = (file: string): boolean => lstatSync(file, { throwIfNoEntry: false }) !== undefined;

/** Chowns `dir` and everything in it to `uid` (links themselves, never their targets), and closes it to others. */
function giveTo(dir: string, uid: number): void {
  for (const entry of readdirSync(dir, { recursive: true }) as string[]) lchownSync(path.join(dir, entry), uid, uid);
  lchownSync(dir, uid, uid);
  chmodSync(dir, 0o700);
}
