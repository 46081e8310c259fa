// What every handler is given: the stores of the sessions, their recordings and
// network logs, and how a deleted session's chunks leave the stream.
import type { Logger } from '@wap/log';
import type { NetworkLog } from '../store/network.js';
import type { SessionPurge } from '../store/purge.js';
import type { RecordingStore } from '../store/recordings.js';
import type { SessionRows } from '../store/sessions.js';

export interface SessionRecorderDeps {
  rows: SessionRows;
  recordings: RecordingStore;
  network: NetworkLog;
  purge: SessionPurge;
  /** Drops a session's recording chunks still on the SESSIONS stream. */
  purgeChunks: (sessionId: string) => Promise<unknown>;
  log: Logger;
}
