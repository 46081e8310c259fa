import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CdpFilter, type ClientVerdict, ruleFor } from './cdp-filter.js';

const forwarded = (v: ClientVerdict): unknown => {
  assert.equal(v.kind, 'forward', JSON.stringify(v));
  return JSON.parse((v as { text: string }).text);
};
const answered = (v: ClientVerdict): { id: number; error?: { message: string }; sessionId?: string } => {
  assert.equal(v.kind, 'answer', JSON.stringify(v));
  return JSON.parse((v as { text: string }).text);
};

test('navigation to anything but the web is refused; the web passes', () => {
  assert.deepEqual(ruleFor({ method: 'Page.navigate', params: { url: 'file:///etc/hostname' } }), {
    kind: 'refuse',
    reason: 'urlSchemeNotAllowed',
  });
  for (const url of [' file:///etc/passwd', 'FILE:///etc/passwd', '\tfile:///x', 'chrome://version', 'view-source:x'])
    assert.equal(ruleFor({ method: 'Page.navigate', params: { url } }).kind, 'refuse', url);
  assert.equal(ruleFor({ method: 'Target.createTarget', params: { url: 'chrome://settings' } }).kind, 'refuse');
  assert.equal(ruleFor({ method: 'Page.navigate', params: { url: 'https://example.com/' } }).kind, 'pass');
  assert.equal(ruleFor({ method: 'Target.createTarget', params: { url: 'about:blank' } }).kind, 'pass');
  assert.equal(
    ruleFor({ method: 'Fetch.continueRequest', params: { requestId: '1', url: 'file:///x' } }).kind,
    'refuse',
  );
  assert.equal(ruleFor({ method: 'Network.loadNetworkResource', params: { url: 'file:///x' } }).kind, 'refuse');
  assert.equal(ruleFor({ method: 'DOM.setFileInputFiles', params: { files: ['/etc/passwd'] } }).kind, 'refuse');
  assert.equal(
    ruleFor({
      method: 'Input.dispatchDragEvent',
      params: { type: 'drop', data: { items: [], files: ['/etc/passwd'] } },
    }).kind,
    'refuse',
  );
  for (const method of [
    'Target.exposeDevToolsProtocol',
    'Target.sendMessageToTarget',
    'Extensions.loadUnpacked',
    // Chromium would connect to these itself, around the egress proxy.
    'Target.setRemoteLocations',
    // A listening port on the host's loopback.
    'Tethering.bind',
    'Tethering.unbind',
    // The host's process ids, GPU and driver.
    'SystemInfo.getProcessInfo',
    'SystemInfo.getInfo',
  ])
    assert.equal(ruleFor({ method, params: {} }).kind, 'refuse', method);
  assert.equal(ruleFor({ method: 'Target.setDiscoverTargets', params: { discover: true } }).kind, 'pass');
  assert.equal(
    ruleFor({ method: 'Target.setAutoAttach', params: { autoAttach: true, flatten: false } }).kind,
    'refuse',
  );
  assert.equal(ruleFor({ method: 'Target.setAutoAttach', params: { autoAttach: true, flatten: true } }).kind, 'pass');
  assert.deepEqual(
    ruleFor({ method: 'Browser.setDownloadBehavior', params: { behavior: 'allowAndName', downloadPath: '/tmp' } }),
    { kind: 'rewrite', params: { behavior: 'deny' } },
  );
  assert.deepEqual(
    ruleFor({ method: 'Target.createBrowserContext', params: { proxyServer: 'http://x', disposeOnDetach: true } }),
    { kind: 'rewrite', params: { disposeOnDetach: true } },
  );
});

test('a message that is not one strictly parsed CDP command is a protocol violation', () => {
  const filter = new CdpFilter();
  for (const text of [
    'not json',
    // A raw TAB inside a string: JSON.parse refuses it where Chromium's reader accepts it.
    '{"id":1,"method":"Page.navigate","params":{"url":"file:///etc/passwd\t"}}',
    '[{"id":1,"method":"Page.navigate"}]',
    '{"id":-1,"method":"Page.enable"}',
    '{"id":1.5,"method":"Page.enable"}',
    '{"id":"1","method":"Page.enable"}',
    '{"method":"Page.enable"}',
    '{"id":1,"method":"Page"}',
    '{"id":1,"method":"Page.enable","params":[]}',
    '{"id":1,"method":"Page.enable","sessionId":{"a":1}}',
    '{"id":1,"method":"Page.enable"} {"id":2,"method":"Page.navigate"}',
  ])
    assert.equal(filter.fromClient(text).kind, 'violation', text);
});

test('only what was parsed goes on, serialised anew: a repeated key is judged as Chromium would read it', () => {
  const filter = new CdpFilter();
  // JSON.parse keeps the last `params`; the rules judge that one, and Chromium gets no other.
  const twice =
    '{"id":7,"method":"Page.navigate","params":{"url":"https://a.test/"},"params":{"url":"file:///etc/passwd"}}';
  assert.match(answered(filter.fromClient(twice)).error?.message ?? '', /urlSchemeNotAllowed/);
  const extra = '{"id":8,"method":"Runtime.evaluate","params":{"expression":"1"},"sessionId":"AB12","x":"\\u0000"}';
  assert.deepEqual(forwarded(filter.fromClient(extra)), {
    id: 8,
    method: 'Runtime.evaluate',
    params: { expression: '1' },
    sessionId: 'AB12',
  });
});

test('hostile text: what goes on is the one reading the rules judged, written anew, the session last', () => {
  const filter = new CdpFilter();
  const forward = (text: string) => {
    const verdict = filter.fromClient(text);
    assert.equal(verdict.kind, 'forward', text);
    return (verdict as { text: string }).text;
  };
  // Repeated keys, at the top and inside params: one of each goes on, the one JSON.parse kept and the rules judged.
  assert.equal(
    forward('{"id":1,"id":2,"method":"Page.enable","method":"Runtime.enable","sessionId":"A","sessionId":"B"}'),
    '{"id":2,"method":"Runtime.enable","sessionId":"B"}',
  );
  assert.equal(
    forward('{"id":3,"method":"Runtime.evaluate","params":{"expression":"1","expression":"2"}}'),
    '{"id":3,"method":"Runtime.evaluate","params":{"expression":"2"}}',
  );
  assert.match(
    answered(
      filter.fromClient(
        '{"id":4,"method":"Target.createTarget","params":{"url":"https://a.test/","url":"file:///etc/passwd"}}',
      ),
    ).error?.message ?? '',
    /urlSchemeNotAllowed/,
  );
  // Escapes in a method, a key or a session id are read as JSON reads them, and written without them.
  assert.match(
    answered(filter.fromClient('{"id":5,"method":"Page.navig\\u0061te","params":{"url":"file:///etc/passwd"}}')).error
      ?.message ?? '',
    /urlSchemeNotAllowed/,
  );
  assert.equal(
    forward('{"id":6,"method":"Runtime.evaluate","session\\u0049d":"S\\u0031","params":{"expression":"1"}}'),
    '{"id":6,"method":"Runtime.evaluate","params":{"expression":"1"},"sessionId":"S1"}',
  );
  // Ids as JSON writes numbers: one integer, written plainly; past a safe integer, no command.
  assert.equal(forward('{"id":1e3,"method":"Page.enable"}'), '{"id":1000,"method":"Page.enable"}');
  assert.equal(forward('{"id":-0,"method":"Page.enable"}'), '{"id":0,"method":"Page.enable"}');
  assert.equal(
    forward('{"id":9007199254740991,"method":"Page.enable"}'),
    '{"id":9007199254740991,"method":"Page.enable"}',
  );
  for (const text of [
    '{"id":9007199254740992,"method":"Page.enable"}',
    '{"id":1e400,"method":"Page.enable"}',
    '{"id":123456789012345678901234567890,"method":"Page.enable"}',
    // Not an object.
    'null',
    '7',
    '"Page.enable"',
    'true',
    // Members the host does not take are dropped, but a message that is not one JSON value is no command.
    '{"id":7,"method":"Page.enable"}\u0000{"id":8,"method":"Page.navigate"}',
    '{"id":7,"method":"Page.enable"}\u0000',
    '\ufeff{"id":7,"method":"Page.enable"}',
    // A session id must be one Chromium could have given: no escapes it would read apart.
    '{"id":7,"method":"Page.enable","sessionId":"S\\"}',
    '{"id":7,"method":"Page.enable","sessionId":"S1\\",\\"x"}',
    '{"id":7,"method":"Page.enable","sessionId":""}',
  ])
    assert.equal(filter.fromClient(text).kind, 'violation', text);
  // Whatever the client's text held, what goes on is well-formed, and a prototype key is plain data.
  const broken = forward(`{"id":9,"method":"Runtime.evaluate","params":{"expression":"'\uFFFD\\ud800'"}}`);
  assert.equal(broken.isWellFormed(), true);
  assert.deepEqual(JSON.parse(broken).params, { expression: "'\uFFFD\ud800'" });
  const proto = forward(
    '{"id":10,"method":"Runtime.evaluate","params":{"__proto__":{"url":"file:///"},"expression":"1"}}',
  );
  assert.equal(
    proto,
    '{"id":10,"method":"Runtime.evaluate","params":{"__proto__":{"url":"file:///"},"expression":"1"}}',
  );
  assert.match(
    answered(filter.fromClient('{"id":11,"method":"Page.navigate","params":{"__proto__":{"url":"https://a.test/"}}}'))
      .error?.message ?? '',
    /urlSchemeNotAllowed/,
  );
});

test("a client's text goes on as it came only where it reads alike to JSON.parse and Chromium", () => {
  const filter = new CdpFilter();
  const forward = (text: string) => (filter.fromClient(text) as { text: string }).text;
  // Playwright writes as the host writes: its text goes on as it is.
  const playwright =
    '{"id":1,"method":"Runtime.evaluate","params":{"expression":"1 + \\"}\\"","returnByValue":true},"sessionId":"S1"}';
  assert.equal(forward(playwright), playwright);
  // Puppeteer puts the method first: written anew, as the host writes.
  assert.equal(
    forward('{"method":"Runtime.evaluate","params":{"expression":"1"},"id":2,"sessionId":"S1"}'),
    '{"id":2,"method":"Runtime.evaluate","params":{"expression":"1"},"sessionId":"S1"}',
  );
  // A rewritten command never goes on as the client wrote it.
  assert.equal(
    forward('{"id":3,"method":"Browser.setDownloadBehavior","params":{"behavior":"allow","downloadPath":"/tmp"}}'),
    '{"id":3,"method":"Browser.setDownloadBehavior","params":{"behavior":"deny"}}',
  );
  // A key twice deep in params: the one judged goes on, alone.
  assert.equal(
    forward(
      '{"id":4,"method":"Input.dispatchDragEvent","params":{"type":"drop","data":{"items":[],"files":["/etc/passwd"],"files":[]}}}',
    ),
    '{"id":4,"method":"Input.dispatchDragEvent","params":{"type":"drop","data":{"items":[],"files":[]}}}',
  );
});

test('a refused command is answered by the host under its id and session; a browser close ends the session', () => {
  const refused: string[] = [];
  const filter = new CdpFilter({ refused: (method) => refused.push(method) });
  const refusal = answered(
    filter.fromClient(
      JSON.stringify({ id: 2, sessionId: 'S1', method: 'Page.navigate', params: { url: 'file:///etc/hostname' } }),
    ),
  );
  assert.equal(refusal.id, 2);
  assert.equal(refusal.sessionId, 'S1');
  assert.deepEqual(refused, ['Page.navigate']);
  const close = filter.fromClient(JSON.stringify({ id: 9, method: 'Browser.close' }));
  assert.deepEqual(close, { kind: 'closeBrowser', text: '{"id":9,"result":{}}' });
  // On a session attached to the browser target it is the same close, answered on that session.
  assert.deepEqual(filter.fromClient(JSON.stringify({ id: 10, sessionId: 'S', method: 'Browser.close' })), {
    kind: 'closeBrowser',
    text: '{"id":10,"result":{},"sessionId":"S"}',
  });
});

test("the extension's targets, and the sessions Chromium attaches to them, are never shown", () => {
  const filter = new CdpFilter({ hiddenTarget: (id) => id === 'KNOWN' });
  const worker = { targetId: 'W1', type: 'service_worker', url: 'chrome-extension://abc/worker.js', attached: false };
  const page = { targetId: 'P1', type: 'page', url: 'about:blank', attached: true };
  const created = (info: object) => JSON.stringify({ method: 'Target.targetCreated', params: { targetInfo: info } });
  assert.equal(filter.fromBrowser(created(worker)).toClient, undefined);
  assert.equal(filter.fromBrowser(created(page)).toClient, created(page));
  // getTargets: the page only.
  forwarded(filter.fromClient('{"id":3,"method":"Target.getTargets"}'));
  const listed = filter.fromBrowser(JSON.stringify({ id: 3, result: { targetInfos: [worker, page] } }));
  assert.deepEqual(JSON.parse(listed.toClient ?? ''), { id: 3, result: { targetInfos: [page] } });
  // Naming it is answered as Chromium answers an unknown target, with nothing sent to Chromium.
  for (const targetId of ['W1', 'KNOWN']) {
    const refusal = answered(
      filter.fromClient(
        JSON.stringify({ id: 4, method: 'Target.attachToTarget', params: { targetId, flatten: true } }),
      ),
    );
    assert.equal(refusal.error?.message, 'No target with given id found');
  }
  // Auto-attached by Chromium: the client never hears of it; the host lets the worker run and detaches.
  const attached = filter.fromBrowser(
    JSON.stringify({
      method: 'Target.attachedToTarget',
      params: { sessionId: 'HID', targetInfo: worker, waitingForDebugger: true },
    }),
  );
  assert.equal(attached.toClient, undefined);
  assert.deepEqual(
    attached.toBrowser.map((t) => JSON.parse(t)),
    [
      { id: -1, method: 'Runtime.runIfWaitingForDebugger', sessionId: 'HID' },
      { id: -2, method: 'Target.detachFromTarget', params: { sessionId: 'HID' } },
    ],
  );
  assert.deepEqual(filter.fromBrowser('{"id":-2,"result":{}}'), { toClient: undefined, toBrowser: [] });
  assert.equal(
    filter.fromBrowser('{"method":"Runtime.consoleAPICalled","params":{},"sessionId":"HID"}').toClient,
    undefined,
  );
  const inHidden = answered(filter.fromClient('{"id":5,"method":"Runtime.evaluate","params":{},"sessionId":"HID"}'));
  assert.equal(inHidden.error?.message, 'Session with given id not found.');
});

test("contexts, scripts and call frames may be named only once shown; the extension's never are", () => {
  const filter = new CdpFilter();
  const evaluate = (contextId: number) =>
    filter.fromClient(
      JSON.stringify({
        id: 1,
        method: 'Runtime.evaluate',
        params: { expression: 'chrome', contextId },
        sessionId: 'P',
      }),
    );
  // A guessed id is refused before Chromium sees it.
  assert.equal(answered(evaluate(2)).error?.message, 'Cannot find context with specified id');
  const context = (id: number, origin: string) =>
    JSON.stringify({
      method: 'Runtime.executionContextCreated',
      params: { context: { id, origin, name: '', uniqueId: `u${id}` } },
      sessionId: 'P',
    });
  assert.ok(filter.fromBrowser(context(1, 'http://127.0.0.1:8000')).toClient);
  assert.equal(filter.fromBrowser(context(2, 'chrome-extension://abc')).toClient, undefined);
  forwarded(evaluate(1));
  assert.equal(answered(evaluate(2)).error?.message, 'Cannot find context with specified id');
  // The extension's scripts are not listed, and no script not listed can be read.
  const parsed = (scriptId: string, url: string, executionContextId: number) =>
    JSON.stringify({ method: 'Debugger.scriptParsed', params: { scriptId, url, executionContextId }, sessionId: 'P' });
  assert.equal(filter.fromBrowser(parsed('10', 'chrome-extension://abc/recorder.js', 1)).toClient, undefined);
  assert.equal(filter.fromBrowser(parsed('11', '', 2)).toClient, undefined);
  assert.ok(filter.fromBrowser(parsed('12', 'http://127.0.0.1:8000/app.js', 1)).toClient);
  const source = (scriptId: string) =>
    filter.fromClient(
      JSON.stringify({ id: 2, method: 'Debugger.getScriptSource', params: { scriptId }, sessionId: 'P' }),
    );
  assert.equal(answered(source('10')).error?.message, 'No script for id');
  forwarded(source('12'));
  const breakpoint = filter.fromClient(
    JSON.stringify({
      id: 3,
      method: 'Debugger.setBreakpoint',
      params: { location: { scriptId: '11', lineNumber: 0 } },
      sessionId: 'P',
    }),
  );
  assert.equal(answered(breakpoint).error?.message, 'No script for id');
  // A pause in the extension's code is resumed by the host; one in the page hides the extension's frames.
  const paused = (frames: object[]) =>
    JSON.stringify({ method: 'Debugger.paused', params: { callFrames: frames, reason: 'other' }, sessionId: 'P' });
  const hiddenFrame = {
    callFrameId: 'f-hidden',
    url: 'chrome-extension://abc/recorder.js',
    location: { scriptId: '10' },
  };
  const pageFrame = { callFrameId: 'f-page', url: 'http://127.0.0.1:8000/app.js', location: { scriptId: '12' } };
  const inHidden = filter.fromBrowser(paused([hiddenFrame, pageFrame]));
  assert.equal(inHidden.toClient, undefined);
  assert.deepEqual(JSON.parse(inHidden.toBrowser[0] ?? ''), { id: -1, method: 'Debugger.resume', sessionId: 'P' });
  const inPage = filter.fromBrowser(paused([pageFrame, hiddenFrame]));
  assert.deepEqual(JSON.parse(inPage.toClient ?? '').params.callFrames, [pageFrame]);
  const onFrame = (callFrameId: string) =>
    filter.fromClient(
      JSON.stringify({
        id: 4,
        method: 'Debugger.evaluateOnCallFrame',
        params: { callFrameId, expression: '1' },
        sessionId: 'P',
      }),
    );
  forwarded(onFrame('f-page'));
  assert.equal(answered(onFrame('f-hidden')).error?.message, 'Invalid call frame id');
});

test("a client's code never runs in the recorder's world: breakpoints kept off its scripts, its objects withheld", () => {
  const byUrl = (params: Record<string, unknown>) =>
    ruleFor({ method: 'Debugger.setBreakpointByUrl', params: { lineNumber: 3, condition: 'x()', ...params } });
  for (const url of ['chrome-extension://abc/recorder.js', 'CHROME-EXTENSION://abc/recorder.js'])
    assert.equal(byUrl({ url }).kind, 'refuse', url);
  assert.equal(byUrl({ url: 'https://a.test/app.js' }).kind, 'pass');
  // The recorder's script text is in any heap snapshot, and so its hash.
  assert.equal(byUrl({ scriptHash: 'ab'.repeat(32) }).kind, 'refuse');
  // A pattern that would not compile alone could break out of the guard around it.
  for (const urlRegex of ['x)|(.*', '(', '[']) assert.equal(byUrl({ urlRegex }).kind, 'refuse', urlRegex);
  for (const [urlRegex, matches] of [
    ['app\\.js', 'https://a.test/app.js'],
    ['^https://a\\.test/', 'https://a.test/app.js'],
    ['.*', 'https://a.test/app.js'],
    ['recorder\\.js$', 'https://a.test/recorder.js'],
  ] as const) {
    const rule = byUrl({ urlRegex });
    assert.equal(rule.kind, 'rewrite', urlRegex);
    const guarded = new RegExp(String((rule as { params: Record<string, unknown> }).params.urlRegex));
    assert.ok(guarded.test(matches), `${urlRegex} still matches ${matches}`);
    assert.ok(
      !guarded.test('chrome-extension://abcdefghijklmnop/recorder.js'),
      `${urlRegex} matches no extension script`,
    );
    assert.equal((rule as { params: Record<string, unknown> }).params.condition, 'x()', 'the rest is as sent');
  }
  assert.equal(
    ruleFor({ method: 'Runtime.addBinding', params: { name: 'b', executionContextName: 'wap-recorder' } }).kind,
    'refuse',
  );
  assert.equal(ruleFor({ method: 'Runtime.addBinding', params: { name: 'b' } }).kind, 'pass');
  assert.equal(
    ruleFor({ method: 'HeapProfiler.addInspectedHeapObject', params: { heapObjectId: '7' } }).kind,
    'refuse',
  );

  const filter = new CdpFilter();
  const context = (id: number, origin: string) =>
    JSON.stringify({
      method: 'Runtime.executionContextCreated',
      params: { context: { id, origin, name: '', uniqueId: `u${id}` } },
      sessionId: 'P',
    });
  filter.fromBrowser(context(3, 'http://127.0.0.1:8000'));
  filter.fromBrowser(context(5, 'chrome-extension://abc'));
  // A heap snapshot's object, handed over in the recorder's world: withheld, and let go of by the host.
  const heapObject = (id: number) =>
    forwarded(
      filter.fromClient(
        JSON.stringify({
          id,
          method: 'HeapProfiler.getObjectByHeapObjectId',
          params: { objectId: '42' },
          sessionId: 'P',
        }),
      ),
    );
  heapObject(1);
  const inRecorder = filter.fromBrowser(
    JSON.stringify({ id: 1, result: { result: { type: 'function', objectId: '-77.5.9' } }, sessionId: 'P' }),
  );
  assert.deepEqual(JSON.parse(inRecorder.toClient ?? ''), {
    id: 1,
    error: { code: -32000, message: 'Object is not available' },
    sessionId: 'P',
  });
  assert.deepEqual(JSON.parse(inRecorder.toBrowser[0] ?? ''), {
    id: -1,
    method: 'Runtime.releaseObject',
    params: { objectId: '-77.5.9' },
    sessionId: 'P',
  });
  heapObject(2);
  const inPage = JSON.stringify({ id: 2, result: { result: { type: 'object', objectId: '-77.3.1' } }, sessionId: 'P' });
  assert.equal(filter.fromBrowser(inPage).toClient, inPage);
  // An object id naming the recorder's context, however the client came by it, is answered as unknown.
  const call = (objectId: string) =>
    filter.fromClient(
      JSON.stringify({
        id: 3,
        method: 'Runtime.callFunctionOn',
        params: { functionDeclaration: 'function () {}', objectId: '-77.3.1', arguments: [{ objectId }] },
        sessionId: 'P',
      }),
    );
  assert.equal(answered(call('-77.5.9')).error?.message, 'Could not find object with given id');
  forwarded(call('-77.3.2'));
  // A return value changes only in a pause the client was shown (not in one the host is about to resume).
  const setReturn = () =>
    filter.fromClient(
      JSON.stringify({ id: 4, method: 'Debugger.setReturnValue', params: { newValue: { value: 1 } }, sessionId: 'P' }),
    );
  assert.equal(answered(setReturn()).error?.message, 'Could not set return value');
  filter.fromBrowser(
    JSON.stringify({
      method: 'Debugger.scriptParsed',
      params: { scriptId: '12', url: 'http://a/app.js', executionContextId: 3 },
      sessionId: 'P',
    }),
  );
  const pageFrame = { callFrameId: 'f-page', url: 'http://a/app.js', location: { scriptId: '12' } };
  filter.fromBrowser(
    JSON.stringify({ method: 'Debugger.paused', params: { callFrames: [pageFrame], reason: 'other' }, sessionId: 'P' }),
  );
  forwarded(setReturn());
  filter.fromBrowser(JSON.stringify({ method: 'Debugger.resumed', params: {}, sessionId: 'P' }));
  assert.equal(answered(setReturn()).error?.message, 'Could not set return value');
});

test("the host's Captcha domain is the host's to answer, naming the page of the session it came on", () => {
  const filter = new CdpFilter();
  filter.fromBrowser(
    JSON.stringify({
      method: 'Target.attachedToTarget',
      params: { sessionId: 'PAGE1', targetInfo: { targetId: 'T1', type: 'page', url: 'https://a.test/' } },
    }),
  );
  const verdict = filter.fromClient('{"id":7,"method":"Captcha.solve","params":{},"sessionId":"PAGE1"}');
  assert.equal(verdict.kind, 'host');
  assert.equal(verdict.kind === 'host' && verdict.targetId, 'T1');
  // On the browser's own session it names no page; Chromium never sees either.
  const browserLevel = filter.fromClient('{"id":8,"method":"Captcha.enable"}');
  assert.deepEqual(browserLevel.kind === 'host' && browserLevel.targetId, undefined);
  filter.fromBrowser('{"method":"Target.detachedFromTarget","params":{"sessionId":"PAGE1"}}');
  const after = filter.fromClient('{"id":9,"method":"Captcha.solve","sessionId":"PAGE1"}');
  assert.equal(after.kind === 'host' && after.targetId, undefined);
});

test('a Captcha command naming a target the client was never shown is answered as Chromium answers an unknown one', () => {
  const filter = new CdpFilter({ hiddenTarget: (id) => id === 'EXT' });
  const verdict = filter.fromClient('{"id":3,"method":"Captcha.solve","params":{"targetId":"EXT"}}');
  assert.equal(verdict.kind, 'answer');
  assert.equal(answered(verdict).error?.message, 'No target with given id found');
});
