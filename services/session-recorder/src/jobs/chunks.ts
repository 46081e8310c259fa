// Recording chunks from the browser hosts (the SESSIONS stream), appended to
// their sessions' hash chains in order. A chunk whose signature fails is
// dropped and logged: only a browser host holds the key. One that comes
// before its turn waits on the stream, so the recorder being away loses nothing.
import {
  CHUNK_HEADERS,
  type ChunkMeta,
  Consumer,
  chunkMacValid,
  chunkMetaOf,
  type NatsLink,
  sessionStreamNames,
} from '@wap/events';
import type { Logger } from '@wap/log';
import type { RecordingStore } from '../store/recordings.js';

interface ReceivedChunk {
  meta: ChunkMeta;
  mac: string;
  body: Uint8Array;
}

/** How soon a chunk that came before its turn is offered again. */
const EARLY_RETRY_MS = 250;
/** Without a key nothing can be checked: chunks wait on the stream until one is set. */
const NO_KEY_RETRY_MS = 60_000;

export const chunkConsumer = (
  nats: NatsLink,
  namespace: string,
  key: string | undefined,
  store: RecordingStore,
  log: Logger,
) => {
  const names = sessionStreamNames(namespace);
  return new Consumer<ReceivedChunk>(nats.nc, {
    stream: names.stream,
    consumer: names.chunksConsumer,
    concurrency: 16,
    log,
    decode: (body, header) => {
      const meta = chunkMetaOf(header);
      const mac = header(CHUNK_HEADERS.mac);
      if (!meta || !mac) throw new Error('not a recording chunk');
      return { meta, mac, body };
    },
    handle: async ({ data: { meta, mac, body } }) => {
      if (!key) return { retryInMs: NO_KEY_RETRY_MS };
      if (!chunkMacValid(key, meta, body, mac)) {
        log.error({ sessionId: meta.sessionId, seq: meta.seq }, 'recording chunk with a bad signature; dropped');
        return;
      }
      const outcome = await store.append(meta, body);
      if (outcome === 'early') return { retryInMs: EARLY_RETRY_MS };
      if (outcome === 'refused')
        log.error({ sessionId: meta.sessionId, seq: meta.seq }, 'recording chunk names another workspace; dropped');
    },
  });
};
