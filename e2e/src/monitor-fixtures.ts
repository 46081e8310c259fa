// What the monitor tests share (monitor-routes.suite.ts, monitor-checks.suite.ts,
// monitors.test.ts): a monitor as the API answers it, the monitor database's clock
// moved by hand, fleets of their own whose monitors check pages on 127.0.0.2, and
// pages there that change between checks.
import { createServer } from 'node:http';
import type { Fleet } from '@wap/fleet';
import { startFleet, until } from '@wap/testkit';
import pg from 'pg';

export type MonitorJson = {
  id: string;
  url: string;
  notify: { kind: string; url: string };
  nextCheckAt: string;
  lastCheck: null;
};

/** `fleet`'s monitor database, and the moves a test makes on its monitors' schedule. */
export async function monitorChecks(fleet: Fleet) {
  const db = new pg.Client({ connectionString: fleet.databaseUrl('monitor') });
  await db.connect();
  /** Makes the monitors due now, as if their next slot had come. */
  const due = (ids: string[]) =>
    db.query('UPDATE monitors SET next_check_at = now() WHERE id = ANY($1::uuid[])', [ids]);
  /** Waits until the monitors have `n` finished checks between them. */
  const checked = (ids: string[], n: number, ceilingMs?: number) =>
    until(
      `${n} checks finished`,
      async () => {
        const { rows } = await db.query(
          'SELECT count(*)::int AS n FROM checks WHERE finished_at IS NOT NULL AND monitor_id = ANY($1::uuid[])',
          [ids],
        );
        return rows[0].n >= n;
      },
      ceilingMs,
    );
  /**
   * Puts the monitors off a day and waits until no check is in flight: their first checks
   * (each due at its jitter after creation) may have come while others were made; count from here.
   */
  const putOff = async (ids: string[]) => {
    await db.query("UPDATE monitors SET next_check_at = now() + interval '1 day' WHERE id = ANY($1::uuid[])", [ids]);
    await until('no check in flight', async () => {
      const { rows } = await db.query('SELECT count(*)::int AS n FROM checks WHERE finished_at IS NULL');
      return rows[0].n === 0;
    });
  };
  /** Checks of the monitors so far, finished or not. */
  const checksOf = async (ids: string[]) =>
    (await db.query('SELECT count(*)::int AS n FROM checks WHERE monitor_id = ANY($1::uuid[])', [ids])).rows[0]
      .n as number;
  return { db, due, checked, putOff, checksOf, close: () => db.end() };
}

/** A fleet whose monitors check pages on 127.0.0.2, polling every 200 ms, and its monitor database. */
export async function checkingFleet(env: Record<string, string> = {}) {
  const local = await startFleet({
    env: { LOG_LEVEL: 'info', EGRESS_ALLOW: '127.0.0.2/32', MONITOR_POLL: '200ms', ...env },
  });
  const checks = await monitorChecks(local);
  return {
    local,
    ...checks,
    close: async () => {
      await checks.close();
      await local.stop();
      await local.dropDatabases();
    },
  };
}

/** A page on 127.0.0.2 whose parts a test changes between checks; it counts its fetches per path. */
export async function changingSite(render: (path: string) => string) {
  const fetches = new Map<string, number>();
  const site = createServer((req, res) => {
    const path = req.url ?? '/';
    fetches.set(path, (fetches.get(path) ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'text/html' }).end(render(path));
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.2', r));
  return {
    url: (path: string) => `http://127.0.0.2:${(site.address() as { port: number }).port}${path}`,
    fetches,
    close: () => new Promise<void>((r) => site.close(() => r())),
  };
}
