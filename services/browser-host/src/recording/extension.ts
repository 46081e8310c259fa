// The recorder extension (docs/sessions.md): written into each session
// browser's user-data dir and loaded at launch. Its script is in every frame
// from document_start, in the extension's isolated world, and rrweb records
// from there once the frame starts (after load for a top document); nothing
// runs in the page's world (extension-page.ts); the events
// reach the extension's service worker and leave through the session's own
// egress proxy, which alone answers the recording host (extension-worker.ts).
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { recorderScript, startPolicy } from './extension-page.js';
import { RECORDING_HOST, workerScript } from './extension-worker.js';

export { PAGE_FLUSH_MS } from './extension-page.js';
export { RECORDING_HOST, RECORDING_TOKEN_HEADER } from './extension-worker.js';

/** Chromium's id for an unpacked extension: the first 128 bits of sha256(path), as letters a-p. */
export const unpackedExtensionId = (dir: string): string =>
  [...createHash('sha256').update(dir).digest('hex').slice(0, 32)]
    .map((c) => String.fromCharCode(97 + Number.parseInt(c, 16)))
    .join('');

/** The name its isolated world's contexts carry (a client may not bind into it by name: cdp-filter.ts). */
export const RECORDER_NAME = 'wap-recorder';

export interface RecorderExtension {
  /** Where it was written; Chromium loads it with --load-extension. */
  dir: string;
  /** What its service worker sends with every chunk: only this browser's extension knows it. */
  token: string;
  /** Chromium's id for it: its worker's URL is chrome-extension://<id>/worker.js. */
  id: string;
  /** The launch flags that load it (and nothing else). */
  args: string[];
}

/**
 * Writes the extension into `userDataDir`. It runs in every browser context
 * once the preferences allow it there (`writeChromiumPreferences` with its
 * id: a client's `newContext()` is an off-the-record profile, where
 * extensions are off unless the profile's preferences allow them).
 * `startWhenAsked`: top documents start recording when the host asks
 * (startPolicy: a pool browser's renders).
 */
export function writeRecorderExtension(
  userDataDir: string,
  { startWhenAsked = false }: { startWhenAsked?: boolean } = {},
): RecorderExtension {
  const dir = path.join(userDataDir, 'wap-recorder');
  const token = randomBytes(32).toString('base64url');
  const frames = {
    all_frames: true,
    match_about_blank: true,
    match_origin_as_fallback: true,
    run_at: 'document_start',
  };
  const manifest = {
    manifest_version: 3,
    name: RECORDER_NAME,
    version: '1.0',
    incognito: 'spanning',
    content_scripts: [{ matches: ['<all_urls>'], js: ['recorder.js'], ...frames }],
    background: { service_worker: 'worker.js' },
    // The recording host alone: the worker reads no page, no file:// and no other site (content scripts need none).
    host_permissions: [`http://${RECORDING_HOST}/*`],
    // chrome.debugger.getTargets only: a tab's target id. Nothing attaches. webNavigation: a tab about to navigate,
    // and a frame's parent.
    permissions: ['debugger', 'webNavigation'],
  };
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
  writeFileSync(path.join(dir, 'recorder.js'), recorderScript(startPolicy(startWhenAsked)));
  writeFileSync(path.join(dir, 'worker.js'), workerScript(token));
  const id = unpackedExtensionId(dir);
  return { dir, token, id, args: [`--disable-extensions-except=${dir}`, `--load-extension=${dir}`] };
}
