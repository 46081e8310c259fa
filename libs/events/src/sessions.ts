// The browser sessions' JetStream stream (docs/sessions.md): browser-host
// publishes each session's lifecycle (through its outbox) and, later, its
// recording chunks; session-recorder consumes them. Both services declare it,
// so whichever starts first makes it.
import type { ConsumerSpec, StreamSpec } from './streams.js';

export function sessionStreamNames(namespace = '') {
  return {
    stream: `${namespace.toUpperCase()}SESSIONS`,
    subjects: `${namespace}sessions.>`,
    /** One snapshot of a session each time its state changes (`SessionSnapshot`). */
    lifecycle: `${namespace}sessions.lifecycle`,
    /** The recorder's consumer of the lifecycle. */
    lifecycleConsumer: 'session-recorder-lifecycle',
  };
}

/** Events wait here while the recorder is away: a week, on disk. */
export const SESSION_STREAM_MAX_AGE_MS = 7 * 24 * 3_600_000;

export function sessionStreams(namespace = ''): StreamSpec[] {
  const names = sessionStreamNames(namespace);
  return [{ name: names.stream, subjects: [names.subjects], retention: 'limits', maxAgeMs: SESSION_STREAM_MAX_AGE_MS }];
}

export function sessionConsumers(namespace = ''): ConsumerSpec[] {
  const names = sessionStreamNames(namespace);
  return [
    {
      stream: names.stream,
      name: names.lifecycleConsumer,
      filterSubject: names.lifecycle,
      ackWaitMs: 30_000,
      maxDeliver: -1,
    },
  ];
}

export type SessionStatus = 'live' | 'ended';

/**
 * A session as its host knows it, whole, each time it changes: a consumer
 * keeps the furthest one (`ended` over `live`), whatever order they arrive in.
 */
export interface SessionSnapshot {
  id: string;
  workspaceId: string;
  /** What the session served: `connect` (a CDP client); agent runs and scrapes later. */
  kind: 'connect';
  status: SessionStatus;
  outcome: string | null;
  /** ISO times. */
  startedAt: string;
  endedAt: string | null;
  options: Record<string, unknown>;
  usage: {
    /** Browser seconds billed (context_seconds). */
    contextSeconds: number;
    /** Bytes through the session's egress, both directions. */
    proxyBytes: number;
    /** Millicredits charged, as a decimal string. */
    chargedMc: string;
  };
}
