import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { ClientFrames, ruleFor } from './cdp-filter.js';

/** A masked client frame as a WebSocket client would send it. */
function frame(payload: string | Buffer, { fin = true, opcode = 0x1 } = {}): Buffer {
  const body = Buffer.from(payload);
  const mask = randomBytes(4);
  const len = body.length;
  const head =
    len < 126
      ? Buffer.from([(fin ? 0x80 : 0) | opcode, 0x80 | len])
      : Buffer.from([(fin ? 0x80 : 0) | opcode, 0x80 | 126, len >> 8, len & 0xff]);
  return Buffer.concat([head, mask, Buffer.from(body.map((b, i) => b ^ (mask[i & 3] as number)))]);
}

/** The text of the messages in frames written by ClientFrames. */
function messages(bytes: Buffer[]): unknown[] {
  const out: unknown[] = [];
  const reader = new ClientFrames();
  // Reading our own output back through a second reader unmasks it.
  const judged = (reader as unknown as { nextFrame(): { payload: Buffer } | undefined }).nextFrame.bind(reader);
  (reader as unknown as { buffered: Buffer }).buffered = Buffer.concat(bytes);
  for (let f = judged(); f; f = judged()) out.push(JSON.parse(f.payload.toString()));
  return out;
}

test('navigation to anything but the web is refused; the web passes untouched', () => {
  assert.deepEqual(ruleFor({ method: 'Page.navigate', params: { url: 'file:///etc/hostname' } }), {
    kind: 'refuse',
    reason: 'urlSchemeNotAllowed',
  });
  assert.equal(ruleFor({ method: 'Target.createTarget', params: { url: 'chrome://settings' } }).kind, 'refuse');
  assert.equal(ruleFor({ method: 'Page.navigate', params: { url: 'https://example.com/' } }).kind, 'pass');
  assert.equal(ruleFor({ method: 'Target.createTarget', params: { url: 'about:blank' } }).kind, 'pass');
  assert.equal(ruleFor({ method: 'DOM.setFileInputFiles', params: { files: ['/etc/passwd'] } }).kind, 'refuse');
  assert.deepEqual(
    ruleFor({ method: 'Browser.setDownloadBehavior', params: { behavior: 'allowAndName', downloadPath: '/tmp' } }),
    {
      kind: 'rewrite',
      params: { behavior: 'deny' },
    },
  );
  assert.deepEqual(
    ruleFor({ method: 'Target.createBrowserContext', params: { proxyServer: 'http://x', disposeOnDetach: true } }),
    {
      kind: 'rewrite',
      params: { disposeOnDetach: true },
    },
  );
});

test('frames pass byte for byte, split anywhere; a refused command is renamed with its id and session kept', () => {
  const ok = frame(JSON.stringify({ id: 1, method: 'Runtime.evaluate', params: { expression: '1+1' } }));
  const bad = frame(
    JSON.stringify({ id: 2, sessionId: 'S', method: 'Page.navigate', params: { url: 'file:///etc/hostname' } }),
  );
  const ping = frame('', { opcode: 0x9 });
  const all = Buffer.concat([ok, ping, bad]);
  const refused: string[] = [];
  const reader = new ClientFrames((method) => refused.push(method));
  const out: Buffer[] = [];
  for (let i = 0; i < all.length; i += 7) out.push(...reader.push(all.subarray(i, i + 7)));
  assert.deepEqual(out[0], ok, 'an allowed command goes as it came');
  assert.deepEqual(out[1], ping);
  assert.deepEqual(messages([out[2] as Buffer]), [
    { id: 2, sessionId: 'S', method: 'Refused.urlSchemeNotAllowed', params: {} },
  ]);
  assert.deepEqual(refused, ['Page.navigate']);
});

test('a message split over frames is judged whole', () => {
  const text = JSON.stringify({ id: 3, method: 'Page.navigate', params: { url: 'file:///x' } });
  const reader = new ClientFrames();
  assert.deepEqual(reader.push(frame(text.slice(0, 10), { fin: false })), []);
  const out = reader.push(frame(text.slice(10), { fin: true, opcode: 0x0 }));
  assert.deepEqual(messages(out), [{ id: 3, method: 'Refused.urlSchemeNotAllowed', params: {} }]);
});

test('a client closing the browser is answered under its id, and the session is told to end', () => {
  let closes = 0;
  const reader = new ClientFrames(undefined, () => closes++);
  const out = reader.push(frame(JSON.stringify({ id: 9, method: 'Browser.close' })));
  assert.deepEqual(messages(out), [{ id: 9, method: 'Browser.getVersion', params: {} }]);
  assert.equal(closes, 1);
  // Within a target's session it is no browser-wide close: it passes as it came.
  const scoped = frame(JSON.stringify({ id: 10, sessionId: 'S', method: 'Browser.close' }));
  assert.deepEqual(reader.push(scoped), [scoped]);
  assert.equal(closes, 1);
});
