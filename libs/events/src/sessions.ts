// The browser sessions' JetStream stream (docs/sessions.md): browser-host
// publishes each session's lifecycle (through its outbox) and, later, its
// recording chunks; session-recorder consumes them. Both services declare it,
// so whichever starts first makes it.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ConsumerSpec, StreamSpec } from './streams.js';

export function sessionStreamNames(namespace = '') {
  return {
    stream: `${namespace.toUpperCase()}SESSIONS`,
    subjects: `${namespace}sessions.>`,
    /** One snapshot of a session each time its state changes (`SessionSnapshot`). */
    lifecycle: `${namespace}sessions.lifecycle`,
    /** The recorder's consumer of the lifecycle. */
    lifecycleConsumer: 'session-recorder-lifecycle',
    /** A session's recording chunks, in order (`RecordingChunk`). */
    chunks: (sessionId: string) => `${namespace}sessions.chunks.${sessionId}`,
    chunksFilter: `${namespace}sessions.chunks.>`,
    chunksConsumer: 'session-recorder-chunks',
    /** A running session's screencast frames as they come: core NATS, outside the stream (a live view, not a record). */
    liveFrames: (sessionId: string) => `${namespace}session-live.${sessionId}.frames`,
    /** Asks the session's host for the latest frame of each tab (request-reply). */
    liveLatest: (sessionId: string) => `${namespace}session-live.${sessionId}.latest`,
    /**
     * A person's input to a taken-over session, for its host to dispatch (request-reply, `ControlRequest` of
     * @wap/service): only the host that runs the session answers, so nobody answering means it is not live.
     */
    liveInput: (sessionId: string) => `${namespace}session-live.${sessionId}.input`,
  };
}

/** Events wait here while the recorder is away: a week, on disk. */
export const SESSION_STREAM_MAX_AGE_MS = 7 * 24 * 3_600_000;

/**
 * Removes a session's chunks from the stream, consumed or not: the stream
 * keeps them for a week, and a deleted session's bytes must not outlive it.
 */
export async function purgeSessionChunks(nc: NatsConnection, namespace: string, sessionId: string): Promise<number> {
  const names = sessionStreamNames(namespace);
  const jsm = await jetstreamManager(nc);
  const { purged } = await jsm.streams.purge(names.stream, { filter: names.chunks(sessionId) });
  return purged;
}

export function sessionStreams(namespace = ''): StreamSpec[] {
  const names = sessionStreamNames(namespace);
  return [{ name: names.stream, subjects: [names.subjects], retention: 'limits', maxAgeMs: SESSION_STREAM_MAX_AGE_MS }];
}

/**
 * How long a delivered message waits for its ack before it goes out again:
 * what a recorder killed mid-chunk costs. Short, because a session's chain
 * waits for the chunk it held (every later one is early) and the handlers
 * are one small transaction each; a redelivery of one already stored is
 * dropped as a duplicate.
 */
const SESSION_ACK_WAIT_MS = 10_000;

export function sessionConsumers(namespace = ''): ConsumerSpec[] {
  const names = sessionStreamNames(namespace);
  return [
    {
      stream: names.stream,
      name: names.lifecycleConsumer,
      filterSubject: names.lifecycle,
      ackWaitMs: SESSION_ACK_WAIT_MS,
      maxDeliver: -1,
    },
    {
      stream: names.stream,
      name: names.chunksConsumer,
      filterSubject: names.chunksFilter,
      ackWaitMs: SESSION_ACK_WAIT_MS,
      maxDeliver: -1,
    },
  ];
}

export const CHUNK_KINDS = ['rrweb', 'network', 'screencast'] as const;
export type ChunkKind = (typeof CHUNK_KINDS)[number];

/** What a recording chunk says of itself (its headers), covered by its MAC with its body. */
export interface ChunkMeta {
  sessionId: string;
  workspaceId: string;
  /** 0, 1, 2... per session, with no gaps. */
  seq: number;
  /** `rrweb`: gzip'd JSON `[{ tab, events }]`; `network`: gzip'd JSON rows of the network log; screencast later. */
  kind: ChunkKind;
  /** Documents that started in this chunk (rrweb Meta events of top frames). */
  pages: number;
}

export const CHUNK_HEADERS = {
  sessionId: 'Wap-Session',
  workspaceId: 'Wap-Workspace',
  seq: 'Wap-Seq',
  kind: 'Wap-Kind',
  pages: 'Wap-Pages',
  mac: 'Wap-Mac',
} as const;

export const sha256Hex = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');

/**
 * HMAC-SHA256 under the fleet's RECORDING_KEY over everything a chunk says of
 * itself and the SHA-256 of its body: only a holder of the key (a browser
 * host) can make a chunk the recorder accepts, and only for the session it names.
 */
export function chunkMac(key: string, meta: ChunkMeta, body: Uint8Array): string {
  const fields = [meta.sessionId, meta.workspaceId, meta.seq, meta.kind, meta.pages, sha256Hex(body)];
  return createHmac('sha256', key).update(fields.join('\n')).digest('base64url');
}

export function chunkMacValid(key: string, meta: ChunkMeta, body: Uint8Array, mac: string): boolean {
  const expected = Buffer.from(chunkMac(key, meta, body));
  const given = Buffer.from(mac);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A chunk's headers as a publisher sets them. */
export function chunkHeaders(key: string, meta: ChunkMeta, body: Uint8Array): Record<string, string> {
  return {
    [CHUNK_HEADERS.sessionId]: meta.sessionId,
    [CHUNK_HEADERS.workspaceId]: meta.workspaceId,
    [CHUNK_HEADERS.seq]: String(meta.seq),
    [CHUNK_HEADERS.kind]: meta.kind,
    [CHUNK_HEADERS.pages]: String(meta.pages),
    [CHUNK_HEADERS.mac]: chunkMac(key, meta, body),
  };
}

/** A chunk's meta read back from its headers; undefined when any is missing or malformed. */
export function chunkMetaOf(get: (name: string) => string | undefined): ChunkMeta | undefined {
  const sessionId = get(CHUNK_HEADERS.sessionId) ?? '';
  const workspaceId = get(CHUNK_HEADERS.workspaceId) ?? '';
  const seq = Number(get(CHUNK_HEADERS.seq));
  const pages = Number(get(CHUNK_HEADERS.pages));
  const kind = get(CHUNK_HEADERS.kind);
  if (!/^[0-9a-f-]{36}$/.test(sessionId) || !workspaceId || !CHUNK_KINDS.includes(kind as ChunkKind)) return undefined;
  if (!Number.isSafeInteger(seq) || seq < 0 || !Number.isSafeInteger(pages) || pages < 0) return undefined;
  return { sessionId, workspaceId, seq, kind: kind as ChunkKind, pages };
}

export type SessionStatus = 'live' | 'ended';

/**
 * A session as its host knows it, whole, each time it changes: a consumer
 * keeps the furthest one (`ended` over `live`), whatever order they arrive in.
 */
export interface SessionSnapshot {
  id: string;
  workspaceId: string;
  /**
   * What the session served: `connect` (a CDP client), `agent` (a browser agent run, `options.task.runId`)
   * or `scrape` (a browser-engine page of a scrape, crawl or search, `options.task.requestId`).
   */
  kind: 'connect' | 'agent' | 'scrape';
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
