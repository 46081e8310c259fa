// Whether an operator's exit (domain/exits.ts) answers: a TCP connection to its proxy.
import { connect } from 'node:net';
import type { Exit } from '../domain/exits.js';

/** Whether the exit's proxy accepts a TCP connection within `timeoutMs`. */
export function exitReachable(exit: Exit, timeoutMs = 3_000): Promise<boolean> {
  const u = new URL(exit.url);
  const port = Number(u.port || (u.protocol === 'http:' ? 80 : 1080));
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: timeoutMs });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}
