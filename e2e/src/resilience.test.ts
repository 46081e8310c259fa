import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SERVICES } from '@wap/config';
import type { Fleet } from '@wap/fleet';
import { PrivateInfra, startFleet, until } from '@wap/testkit';

// This file stops and starts Postgres and NATS, so it runs its own.
const infra = new PrivateInfra();
let fleet: Fleet;

before(async () => {
  await infra.init();
  fleet = await startFleet({ infra: infra.infra });
});

after(async () => {
  await fleet?.stop();
  await infra.destroy();
});

const readiness = async () => (await fetch(`${fleet.gatewayUrl}/readyz`)).status;
const pids = () => SERVICES.map((s) => fleet.pid(s));

async function outage(name: string, stop: () => Promise<void> | void, start: () => Promise<void>) {
  const before = pids();
  await stop();
  await until(`readiness turns false without ${name}`, async () => (await readiness()) === 503, 20_000);
  // Each readiness check makes every service run its failing probes (the paths a crash
  // would come from): ten in a row, all 503, with every process still the same.
  for (let i = 0; i < 10; i++) assert.equal(await readiness(), 503);
  assert.deepEqual(pids(), before, 'no service exited or restarted');
  await start();
  await until(`readiness comes back with ${name}`, async () => (await readiness()) === 200, 30_000);
  assert.deepEqual(pids(), before, 'the same processes serve again');
}

test('readiness follows NATS down and up, nothing crashes', async () => {
  await outage(
    'NATS',
    () => infra.stopNats(),
    () => infra.startNats(),
  );
});

test('readiness follows Postgres down and up, nothing crashes', async () => {
  await outage(
    'Postgres',
    () => infra.stopPostgres(),
    () => infra.startPostgres(),
  );
});
