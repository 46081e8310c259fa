// Builds the session-recorder service from its config, database and NATS link: the one
// place its stores, handlers and consumers are wired, shared by service.ts and the
// tests (docs/sessions.md).
import { type NatsLink, purgeSessionChunks } from '@wap/events';
import type { Logger } from '@wap/log';
import type { SessionRecorderConfig } from './config.js';
import { chunkConsumer } from './jobs/chunks.js';
import { lifecycleConsumer } from './jobs/lifecycle.js';
import { retentionJob } from './jobs/retention.js';
import { type SessionRecorderDeps, sessionService } from './rpc/index.js';
import type { SessionRecorderDatabase } from './store/database.js';
import { NetworkLog } from './store/network.js';
import { SessionPurge } from './store/purge.js';
import { RecordingStore } from './store/recordings.js';
import { SessionRows } from './store/sessions.js';

export type { SessionRecorderDatabase };

export function openSessionRecorder(
  config: SessionRecorderConfig,
  db: SessionRecorderDatabase,
  nats: NatsLink,
  log: Logger,
) {
  const rows = new SessionRows(db);
  const recordings = new RecordingStore(db);
  if (!config.RECORDING_KEY) log.warn('RECORDING_KEY is not set: recording chunks wait on the stream until it is');
  const purge = new SessionPurge(db);
  const purgeChunks = (sessionId: string) => purgeSessionChunks(nats.nc, config.NATS_NAMESPACE, sessionId);
  const retention = retentionJob(
    { purge, purgeChunks, log },
    { retentionMs: config.RECORDING_RETENTION, intervalMs: config.RECORDING_SWEEP },
  );
  const consumers = [
    lifecycleConsumer(nats, config.NATS_NAMESPACE, rows, log),
    chunkConsumer(nats, config.NATS_NAMESPACE, config.RECORDING_KEY, recordings, log),
  ];
  const deps: SessionRecorderDeps = { rows, recordings, network: new NetworkLog(db), purge, purgeChunks, log };
  return {
    rows,
    recordings,
    impl: sessionService(deps),
    /** Starts what runs besides the RPCs: the consumers and the retention sweep. */
    start: async () => {
      for (const consumer of consumers) await consumer.start();
      retention.start();
    },
    /** Stops taking work and waits for what is in flight. */
    stop: async () => {
      await Promise.all([...consumers.map((c) => c.stop()), retention.stop()]);
    },
  };
}
