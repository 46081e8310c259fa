// The one test fixture: where the local Postgres and NATS are, fresh migrated
// databases, NATS links with a namespace of their own, a private Postgres and
// NATS a test may kill, whole fleets, services as processes, free ports and
// waiting for a condition; a bench's goals.
import { localInfra } from '@wap/db';
import { connectNats, type NatsLink } from '@wap/events';
import { createLogger, type Logger } from '@wap/log';

export { type FreshDatabase, freshServiceDatabase, type Infra, localInfra as infra } from '@wap/db';
export { type Fleet, freePort, freePorts } from '@wap/fleet';
export { readLogLines, startBenchFleet, startFleet } from './fleets.js';
export { type Goal, goal, goalLines, printGoals } from './goals.js';
export { uniqueNamespace } from './namespace.js';
export { PrivateInfra } from './private-infra.js';
export {
  type ServiceProcess,
  servesAndStops,
  spawnService,
  TEST_SERVICE_TOKEN,
  waitServing,
} from './service-process.js';
export { until } from './wait.js';

/** A logger that prints nothing, for the code under test. */
export const quietLog = (service = 'test'): Logger => createLogger({ service, level: 'silent' });

/** A link to the local NATS server. */
export const testNats = (name: string, log: Logger = quietLog()): Promise<NatsLink> =>
  connectNats({ url: localInfra().natsUrl, name, log });
