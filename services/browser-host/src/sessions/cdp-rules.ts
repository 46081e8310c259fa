// The host's rules for a client's commands (cdp-filter.ts applies them):
// - Page.navigate, Target.createTarget, Fetch.continueRequest and
//   Network.loadNetworkResource to anything but http(s) (and about:, data:,
//   blob: for the navigations) are refused: file:// would read the host.
// - DOM.setFileInputFiles, Page.handleFileChooser and drags carrying files
//   (host paths), Extensions.*, PWA.*, Target.exposeDevToolsProtocol (an
//   unfiltered CDP inside a page), Target.sendMessageToTarget and non-flat
//   attaching (messages inside messages), Browser.getBrowserCommandLine and
//   Browser.executeBrowserCommand are refused; so are Target.setRemoteLocations
//   (Chromium would connect to any host and port it names), Tethering.* (a
//   listening port on the host) and SystemInfo.getInfo / getProcessInfo (the
//   host's GPU, driver and process ids).
// - Browser.setDownloadBehavior / Page.setDownloadBehavior become `deny`.
// - Target.createBrowserContext loses proxyServer/proxyBypassList.
// - Browser.close ends the session (the host closes the browser itself, so
//   what the pages showed last reaches the recording and the bill).
// - Debugger.setBreakpointByUrl may not name the recorder extension's scripts
//   (a condition runs in their scope), Runtime.addBinding may not bind into its
//   world by name, and HeapProfiler.addInspectedHeapObject (a heap object as
//   the console's $0, in any context) is refused.

import { RECORDER_NAME } from '../recording/extension.js';

/** Navigations a client may ask for. */
const NAVIGABLE = /^(https?:\/\/|about:|data:|blob:)/i;
const NAVIGABLE_SCHEMES = new Set(['http:', 'https:', 'about:', 'data:', 'blob:']);
const WEB = /^https?:\/\//i;
const WEB_SCHEMES = new Set(['http:', 'https:']);
export const EXTENSION = 'chrome-extension://';

export type Json = Record<string, unknown>;

/** What the host's rules make of a command: as it came, rewritten, refused, or the browser's close. */
export type Rule =
  | { kind: 'pass' }
  | { kind: 'rewrite'; params: Json }
  | { kind: 'refuse'; reason: string }
  | { kind: 'close' };

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether `url` is one of `schemes`, read both as Chromium and as WHATWG would: both must agree. */
function urlAllowed(url: unknown, prefix: RegExp, schemes: Set<string>): boolean {
  if (typeof url !== 'string' || !prefix.test(url)) return false;
  try {
    return schemes.has(new URL(url).protocol);
  } catch {
    return false;
  }
}

/** A client's command after the host's rules (the extension's hiding is the filter's, below). */
export function ruleFor(command: { method: string; params?: Json; sessionId?: string }): Rule {
  const { method } = command;
  const params = command.params ?? {};
  switch (method) {
    // On the connection or on a session attached to the browser target (Playwright's
    // newBrowserCDPSession), it is the same close: Chromium forwarded one would exit under the
    // session, which then ends as crashed. On a page's session Chromium has no Browser domain.
    case 'Browser.close':
      return { kind: 'close' };
    case 'Target.createTarget':
      if (params.url === undefined || params.url === '') return { kind: 'pass' };
      return urlAllowed(params.url, NAVIGABLE, NAVIGABLE_SCHEMES)
        ? { kind: 'pass' }
        : { kind: 'refuse', reason: 'urlSchemeNotAllowed' };
    case 'Page.navigate':
      return urlAllowed(params.url, NAVIGABLE, NAVIGABLE_SCHEMES)
        ? { kind: 'pass' }
        : { kind: 'refuse', reason: 'urlSchemeNotAllowed' };
    case 'Fetch.continueRequest':
    case 'Network.continueInterceptedRequest':
      return params.url === undefined || urlAllowed(params.url, WEB, WEB_SCHEMES)
        ? { kind: 'pass' }
        : { kind: 'refuse', reason: 'urlSchemeNotAllowed' };
    case 'Network.loadNetworkResource':
      return urlAllowed(params.url, WEB, WEB_SCHEMES)
        ? { kind: 'pass' }
        : { kind: 'refuse', reason: 'urlSchemeNotAllowed' };
    case 'DOM.setFileInputFiles':
    case 'Page.handleFileChooser':
      return { kind: 'refuse', reason: 'hostFilesNotAllowed' };
    case 'Input.dispatchDragEvent': {
      const files = isObject(params.data) ? params.data.files : undefined;
      return Array.isArray(files) && files.length > 0
        ? { kind: 'refuse', reason: 'hostFilesNotAllowed' }
        : { kind: 'pass' };
    }
    case 'Browser.setDownloadBehavior':
    case 'Page.setDownloadBehavior': {
      const { browserContextId } = params;
      return {
        kind: 'rewrite',
        params: { behavior: 'deny', ...(typeof browserContextId === 'string' && { browserContextId }) },
      };
    }
    case 'Target.createBrowserContext': {
      if (!('proxyServer' in params) && !('proxyBypassList' in params)) return { kind: 'pass' };
      const { proxyServer: _server, proxyBypassList: _bypass, ...rest } = params;
      return { kind: 'rewrite', params: rest };
    }
    // Without flatten, a target's messages travel inside Target.sendMessageToTarget, unread by these rules.
    case 'Target.attachToTarget':
      return params.flatten === true ? { kind: 'pass' } : { kind: 'refuse', reason: 'flattenRequired' };
    case 'Target.setAutoAttach':
      return params.flatten === true || params.autoAttach === false
        ? { kind: 'pass' }
        : { kind: 'refuse', reason: 'flattenRequired' };
    case 'Target.sendMessageToTarget':
      return { kind: 'refuse', reason: 'flattenRequired' };
    // A breakpoint's condition runs in the scope of the code it stops in: one that could stop in the
    // recorder's own scripts would run the client's code in the recorder's world.
    case 'Debugger.setBreakpointByUrl':
      return breakpointByUrl(params);
    // The heap object becomes the console's $0 in whatever context evaluates it: the recorder's closures,
    // called from the page's world, run in the recorder's.
    case 'HeapProfiler.addInspectedHeapObject':
      return { kind: 'refuse', reason: 'notAllowed' };
    // A binding named into the recorder's world would put the client's function among its globals.
    case 'Runtime.addBinding':
      return params.executionContextName === RECORDER_NAME
        ? { kind: 'refuse', reason: 'extensionWorld' }
        : { kind: 'pass' };
    case 'Target.exposeDevToolsProtocol':
    case 'Target.openDevTools':
    case 'Browser.getBrowserCommandLine':
    case 'Browser.executeBrowserCommand':
    case 'Browser.crash':
    case 'Browser.crashGpuProcess':
    case 'ServiceWorker.stopAllWorkers':
    // The host's process ids, its GPU and driver: nothing a page's client needs, much an attacker wants.
    case 'SystemInfo.getProcessInfo':
    case 'SystemInfo.getInfo':
    // Discovery of remote targets makes Chromium itself connect to any host and port it is given.
    case 'Target.setRemoteLocations':
      return { kind: 'refuse', reason: 'notAllowed' };
  }
  // Tethering.bind opens a listening port on the host's loopback.
  if (/^(Extensions|PWA|Cast|Tethering)\./.test(method)) return { kind: 'refuse', reason: 'notAllowed' };
  return { kind: 'pass' };
}

/**
 * Debugger.setBreakpointByUrl, kept off the extension's scripts: by URL, not
 * one of its; by pattern, one that compiles here as Chromium would compile it,
 * made never to match a chrome-extension:// URL; by script hash, not at all
 * (the recorder's scripts' text can be read in a heap snapshot, and so their
 * hash known).
 */
function breakpointByUrl(params: Json): Rule {
  if (params.scriptHash !== undefined) return { kind: 'refuse', reason: 'breakpointByHash' };
  if (typeof params.url === 'string' && params.url.toLowerCase().startsWith(EXTENSION))
    return { kind: 'refuse', reason: 'extensionScript' };
  if (params.urlRegex === undefined) return { kind: 'pass' };
  if (typeof params.urlRegex !== 'string') return { kind: 'refuse', reason: 'badPattern' };
  try {
    new RegExp(params.urlRegex);
  } catch {
    return { kind: 'refuse', reason: 'badPattern' };
  }
  // Chromium searches the script's URL for the pattern; this matches where it did, unless the URL is an extension's.
  return { kind: 'rewrite', params: { ...params, urlRegex: `^(?!chrome-extension:)[\\s\\S]*?(?:${params.urlRegex})` } };
}
