import {
  AckPolicy,
  DeliverPolicy,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';

/** A JetStream stream as the code declares it; `ensureStreams` makes the server agree. */
export interface StreamSpec {
  name: string;
  subjects: string[];
  /** `workqueue`: each message goes to one worker and is gone once acked. `limits`: an event log. */
  retention: 'workqueue' | 'limits' | 'interest';
  maxAgeMs?: number;
  /** How long `Nats-Msg-Id` de-duplication remembers an id (default 2 minutes). */
  duplicateWindowMs?: number;
}

/** A durable pull consumer. */
export interface ConsumerSpec {
  stream: string;
  name: string;
  filterSubject?: string;
  /** Redelivered when not acked within this time (a worker that died). */
  ackWaitMs: number;
  /** Stops redelivering after this many tries; -1 for never. */
  maxDeliver: number;
}

const ms = (value: number) => value * 1_000_000; // JetStream durations are nanoseconds

const retention = {
  workqueue: RetentionPolicy.Workqueue,
  limits: RetentionPolicy.Limits,
  interest: RetentionPolicy.Interest,
} as const;

/**
 * Creates the streams and consumers, or brings existing ones to what the code says.
 * `replicas` is how many servers keep each stream (NATS_REPLICAS): 1 on one server,
 * 3 on a cluster of three, so a stream outlives the loss of one; its consumers have
 * as many. Changed on an existing stream, the cluster moves it.
 */
export async function ensureStreams(
  nc: NatsConnection,
  streams: StreamSpec[],
  consumers: ConsumerSpec[] = [],
  replicas = 1,
): Promise<void> {
  const jsm = await jetstreamManager(nc);
  for (const spec of streams) {
    const config: Partial<StreamConfig> & { name: string } = {
      name: spec.name,
      num_replicas: replicas,
      subjects: spec.subjects,
      retention: retention[spec.retention],
      storage: StorageType.File,
      max_age: ms(spec.maxAgeMs ?? 0),
      // The server refuses a de-duplication window longer than the stream keeps messages.
      duplicate_window: ms(Math.min(spec.duplicateWindowMs ?? 120_000, spec.maxAgeMs || Number.POSITIVE_INFINITY)),
    };
    const exists = await jsm.streams.info(spec.name).then(
      () => true,
      () => false,
    );
    if (exists) await jsm.streams.update(spec.name, config);
    else await jsm.streams.add(config);
  }
  for (const spec of consumers) {
    const config = {
      durable_name: spec.name,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: ms(spec.ackWaitMs),
      max_deliver: spec.maxDeliver,
      ...(spec.filterSubject ? { filter_subject: spec.filterSubject } : {}),
    };
    const exists = await jsm.consumers.info(spec.stream, spec.name).then(
      () => true,
      () => false,
    );
    if (exists) await jsm.consumers.update(spec.stream, spec.name, config);
    else await jsm.consumers.add(spec.stream, config);
  }
}
