export { connectNats, type NatsLink, type NatsServers, natsServers } from './connection.js';
export { Consumer, type ConsumeSettings, type Delivery, type Retry } from './consume.js';
export { handleOnce } from './inbox.js';
export {
  CONTROL_REFUSALS,
  type ControlAction,
  type ControlBatch,
  type ControlReply,
  type ControlRequest,
  controlAction,
  controlBatch,
  controlReply,
  controlRequest,
  controlSite,
  isHttpUrl,
  MAX_CONTROL_ACTIONS,
  MAX_INSERT_CHARS,
  MAX_URL_CHARS,
  refusedHost,
  sameSite,
} from './live-control.js';
export { enqueueEvent, OutboxRelay } from './outbox.js';
export { Publisher, type PublishOptions } from './publish.js';
export {
  CHUNK_HEADERS,
  CHUNK_KINDS,
  type ChunkKind,
  type ChunkMeta,
  chunkHeaders,
  chunkMac,
  chunkMacValid,
  chunkMetaOf,
  purgeSessionChunks,
  SESSION_STREAM_MAX_AGE_MS,
  type SessionSnapshot,
  type SessionStatus,
  sessionConsumers,
  sessionStreamNames,
  sessionStreams,
  sha256Hex,
} from './sessions.js';
export type { SqlClient, TransactionalSqlClient } from './sql.js';
export { type ConsumerSpec, ensureStreams, type StreamSpec } from './streams.js';
export { browserHostsSubject, creditsChangedSubject, type HostAnnouncement } from './subjects.js';
