// For tests of a session browser's recording: the session recorded to a real
// NATS stream, its chunks read back, and a client joined to it through the
// host's CDP filter as the CDP endpoint joins one (sessions/cdp-server.ts).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { jetstreamManager } from '@nats-io/jetstream';
import { chunkMacValid, chunkMetaOf, type NatsLink, Publisher, sessionStreamNames } from '@wap/events';
import { AllowList } from '@wap/netguard';
import { quietLog } from '@wap/testkit';
import puppeteer, { type Browser, type ConnectionTransport } from 'puppeteer-core';
import { browserFace } from '../domain/browser-face.js';
import { sessionSettings } from '../domain/session-options.js';
import { CdpFilter } from '../sessions/cdp-filter.js';
import { chromiumVersion, launchSessionBrowser, type SessionBrowser } from '../sessions/session-browser.js';
import { chunkSink, SessionRecording } from './recording.js';

export interface RecordedChunk {
  seq: number;
  kind: string;
  pages: number;
  macValid: boolean;
  batches: { tab: number; events: { type: number }[] }[];
  text: string;
}

/** Sessions recorded into `namespace`'s stream on NATS (`natsLink`: connected in the test's `before`) (one the calling test file alone uses), signed with `key`. */
export function recordings(natsLink: () => NatsLink, namespace: string, key: string) {
  /** The session's chunks as the stream holds them, in order. */
  async function chunks(sessionId: string): Promise<RecordedChunk[]> {
    const jsm = await jetstreamManager(natsLink().nc);
    const names = sessionStreamNames(namespace);
    const { state } = await jsm.streams.info(names.stream);
    const out: RecordedChunk[] = [];
    for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
      const msg = await jsm.streams.getMessage(names.stream, { seq }).catch(() => undefined);
      if (!msg || msg.subject !== names.chunks(sessionId)) continue;
      const meta = chunkMetaOf((name) => msg.header.get(name) || undefined);
      assert.ok(meta, 'every chunk says what it is');
      const text = gunzipSync(msg.data).toString('utf8');
      out.push({
        seq: meta.seq,
        kind: meta.kind,
        pages: meta.pages,
        macValid: chunkMacValid(key, meta, msg.data, msg.header.get('Wap-Mac')),
        batches: JSON.parse(text),
        text,
      });
    }
    return out;
  }

  /** A session browser recorded while `drive` runs; then flushed and closed as a session ends. */
  async function recordedSession(
    drive: (b: SessionBrowser, sessionId: string, recording: SessionRecording) => Promise<void>,
    capture?: { screencastIntervalMs: number },
  ): Promise<{ sessionId: string; chunks: RecordedChunk[] }> {
    const face = browserFace(sessionSettings(undefined), chromiumVersion('/usr/bin/chromium'));
    const b = await launchSessionBrowser('/usr/bin/chromium', AllowList.parse('127.0.0.0/8'), face, { record: true });
    const sessionId = randomUUID();
    const recording = new SessionRecording(
      sessionId,
      'ws-recorded',
      chunkSink(new Publisher(natsLink().nc), namespace, key, natsLink().nc),
      quietLog(),
    );
    b.recordTo(recording);
    if (capture) await b.captureNetwork(recording, { bodies: false, ...capture });
    try {
      await drive(b, sessionId, recording);
    } finally {
      // As a session ends: every frame hands over what it holds, then the browser closes.
      await b.flushRecording();
      await b.close();
      await recording.close();
    }
    return { sessionId, chunks: await chunks(sessionId) };
  }

  return { chunks, recordedSession };
}

/**
 * A client of the session browser as the host's CDP endpoint joins one: each
 * of its messages through the filter's rules, each of Chromium's through its
 * hiding; `refused` hears every command the rules refused.
 */
export async function filteredClient(
  b: SessionBrowser,
  refused: (method: string, reason: string) => void = () => {},
): Promise<Browser> {
  const upstream = await b.openChannel();
  const filter = new CdpFilter({ refused, hiddenTarget: (id) => b.hiddenTargets().has(id) });
  const transport: ConnectionTransport = {
    send(text) {
      const verdict = filter.fromClient(text);
      if (verdict.kind === 'forward') upstream.send(verdict.text);
      else if (verdict.kind === 'answer') setImmediate(() => transport.onmessage?.(verdict.text));
      else throw new Error(`the filter closed the connection: ${JSON.stringify(verdict)}`);
    },
    close: () => upstream.close(),
  };
  upstream.onmessage = (text) => {
    const { toClient, toBrowser } = filter.fromBrowser(text);
    if (toClient !== undefined) transport.onmessage?.(toClient);
    for (const own of toBrowser) upstream.send(own);
  };
  upstream.onclose = () => transport.onclose?.();
  return puppeteer.connect({ transport, defaultViewport: null });
}
