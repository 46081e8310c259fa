// Fleets shared by the end-to-end suites whose settings agree: a fleet takes 10 to 25 s to start
// on two cores, and most suites need nothing of their own but workspaces and keys, which each
// makes for itself. A runner file imports the suites of one fleet, which run one after the other,
// never side by side; each suite's hooks are inside its own describe (gateway's and fleet's
// aside), so it sets up just before its tests and tears down just after them.
//
// - plain (shared-fleet.test.ts): the defaults, logging at debug (the trace test follows
//   /readyz's health checks, which log their successes at debug), and a console build folder
//   of its own, where console-api.suite.ts writes a build of its own. Suites: gateway, oauth,
//   console-api, monitor-routes, and fleet last (its final test stops every service).
// - site (shared-fleet-site.test.ts): egress to 127.0.0.2 alone, where each suite's test site
//   listens (every other loopback address, `localhost` included, stays refused, as in
//   production); credit views kept ten minutes (scrape: a change that shows sooner was
//   announced by the ledger); monitors polled every 200 ms. Suites: scrape, scrape-recording,
//   usage-calls, mcp, monitor-checks, monitor-plans.
// - browsers (shared-fleet-browsers.test.ts): egress to all of loopback, a warm browser and room
//   for 32 (sessions tests leave waiting for their tickets, 30 s each, meet no other test), and
//   a scripted model as the default model, where each suite sets the scripts of its own tasks.
//   Suites: connect, sessions, browser-isolation, agent-list, agent-submit, secret-frames, cli,
//   console, console-run, sdk-typescript, sdk-python, detection (its site on 127.0.0.1 and
//   127.0.0.2, both engines), model-formats (the scripted model answers scraped pages' json and
//   summary too; EXTRACT_TIMEOUT 4 s), firecrawl-v2-extract, firecrawl-ecosystem and
//   firecrawl-aisdk (Firecrawl's extract and tools built on its clients, on the same model).
//
// The other files start fleets of their own, because they stop, kill or restart the fleet's
// services, read or count what the whole fleet did, or need settings no other suite would run
// under:
// - agent.test.ts kills the agent service; connect-faults.test.ts kills browser-host and
//   session-recorder and runs second hosts; crawl.test.ts stops crawl and starts it with other
//   settings; profiles.test.ts kills browser-host (and leases profiles for 6 s, through exits of
//   its own); hostile-input.test.ts kills browser-host, then reads the gateway's whole log for
//   an error.
// - resilience.test.ts stops its own Postgres and NATS; make-up.test.ts runs `make up`.
// - openapi-fuzz.test.ts fuzzes every route, its services kept on loopback by a hook of its own;
//   agent-policy.test.ts reads every NATS message and row for a secret (its approvals time out
//   in 10 s; it trusts its MCP server's CA); secrets.test.ts lets a run have 3 secrets and reads
//   the agent's and gateway's whole logs; agent-embedded.test.ts runs the embedded model without
//   a warm browser; firecrawl-sdk.test.ts searches through a SearXNG stand-in.
// - monitors.test.ts: notifications to its Discord and Slack stand-ins; 200 monitors on two
//   replicas with short leases, one killed, every unfinished check of the fleet counted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import type { Fleet } from '@wap/fleet';
import { startFleet } from '@wap/testkit';
import { type ScriptedModel, startScriptedModel } from './scripted-agent.js';

export type SharedFleetKind = 'plain' | 'site' | 'browsers';

export let fleet: Fleet;
/** The plain fleet's CONSOLE_DIR: the console API's suite writes a build of its own there. */
export let consoleDir: string;
/** The browsers fleet's default model: each suite scripts its own tasks (a task without a script finishes at once). */
export let scripted: ScriptedModel;

let starting: { kind: SharedFleetKind; fleet: Promise<Fleet> } | undefined;

/** Each fleet's settings, made as it starts. */
const SETTINGS: Record<SharedFleetKind, () => Promise<Record<string, string>>> = {
  plain: async () => {
    consoleDir = mkdtempSync(path.join(tmpdir(), 'wap-console-'));
    return { LOG_LEVEL: 'debug', CONSOLE_DIR: consoleDir };
  },
  site: async () => ({ EGRESS_ALLOW: '127.0.0.2/32', CREDIT_VIEW_TTL: '10m', MONITOR_POLL: '200ms' }),
  browsers: async () => {
    scripted = await startScriptedModel();
    return { EGRESS_ALLOW: '127.0.0.0/8', SESSION_WARM: '1', SESSION_CAPACITY: '32', ...scripted.env };
  },
};

/**
 * Starts the `kind` fleet on the first call and answers it to every later one; each suite's
 * `before` awaits it. One shared fleet a process: a runner imports the suites of one kind.
 */
export function sharedFleet(kind: SharedFleetKind): Promise<Fleet> {
  if (starting && starting.kind !== kind) throw new Error(`this file shares the ${starting.kind} fleet, not ${kind}`);
  starting ??= {
    kind,
    fleet: SETTINGS[kind]()
      .then((env) => startFleet({ env }))
      .then((started) => (fleet = started)),
  };
  return starting.fleet;
}

after(async () => {
  await starting?.fleet.catch(() => undefined); // a suite that failed first must not leave a fleet starting
  await fleet?.stop();
  await fleet?.dropDatabases();
  await scripted?.model.close();
  if (consoleDir) rmSync(consoleDir, { recursive: true, force: true });
});
