// A CDP connection whose client drives pages as if `Runtime` were enabled,
// while Chromium never enables it (docs/decisions/0033-no-runtime-enable.md).
// Once a connection has enabled Runtime on a page, Chromium formats what the
// page hands `console.*` for it (an Error's stack, a getter), and a page
// that logs a trap knows it is driven: fpscanner's `hasCDP`. Puppeteer sends
// `Runtime.enable` on every page and waits for the execution contexts it
// announces; this answers the command itself and announces the contexts the
// client needs without it:
//
// - a frame's "main world" is an isolated world of a name of its own
//   (Page.createIsolatedWorld, which answers its context id with no domain
//   enabled): the client's evaluations see the page's DOM, never its
//   globals, and leave nothing the page could see;
// - every world the client asks for (Page.createIsolatedWorld, and the worlds
//   it names for new documents in Page.addScriptToEvaluateOnNewDocument) is
//   announced as its answer comes, and made again in each new document;
// - a frame's new document (Page.frameNavigated) first destroys the contexts
//   of the old one, as Chromium would.
//
// Workers get the answer and no context: nothing of the host evaluates in
// a page's workers. An extension's targets (the recorder's worker, which the
// host does evaluate in) are no page's: Runtime is enabled there as asked.
// `Runtime.disable` is answered too. Everything else passes untouched.
import { randomBytes } from 'node:crypto';
import type { CdpChannel } from './cdp-hub.js';
import { headId, headMethod } from './cdp-message.js';

/** The ids of the shim's own commands: far above any a client reaches. */
const OWN_IDS = 1_500_000_000;
/**
 * The commands this reads, as every writer here spells them (JSON.stringify:
 * the filter's and puppeteer's, no escapes in a method): every other command
 * passes unparsed.
 */
const READ_COMMANDS =
  /"method":"(?:Runtime\.enable|Runtime\.disable|Page\.addScriptToEvaluateOnNewDocument|Page\.createIsolatedWorld)"/;

interface Message {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: unknown;
  sessionId?: string;
}

interface Session {
  /** The client has enabled Runtime here (as far as it knows). */
  enabled: boolean;
  /** The worlds the client named for new documents. */
  worlds: Set<string>;
  /** Per frame: its document's generation, and the contexts announced in it. */
  frames: Map<string, { generation: number; contexts: number[] }>;
}

/** A world's name no page or client could guess: the frames' stand-in main worlds. */
const mainWorldName = () => `w${randomBytes(8).toString('hex')}`;

export function quietRuntime(inner: CdpChannel): CdpChannel {
  const main = mainWorldName();
  const sessions = new Map<string, Session>();
  const waiting = new Map<number, { resolve(result: Message): void }>();
  /** The client's own Page.createIsolatedWorld commands, by id: announced when answered. */
  const asked = new Map<number, { sessionId: string; frameId: string; name: string }>();
  /** Sessions of an extension's targets: no page's code runs there, Runtime is theirs to enable. */
  const extensions = new Set<string>();
  let nextId = OWN_IDS;

  const toClient = (message: Message) => outer.onmessage?.(JSON.stringify(message));
  const command = (sessionId: string, method: string, params: Record<string, unknown>): Promise<Message> => {
    const id = ++nextId;
    return new Promise((resolve) => {
      waiting.set(id, { resolve });
      // The session last: the hub reads it from the tail (cdp-hub.ts).
      inner.send(JSON.stringify({ id, method, params, sessionId }));
    });
  };
  const sessionOf = (sessionId: string) => {
    let session = sessions.get(sessionId);
    if (!session) {
      session = { enabled: false, worlds: new Set(), frames: new Map() };
      sessions.set(sessionId, session);
    }
    return session;
  };
  const frameOf = (session: Session, frameId: string) => {
    let frame = session.frames.get(frameId);
    if (!frame) {
      frame = { generation: 0, contexts: [] };
      session.frames.set(frameId, frame);
    }
    return frame;
  };

  const announce = (sessionId: string, frameId: string, name: string, contextId: number) => {
    const frame = frameOf(sessionOf(sessionId), frameId);
    frame.contexts.push(contextId);
    const isDefault = name === main;
    toClient({
      method: 'Runtime.executionContextCreated',
      params: {
        context: {
          id: contextId,
          origin: '',
          name: isDefault ? '' : name,
          uniqueId: `${sessionId}.${contextId}`,
          auxData: { isDefault, type: isDefault ? 'default' : 'isolated', frameId },
        },
      },
      sessionId,
    });
  };

  /** Makes the frame's worlds in its current document and announces them, unless it has moved on meanwhile. */
  const makeWorlds = async (sessionId: string, frameId: string) => {
    const session = sessionOf(sessionId);
    const generation = frameOf(session, frameId).generation;
    for (const name of [main, ...session.worlds]) {
      const answer = await command(sessionId, 'Page.createIsolatedWorld', {
        frameId,
        worldName: name,
        grantUniveralAccess: true,
      });
      const contextId = answer.result?.executionContextId;
      if (typeof contextId !== 'number' || !session.enabled) return;
      if (frameOf(session, frameId).generation !== generation) return;
      announce(sessionId, frameId, name, contextId);
    }
  };

  const enable = async (sessionId: string) => {
    const session = sessionOf(sessionId);
    if (session.enabled) return;
    session.enabled = true;
    const tree = (await command(sessionId, 'Page.getFrameTree', {})).result?.frameTree;
    // No frames: a worker, or a target gone.
    const frames: string[] = [];
    const walk = (node: unknown) => {
      const { frame, childFrames } = (node ?? {}) as { frame?: { id?: unknown }; childFrames?: unknown[] };
      if (typeof frame?.id === 'string') frames.push(frame.id);
      for (const child of childFrames ?? []) walk(child);
    };
    walk(tree);
    await Promise.all(frames.map((frameId) => makeWorlds(sessionId, frameId)));
  };

  /** A frame's new document: its old contexts are gone (told before the navigation), its worlds made anew (after). */
  const navigated = (sessionId: string, frameId: string): (() => void) | undefined => {
    const session = sessions.get(sessionId);
    if (!session?.enabled) return undefined;
    const frame = frameOf(session, frameId);
    frame.generation++;
    for (const executionContextId of frame.contexts.splice(0))
      toClient({ method: 'Runtime.executionContextDestroyed', params: { executionContextId }, sessionId });
    return () => void makeWorlds(sessionId, frameId);
  };

  const fromClient = (text: string) => {
    if (!READ_COMMANDS.test(text)) {
      inner.send(text);
      return;
    }
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      inner.send(text);
      return;
    }
    const { id, method, params, sessionId } = message;
    const quiet = sessionId !== undefined && !extensions.has(sessionId);
    if (quiet && typeof id === 'number' && (method === 'Runtime.enable' || method === 'Runtime.disable')) {
      // On a turn of its own, as the hub hands Chromium's answers (cdp-hub.ts).
      setImmediate(() => toClient({ id, result: {}, sessionId }));
      if (method === 'Runtime.enable') void enable(sessionId);
      else sessionOf(sessionId).enabled = false;
      return;
    }
    if (sessionId && method === 'Page.addScriptToEvaluateOnNewDocument' && typeof params?.worldName === 'string')
      sessionOf(sessionId).worlds.add(params.worldName);
    if (sessionId && typeof id === 'number' && method === 'Page.createIsolatedWorld') {
      const { frameId, worldName } = params ?? {};
      if (typeof frameId === 'string') asked.set(id, { sessionId, frameId, name: String(worldName ?? '') });
    }
    inner.send(text);
  };

  const fromBrowser = (text: string) => {
    const id = headId(text);
    if (id !== undefined) {
      const own = waiting.get(id);
      if (own) {
        waiting.delete(id);
        own.resolve(JSON.parse(text) as Message);
        return;
      }
      const world = asked.get(id);
      if (world) {
        asked.delete(id);
        const contextId = (JSON.parse(text) as Message).result?.executionContextId;
        if (typeof contextId === 'number' && sessions.get(world.sessionId)?.enabled)
          announce(world.sessionId, world.frameId, world.name, contextId);
      }
      outer.onmessage?.(text);
      return;
    }
    const method = headMethod(text);
    if (method === 'Page.frameNavigated') {
      const { params, sessionId } = JSON.parse(text) as Message;
      const frameId = (params?.frame as { id?: unknown } | undefined)?.id;
      const then = sessionId && typeof frameId === 'string' ? navigated(sessionId, frameId) : undefined;
      outer.onmessage?.(text);
      then?.();
      return;
    }
    if (method === 'Target.attachedToTarget') {
      const { params } = JSON.parse(text) as Message;
      const { sessionId, targetInfo } = (params ?? {}) as { sessionId?: unknown; targetInfo?: { url?: unknown } };
      if (typeof sessionId === 'string' && String(targetInfo?.url ?? '').startsWith('chrome-extension://'))
        extensions.add(sessionId);
    }
    if (method === 'Page.frameDetached' || method === 'Target.detachedFromTarget') {
      const { params, sessionId } = JSON.parse(text) as Message;
      if (method === 'Page.frameDetached' && sessionId && typeof params?.frameId === 'string')
        sessions.get(sessionId)?.frames.delete(params.frameId);
      if (method === 'Target.detachedFromTarget' && typeof params?.sessionId === 'string') {
        sessions.delete(params.sessionId);
        extensions.delete(params.sessionId);
      }
    }
    outer.onmessage?.(text);
  };

  const outer: CdpChannel = {
    send: fromClient,
    close: () => inner.close(),
    pause: () => inner.pause(),
    resume: () => inner.resume(),
  };
  inner.onmessage = fromBrowser;
  inner.onclose = () => {
    for (const { resolve } of waiting.values()) resolve({ error: 'closed' });
    waiting.clear();
    outer.onclose?.();
  };
  return outer;
}
