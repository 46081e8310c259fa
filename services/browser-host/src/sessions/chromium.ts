// A session's Chromium driven over its pipe (--remote-debugging-pipe): it
// listens on no port, so nothing on the machine (another session's browser
// told to look there, a page) can reach its DevTools. Every connection to it,
// the host's and each client's, is a session on its one pipe (cdp-hub.ts).
import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import puppeteer from 'puppeteer-core';
import { CdpHub } from './cdp-hub.js';

export interface PipedChromium {
  hub: CdpHub;
  /** The process started (Chromium, or the wrapper it runs under). */
  pid: number;
  /** Settles when that process has exited. */
  exited: Promise<void>;
  /** Ends it and everything it started (its process group). */
  kill(): void;
  /** The last of what it wrote on stderr (why a launch failed), once it has said it (a second at most). */
  stderr(): Promise<string>;
}

/** How much of Chromium's stderr is kept: a launch that fails (a bad flag, a missing library) says why there. */
const STDERR_KEPT = 4_096;

/** How a Chromium command line is started: the program (Chromium, or what runs it), its arguments, its environment. */
export type Command = (argv: string[]) => { executablePath: string; args: string[]; env: Record<string, string> };

/**
 * Starts Chromium with puppeteer's default arguments (less
 * `ignoreDefaultArgs`) and `args`, CDP on fds 3 and 4, as `command` says (as
 * its user, inside its wall), in a process group of its own
 * (sessions/orphans.ts ends those a killed host left).
 */
export async function spawnChromium(options: {
  userDataDir: string;
  args: readonly string[];
  ignoreDefaultArgs?: readonly string[];
  command: Command;
}): Promise<PipedChromium> {
  const ignored = new Set(options.ignoreDefaultArgs ?? []);
  const defaults = await puppeteer.defaultArgs({ headless: true, userDataDir: options.userDataDir, args: [] });
  const start = options.command([
    ...defaults.filter((arg) => !ignored.has(arg)),
    ...options.args,
    '--remote-debugging-pipe',
  ]);
  const child = spawn(start.executablePath, start.args, {
    env: start.env,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
  });
  let said = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    said = (said + chunk.toString('utf8')).slice(-STDERR_KEPT);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const spawned = await new Promise<Error | undefined>((resolve) => {
    child.once('spawn', () => resolve(undefined));
    child.once('error', resolve);
  });
  if (spawned || child.pid === undefined) throw new Error(`Chromium did not start: ${spawned?.message ?? 'no pid'}`);
  const pid = child.pid;
  const hub = new CdpHub(child.stdio[3] as Writable, child.stdio[4] as Readable);
  // A helper process may hold the pipe open a while after Chromium is gone: its exit ends the hub.
  void exited.then(() => hub.end());
  // Its helpers share its stderr and may hold it open: a second is as long as its words are waited for.
  const said$ = new Promise<void>((resolve) => {
    child.stderr?.once('close', resolve);
    void exited.then(() => setTimeout(resolve, 1_000).unref());
  });
  return { hub, pid, exited, kill: () => killGroup(child), stderr: () => said$.then(() => said) };
}

function killGroup(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}
