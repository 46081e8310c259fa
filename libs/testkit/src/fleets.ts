// Whole fleets for the e2e tests and the benches: each its own databases, ports and log directory.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Fleet, type FleetSettings, localInfra } from '@wap/fleet';

/** A fleet of its own for one test file: unique databases, free ports, logs in a temp dir. */
export async function startFleet(overrides: Partial<FleetSettings> = {}): Promise<Fleet> {
  const fleet = new Fleet({
    infra: localInfra(),
    dbPrefix: `t${randomBytes(4).toString('hex')}_`,
    logDir: mkdtempSync(path.join(tmpdir(), 'wap-fleet-')),
    ...overrides,
    // Every answer is held to its row's response schema and every error code to the row's list.
    env: { LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT: '10s', STRICT_CONTRACTS: 'true', ...overrides.env },
  });
  await fleet.migrate();
  await fleet.start();
  await fleet.waitReady(90_000);
  return fleet;
}

/** A fleet for a bench: as production runs, without the tests' contract checks on every answer. */
export function startBenchFleet(overrides: Partial<FleetSettings> = {}): Promise<Fleet> {
  return startFleet({ ...overrides, env: { ...overrides.env, STRICT_CONTRACTS: 'false' } });
}

export function readLogLines(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
}
