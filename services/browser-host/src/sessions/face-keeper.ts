// The browser's face (domain/browser-face.ts) on every target it makes: a
// connection of the host's own (cdp-hub.ts) auto-attaches to every page,
// frame and worker, dedicated, shared and service, paused before its first
// script (waitForDebuggerOnStart), sets the user agent with its full client
// hints metadata there, and lets it run. The same metadata answers
// navigator.userAgentData in every world and the Sec-CH-UA headers on the
// wire; the --user-agent flag would empty the high-entropy hints, which no
// real Chrome does. Nothing is injected into a page: the override lives in
// the browser, below JavaScript.
//
// A client's connection auto-attaching with its own waitForDebuggerOnStart
// is no matter: Chromium resumes a target once every session that asked to
// hold it has let it go.
import type { UserAgentOverride } from '../domain/browser-face.js';
import type { CdpChannel } from './cdp-hub.js';

export interface FaceKeeper {
  /** Targets of this browser context wear `face` instead, from their next attach (a mobile render's context). */
  faceContext(browserContextId: string, face: UserAgentOverride): void;
  forgetContext(browserContextId: string): void;
  /** Stops attaching: targets already attached keep their face. */
  close(): void;
}

interface Attached {
  sessionId: string;
  targetInfo: { type: string; browserContextId?: string };
  waitingForDebugger: boolean;
}

/** What auto-attach asks of every session: hold each new target until its face is on. */
const AUTO_ATTACH = { autoAttach: true, waitForDebuggerOnStart: true, flatten: true };

/**
 * Keeps `face` on every target of the browser behind `channel`, its own
 * connection (closing the keeper closes it). Resolves once the browser's
 * auto-attach is set: targets made after that never run a script without it.
 */
export async function keepFace(channel: CdpChannel, face: UserAgentOverride): Promise<FaceKeeper> {
  let nextId = 0;
  const pending = new Map<number, { resolve(reply: { error?: unknown }): void; sessionId: string | undefined }>();
  const contexts = new Map<string, UserAgentOverride>();
  // The session id last: the hub routes a message by its tail (cdp-hub.ts).
  const send = (method: string, params: object, sessionId?: string) =>
    new Promise<{ error?: unknown }>((resolve) => {
      const id = ++nextId;
      pending.set(id, { resolve, sessionId });
      channel.send(JSON.stringify({ id, method, params, ...(sessionId !== undefined && { sessionId }) }));
    });

  /** A command whose answer, if any, is not waited for. */
  const post = (method: string, params: object, sessionId: string) =>
    channel.send(JSON.stringify({ id: ++nextId, method, params, sessionId }));

  const dress = async ({ sessionId, targetInfo, waitingForDebugger }: Attached) => {
    const own = (targetInfo.browserContextId && contexts.get(targetInfo.browserContextId)) || face;
    // Not waited for: a target paused before its first renderer (a tab a link opens, a service
    // worker) answers only once it runs. The browser takes a session's commands in order, so the
    // override is set before the resume below lets the target start. A target without an Emulation
    // domain (a worklet) answers an error and runs as Chromium made it.
    post('Emulation.setUserAgentOverride', own, sessionId);
    // Its frames in other processes and its workers are its own children: held and dressed the same way.
    await send('Target.setAutoAttach', AUTO_ATTACH, sessionId);
    if (waitingForDebugger) await send('Runtime.runIfWaitingForDebugger', {}, sessionId);
  };

  channel.onmessage = (text) => {
    let message: { id?: number; method?: string; params?: Attached; error?: unknown; sessionId?: string };
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof message.id === 'number') {
      pending.get(message.id)?.resolve(message);
      pending.delete(message.id);
    } else if (message.method === 'Target.attachedToTarget' && message.params) void dress(message.params);
    else if (message.method === 'Target.detachedFromTarget') {
      // A target gone before it answered: what waited on it is over.
      const gone = message.params?.sessionId;
      for (const [id, waiting] of pending)
        if (waiting.sessionId === gone) {
          pending.delete(id);
          waiting.resolve({ error: 'detached' });
        }
    }
  };
  channel.onclose = () => {
    for (const waiting of pending.values()) waiting.resolve({ error: 'closed' });
    pending.clear();
  };
  const { error } = await send('Target.setAutoAttach', AUTO_ATTACH);
  if (error) throw new Error(`auto-attach refused: ${JSON.stringify(error)}`);
  return {
    faceContext: (id, own) => contexts.set(id, own),
    forgetContext: (id) => contexts.delete(id),
    close: () => channel.close(),
  };
}
