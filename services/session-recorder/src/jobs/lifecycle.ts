// Session snapshots from the browser hosts (their outboxes, through the
// SESSIONS stream) into the sessions table. Applying a snapshot is idempotent
// and order-free, so a redelivery or a late one changes nothing.
import { Consumer, type NatsLink, type SessionSnapshot, sessionStreamNames } from '@wap/events';
import type { Logger } from '@wap/log';
import type { SessionRows } from '../store/sessions.js';

export const lifecycleConsumer = (nats: NatsLink, namespace: string, rows: SessionRows, log: Logger) => {
  const names = sessionStreamNames(namespace);
  return new Consumer<SessionSnapshot>(nats.nc, {
    stream: names.stream,
    consumer: names.lifecycleConsumer,
    concurrency: 8,
    log,
    handle: async ({ data }) => {
      await rows.apply(data);
    },
  });
};
