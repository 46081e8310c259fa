// The fleet of the suites that need no setting of their own, started once for
// shared-fleet.test.ts, which runs those suites one after the other against it.
import { after } from 'node:test';
import type { Fleet } from '@wap/fleet';
import { startFleet } from '@wap/testkit';

export let fleet: Fleet;
let starting: Promise<Fleet> | undefined;

/**
 * Starts the fleet on the first call; each suite's `before` awaits it (hooks at
 * the top of a file run as they are declared, side by side, so one suite's
 * cannot wait for another's).
 */
export function sharedFleet(): Promise<Fleet> {
  // At debug: the trace test follows /readyz's health checks, which log their successes at debug.
  starting ??= startFleet({ env: { LOG_LEVEL: 'debug' } }).then((started) => (fleet = started));
  return starting;
}

after(async () => {
  await starting?.catch(() => undefined); // a suite that failed first must not leave a fleet starting
  await fleet?.stop();
  await fleet?.dropDatabases();
});
