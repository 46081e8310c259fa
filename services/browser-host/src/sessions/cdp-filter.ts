// What a client may ask of its session's Chromium, and what it sees of it.
// The host ends the client's WebSocket itself (cdp-server.ts), so this reads
// whole messages, never frames: each client message must be one JSON object
// (an integer `id` of at least 0, a `Domain.method` name, optional `params`
// object and `sessionId` string), and only what was parsed goes on to
// Chromium: the client's own text where it is written as the host writes a
// command and no reader could take another meaning from it (cdp-message.ts,
// readsAsParsed), else serialised anew. Anything else closes the connection:
// a byte Chromium would read differently from us never reaches it.
//
// Commands pass the host's rules (cdp-rules.ts): some refused, some rewritten.
//
// The recorder extension is not the client's to see or touch: its targets,
// the CDP sessions Chromium attaches to them, its execution contexts, its
// scripts and its call frames are dropped from what Chromium sends, and a
// command naming one is answered as Chromium answers an unknown one. Contexts,
// scripts and call frames are allow-listed: a command may name only one this
// connection was shown (their ids are small integers a client could guess).
// Nor does it get hold of the recorder's objects (a heap snapshot's object
// handed over in the recorder's world is refused, and an object id of a hidden
// context is answered as unknown), nor change what its code returns
// (Debugger.setReturnValue only in a pause the client was shown): code of the
// client's running in the recorder's world could post events of its making.
//
// A refused command is answered by the host under its id and session with a
// CDP error; Chromium never sees it. Nor does it see a command of the host's
// own Captcha domain: the host answers those (captcha/cdp-domain.ts), told
// the page target of the session the command came on.

import { commandText, headId, headMethod, readsAsParsed, tailSession } from './cdp-message.js';
import { EXTENSION, isObject, type Json, ruleFor } from './cdp-rules.js';

export { type Rule, ruleFor } from './cdp-rules.js';

const METHOD = /^[A-Za-z][A-Za-z0-9]*\.[A-Za-z][A-Za-z0-9]*$/;
const SESSION_ID = /^[A-Za-z0-9]{1,64}$/;
/** The host's own CDP domains: answered by the host, never sent to Chromium (captcha/cdp-domain.ts). */
const HOST_DOMAIN = /^Captcha\./;

/** A client's command as parsed: nothing else of its message exists for the host. */
export interface Command {
  id: number;
  method: string;
  params?: Record<string, unknown>;
  sessionId?: string;
}

export type ClientVerdict =
  /** Send this to Chromium. */
  | { kind: 'forward'; text: string }
  /** Answer the client with this; Chromium never sees the command. */
  | { kind: 'answer'; text: string }
  /** The client asked to close the browser: answer it, then end the session. */
  | { kind: 'closeBrowser'; text: string }
  /** Not a CDP command: close the connection (RFC 6455 status code). */
  | { kind: 'violation'; code: number; reason: string }
  /** A command of the host's own domain (Captcha.*): the host answers it; `targetId`, its session's page. */
  | { kind: 'host'; command: Command; targetId: string | undefined };

/** The context an object id names (Chromium's `<isolate>.<context>.<object>`), if it names one. */
function contextOfObject(objectId: unknown): number | undefined {
  const match = typeof objectId === 'string' ? /^-?\d+\.(-?\d+)\.\d+$/.exec(objectId) : null;
  return match ? Number(match[1]) : undefined;
}

/** What a connection was shown within one CDP session (flat sessions; '' for the browser's own). */
interface Scope {
  contexts: Set<number>;
  /** The extension's contexts here: what happens in them is not shown. */
  hiddenContexts: Set<number>;
  uniqueContexts: Set<string>;
  scripts: Set<string>;
  callFrames: Set<string>;
  /** Paused where the client was shown it: only then may it change what the top frame returns. */
  paused: boolean;
}

const newScope = (): Scope => ({
  contexts: new Set(),
  hiddenContexts: new Set(),
  uniqueContexts: new Set(),
  scripts: new Set(),
  callFrames: new Set(),
  paused: false,
});

/** Chromium's own answers to a command naming something that does not exist. */
const NOT_FOUND = {
  session: { code: -32001, message: 'Session with given id not found.' },
  target: { code: -32602, message: 'No target with given id found' },
  context: { code: -32000, message: 'Cannot find context with specified id' },
  script: { code: -32000, message: 'No script for id' },
  callFrame: { code: -32000, message: 'Invalid call frame id' },
  object: { code: -32000, message: 'Could not find object with given id' },
  notPaused: { code: -32000, message: 'Could not set return value' },
  serviceWorker: { code: -32000, message: 'No such registration' },
} as const;

/** Results the filter reads (per command), to hide or allow what they name. */
const READ_RESULTS = new Set([
  'Target.getTargets',
  'Page.createIsolatedWorld',
  'Runtime.compileScript',
  'HeapProfiler.getObjectByHeapObjectId',
]);

/** Chromium's events the filter reads; every other event passes unread. */
const READ_EVENTS = new Set([
  'Target.targetCreated',
  'Target.targetInfoChanged',
  'Target.targetDestroyed',
  'Target.targetCrashed',
  'Target.attachedToTarget',
  'Target.detachedFromTarget',
  'Runtime.executionContextCreated',
  'Runtime.executionContextDestroyed',
  'Runtime.executionContextsCleared',
  'Runtime.consoleAPICalled',
  'Runtime.exceptionThrown',
  'Debugger.scriptParsed',
  'Debugger.scriptFailedToParse',
  'Debugger.paused',
  'Debugger.resumed',
  'ServiceWorker.workerRegistrationUpdated',
  'ServiceWorker.workerVersionUpdated',
]);

/** What the client sees of one of Chromium's messages (nothing when hidden), and what the host sends Chromium for it. */
export interface FromBrowser {
  toClient: string | undefined;
  toBrowser: readonly string[];
}

const NOTHING: readonly string[] = Object.freeze([]);
const DROP: FromBrowser = Object.freeze({ toClient: undefined, toBrowser: NOTHING });

export interface FilterHooks {
  /** A command the rules refused (for the log). */
  refused?(method: string, reason: string): void;
  /** Targets the host knows to be the extension's before Chromium says so on this connection. */
  hiddenTarget?(targetId: string): boolean;
}

/**
 * One client connection's view of its browser. `fromClient` judges each
 * client message; `fromBrowser` each of Chromium's, answering what the client
 * sees of it and what the host itself must send Chromium (detaching from a
 * hidden target it auto-attached, resuming a pause in hidden code).
 */
export class CdpFilter {
  private readonly hiddenTargets = new Set<string>();
  private readonly hiddenSessions = new Set<string>();
  private readonly hiddenServiceWorkers = new Set<string>();
  private readonly scopes = new Map<string, Scope>();
  /** Commands whose results are read, by session and id. */
  private readonly pending = new Map<string, string>();
  /** The target of each flat session the client was shown: a Captcha command names its page by its session. */
  private readonly targets = new Map<string, string>();
  /** The host's own commands count down from -1; their answers are dropped. */
  private ownId = 0;

  constructor(private readonly hooks: FilterHooks = {}) {}

  private scope(sessionId: string | undefined): Scope {
    const key = sessionId ?? '';
    let scope = this.scopes.get(key);
    if (!scope) {
      scope = newScope();
      this.scopes.set(key, scope);
    }
    return scope;
  }

  private isHiddenTarget(targetId: unknown): boolean {
    return (
      typeof targetId === 'string' && (this.hiddenTargets.has(targetId) || this.hooks.hiddenTarget?.(targetId) === true)
    );
  }

  /** Parses a client's message strictly; a message that is no CDP command is a protocol violation. */
  static parse(text: string): Command | { violation: string } {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { violation: 'a message must be one JSON object' };
    }
    if (!isObject(value)) return { violation: 'a message must be one JSON object' };
    const { id, method, params, sessionId } = value;
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0)
      return { violation: 'id must be an integer of 0 or more' };
    if (typeof method !== 'string' || !METHOD.test(method)) return { violation: 'method must be Domain.method' };
    if (params !== undefined && !isObject(params)) return { violation: 'params must be an object' };
    if (sessionId !== undefined && (typeof sessionId !== 'string' || !SESSION_ID.test(sessionId)))
      return { violation: 'sessionId must be a session id' };
    const command: Command = { id, method };
    if (params !== undefined) command.params = params;
    if (sessionId !== undefined) command.sessionId = sessionId;
    return command;
  }

  fromClient(text: string): ClientVerdict {
    const parsed = CdpFilter.parse(text);
    if ('violation' in parsed) return { kind: 'violation', code: 1008, reason: parsed.violation };
    const command = parsed;
    const error = (e: { code: number; message: string }, reason: string): ClientVerdict => {
      this.hooks.refused?.(command.method, reason);
      return { kind: 'answer', text: answer(command, { error: e }) };
    };
    if (command.sessionId !== undefined && this.hiddenSessions.has(command.sessionId))
      return error(NOT_FOUND.session, 'hiddenSession');
    const hidden = this.namesHidden(command);
    if (hidden) return error(NOT_FOUND[hidden], `${hidden}NotShown`);
    if (HOST_DOMAIN.test(command.method))
      return {
        kind: 'host',
        command,
        targetId: command.sessionId === undefined ? undefined : this.targets.get(command.sessionId),
      };
    const rule = ruleFor(command);
    if (rule.kind === 'refuse')
      return error({ code: -32000, message: `Refused by the browser host: ${rule.reason}` }, rule.reason);
    if (rule.kind === 'close') return { kind: 'closeBrowser', text: answer(command, { result: {} }) };
    if (READ_RESULTS.has(command.method)) this.pending.set(`${command.sessionId ?? ''}|${command.id}`, command.method);
    if (rule.kind === 'rewrite')
      return { kind: 'forward', text: commandText(command.id, command.method, rule.params, command.sessionId) };
    // The client's own text where Chromium must read it as JSON.parse did (cdp-message.ts), else written anew.
    const same = readsAsParsed(text, command);
    return {
      kind: 'forward',
      text: same ? text : commandText(command.id, command.method, command.params, command.sessionId),
    };
  }

  /** What of the hidden the command names, if anything: a target, a context, a script, a call frame. */
  private namesHidden(command: Command): keyof typeof NOT_FOUND | undefined {
    const p = command.params;
    if (!p)
      return command.method === 'Debugger.setReturnValue' && !this.scope(command.sessionId).paused
        ? 'notPaused'
        : undefined;
    if (this.isHiddenTarget(p.targetId)) return 'target';
    if (p.sessionId !== undefined && this.hiddenSessions.has(String(p.sessionId))) return 'session';
    const scope = this.scope(command.sessionId);
    const shownContext = (id: unknown) => id === undefined || (typeof id === 'number' && scope.contexts.has(id));
    if (!shownContext(p.contextId) || !shownContext(p.executionContextId)) return 'context';
    if (p.uniqueContextId !== undefined && !scope.uniqueContexts.has(String(p.uniqueContextId))) return 'context';
    if (p.callFrameId !== undefined && !scope.callFrames.has(String(p.callFrameId))) return 'callFrame';
    if (someValue(p, 'scriptId', (scriptId) => !scope.scripts.has(String(scriptId)))) return 'script';
    const hiddenObject = (objectId: unknown) => {
      const context = contextOfObject(String(objectId));
      return context !== undefined && scope.hiddenContexts.has(context);
    };
    if (scope.hiddenContexts.size > 0 && someValue(p, 'objectId', hiddenObject)) return 'object';
    // Sent blindly while the host has not yet resumed a pause in hidden code, it would change what that code returns.
    if (command.method === 'Debugger.setReturnValue' && !scope.paused) return 'notPaused';
    if (command.method.startsWith('ServiceWorker.')) {
      for (const key of ['versionId', 'registrationId'])
        if (p[key] !== undefined && this.hiddenServiceWorkers.has(String(p[key]))) return 'serviceWorker';
      for (const key of ['scopeURL', 'origin'])
        if (typeof p[key] === 'string' && (p[key] as string).startsWith(EXTENSION)) return 'serviceWorker';
    }
    return undefined;
  }

  /** Chromium's message in: what the client sees of it (nothing when hidden), and what the host sends back. */
  fromBrowser(text: string): FromBrowser {
    const pass = { toClient: text, toBrowser: NOTHING };
    const sessionId = tailSession(text);
    if (sessionId !== undefined && this.hiddenSessions.has(sessionId)) return DROP;
    const id = headId(text);
    if (id !== undefined) {
      if (id < 0) return DROP;
      if (this.pending.size === 0) return pass;
      const key = `${sessionId ?? ''}|${id}`;
      const method = this.pending.get(key);
      if (method === undefined) return pass;
      this.pending.delete(key);
      return this.readResult(method, text, sessionId);
    }
    const event = headMethod(text);
    if (event !== undefined && !READ_EVENTS.has(event)) return pass;
    // An event the filter reads, or a message of a shape it did not expect: read it whole.
    let message: Json;
    try {
      const value: unknown = JSON.parse(text);
      if (!isObject(value)) return DROP;
      message = value;
    } catch {
      return DROP;
    }
    const sid = typeof message.sessionId === 'string' ? message.sessionId : undefined;
    if (sid !== undefined && this.hiddenSessions.has(sid)) return DROP;
    if (typeof message.method !== 'string') {
      // A response whose head was not where Chromium puts it.
      if (typeof message.id === 'number' && message.id < 0) return DROP;
      return pass;
    }
    const params = isObject(message.params) ? message.params : {};
    return this.readEvent(message.method, params, sid, text);
  }

  private own(method: string, params: Json | undefined, sessionId: string | undefined): string {
    this.ownId -= 1;
    return JSON.stringify({
      id: this.ownId,
      method,
      ...(params && { params }),
      ...(sessionId !== undefined && { sessionId }),
    });
  }

  private hideIfExtension(info: unknown): boolean {
    if (!isObject(info)) return false;
    const hidden =
      this.isHiddenTarget(info.targetId) || (typeof info.url === 'string' && info.url.startsWith(EXTENSION));
    if (hidden && typeof info.targetId === 'string') this.hiddenTargets.add(info.targetId);
    return hidden;
  }

  private readEvent(method: string, params: Json, sessionId: string | undefined, text: string): FromBrowser {
    const pass = { toClient: text, toBrowser: NOTHING };
    const drop = DROP;
    const scope = this.scope(sessionId);
    switch (method) {
      case 'Target.targetCreated':
      case 'Target.targetInfoChanged':
        return this.hideIfExtension(params.targetInfo) ? drop : pass;
      case 'Target.targetDestroyed':
      case 'Target.targetCrashed':
        return this.isHiddenTarget(params.targetId) ? drop : pass;
      case 'Target.attachedToTarget': {
        if (!this.hideIfExtension(params.targetInfo)) {
          const targetId = isObject(params.targetInfo) ? params.targetInfo.targetId : undefined;
          if (typeof params.sessionId === 'string' && typeof targetId === 'string')
            this.targets.set(params.sessionId, targetId);
          return pass;
        }
        const child = params.sessionId;
        if (typeof child !== 'string') return drop;
        this.hiddenSessions.add(child);
        // Chromium auto-attached the client to a hidden target: let it run, and let it go.
        const toBrowser = [
          ...(params.waitingForDebugger === true
            ? [this.own('Runtime.runIfWaitingForDebugger', undefined, child)]
            : []),
          this.own('Target.detachFromTarget', { sessionId: child }, sessionId),
        ];
        return { toClient: undefined, toBrowser };
      }
      case 'Target.detachedFromTarget':
        if (typeof params.sessionId === 'string') {
          this.scopes.delete(params.sessionId);
          this.targets.delete(params.sessionId);
          if (this.hiddenSessions.has(params.sessionId)) return drop;
        }
        return this.isHiddenTarget(params.targetId) ? drop : pass;
      case 'Runtime.executionContextCreated': {
        const context = isObject(params.context) ? params.context : {};
        if (typeof context.origin === 'string' && context.origin.startsWith(EXTENSION)) {
          if (typeof context.id === 'number') scope.hiddenContexts.add(context.id);
          return drop;
        }
        if (typeof context.id === 'number') scope.contexts.add(context.id);
        if (typeof context.uniqueId === 'string') scope.uniqueContexts.add(context.uniqueId);
        return pass;
      }
      case 'Runtime.executionContextDestroyed': {
        const context = params.executionContextId as number;
        scope.contexts.delete(context);
        scope.uniqueContexts.delete(String(params.executionContextUniqueId));
        return scope.hiddenContexts.delete(context) ? drop : pass;
      }
      case 'Runtime.executionContextsCleared':
        scope.contexts.clear();
        scope.hiddenContexts.clear();
        scope.uniqueContexts.clear();
        return pass;
      case 'Runtime.consoleAPICalled':
        return scope.hiddenContexts.has(params.executionContextId as number) ? drop : pass;
      case 'Runtime.exceptionThrown': {
        const details = isObject(params.exceptionDetails) ? params.exceptionDetails : {};
        return scope.hiddenContexts.has(details.executionContextId as number) ? drop : pass;
      }
      case 'Debugger.scriptParsed':
      case 'Debugger.scriptFailedToParse': {
        const url = typeof params.url === 'string' ? params.url : '';
        if (url.startsWith(EXTENSION) || scope.hiddenContexts.has(params.executionContextId as number)) return drop;
        if (typeof params.scriptId === 'string') scope.scripts.add(params.scriptId);
        return pass;
      }
      case 'Debugger.paused': {
        const frames = Array.isArray(params.callFrames) ? params.callFrames.filter(isObject) : [];
        const visible = (f: Json) => {
          const location = isObject(f.location) ? f.location : {};
          const url = typeof f.url === 'string' ? f.url : '';
          return !url.startsWith(EXTENSION) && scope.scripts.has(String(location.scriptId));
        };
        const shown = frames.filter(visible);
        if (frames[0] !== undefined && !visible(frames[0])) {
          // Paused inside hidden code: the client never learns of it, and it runs on.
          return { toClient: undefined, toBrowser: [this.own('Debugger.resume', undefined, sessionId)] };
        }
        for (const f of shown) if (typeof f.callFrameId === 'string') scope.callFrames.add(f.callFrameId);
        scope.paused = true;
        if (shown.length === frames.length) return pass;
        return { toClient: rewriteParams(text, { ...params, callFrames: shown }, sessionId), toBrowser: NOTHING };
      }
      case 'Debugger.resumed':
        scope.paused = false;
        return pass;
      case 'ServiceWorker.workerRegistrationUpdated':
      case 'ServiceWorker.workerVersionUpdated': {
        const list = (method.endsWith('RegistrationUpdated') ? params.registrations : params.versions) as unknown;
        const items = Array.isArray(list) ? list.filter(isObject) : [];
        const shown = items.filter((item) => {
          const url = String(item.scopeURL ?? item.scriptURL ?? '');
          if (!url.startsWith(EXTENSION)) return true;
          for (const key of ['registrationId', 'versionId'])
            if (item[key] !== undefined) this.hiddenServiceWorkers.add(String(item[key]));
          return false;
        });
        if (shown.length === items.length) return pass;
        const key = method.endsWith('RegistrationUpdated') ? 'registrations' : 'versions';
        return { toClient: rewriteParams(text, { ...params, [key]: shown }, sessionId), toBrowser: NOTHING };
      }
    }
    return pass;
  }

  private readResult(method: string, text: string, sessionId: string | undefined): FromBrowser {
    let message: Json;
    try {
      const value: unknown = JSON.parse(text);
      if (!isObject(value)) return DROP;
      message = value;
    } catch {
      return DROP;
    }
    const result = isObject(message.result) ? message.result : undefined;
    if (!result) return { toClient: text, toBrowser: NOTHING };
    const scope = this.scope(sessionId);
    if (method === 'Target.getTargets' && Array.isArray(result.targetInfos)) {
      const shown = result.targetInfos.filter((info) => !this.hideIfExtension(info));
      if (shown.length === result.targetInfos.length) return { toClient: text, toBrowser: NOTHING };
      return {
        toClient: JSON.stringify({ ...message, result: { ...result, targetInfos: shown } }),
        toBrowser: NOTHING,
      };
    }
    if (method === 'Page.createIsolatedWorld' && typeof result.executionContextId === 'number')
      scope.contexts.add(result.executionContextId);
    if (method === 'Runtime.compileScript' && typeof result.scriptId === 'string') scope.scripts.add(result.scriptId);
    if (method === 'HeapProfiler.getObjectByHeapObjectId') {
      // An object of a context this connection was not shown (the recorder's world) is not the client's to hold.
      const objectId = isObject(result.result) ? result.result.objectId : undefined;
      const context = contextOfObject(objectId);
      if (context !== undefined && !scope.contexts.has(context))
        return {
          toClient: JSON.stringify({
            id: message.id,
            error: { code: -32000, message: 'Object is not available' },
            ...(sessionId !== undefined && { sessionId }),
          }),
          toBrowser: [this.own('Runtime.releaseObject', { objectId }, sessionId)],
        };
    }
    return { toClient: text, toBrowser: NOTHING };
  }
}

/** An answer to `command` from the host, under its id and session. */
function answer(command: Command, body: { result: Json } | { error: { code: number; message: string } }): string {
  return JSON.stringify({
    id: command.id,
    ...body,
    ...(command.sessionId !== undefined && { sessionId: command.sessionId }),
  });
}

/** An event re-serialised with other params. */
function rewriteParams(text: string, params: Json, sessionId: string | undefined): string {
  const method = headMethod(text) ?? (JSON.parse(text) as { method: string }).method;
  return JSON.stringify({ method, params, ...(sessionId !== undefined && { sessionId }) });
}

/**
 * Whether some value of `key` in a command's params, a few levels deep (a
 * script, a location, a range's ends, a call's arguments), is `bad`.
 */
function someValue(value: unknown, key: string, bad: (v: unknown) => boolean, depth = 0): boolean {
  if (depth > 3 || typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    for (const v of value) if (someValue(v, key, bad, depth + 1)) return true;
    return false;
  }
  for (const name in value) {
    if (!Object.hasOwn(value, name)) continue;
    const v = (value as Json)[name];
    if (name === key ? bad(v) : someValue(v, key, bad, depth + 1)) return true;
  }
  return false;
}
