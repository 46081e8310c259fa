import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commandText, headId, headMethod, readsAsParsed, tailSession, tailSessionStart } from './cdp-message.js';

// What the relay read with regular expressions until docs/decisions/0036: the scans must read exactly the same.
const TAIL_SESSION = /,"sessionId":"([A-Za-z0-9]{1,64})"\}$/;
const HEAD_ID = /^\{"id":(-?\d{1,16}),/;
const HEAD_METHOD = /^\{"method":"([A-Za-z0-9.]+)"/;

/**
 * Every string made of one choice from each part, in order, over a seeded
 * sample: every run tries the same strings, and a failure names the one.
 */
function strings(seed: number, count: number, parts: string[][]): string[] {
  // mulberry32
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(parts.map((choices) => choices[next() % choices.length]).join(''));
  return out;
}

const ID = 'A'.repeat(32);

test("a message's session is read from its tail as the regular expression read it, whatever surrounds it", () => {
  const parts = [
    ['{"id":1,"result":{}', '{"method":"Page.loadEventFired","params":{"a":"\\""}', '', '"', ','],
    [',"sessionId":"', '","sessionId":"', ',"sessionId":', ',"sessionid":"', ',"sessionId":"x', '"sessionId":"', ''],
    [ID, 'a1', 'Z'.repeat(64), 'Z'.repeat(65), '', '\\u0041', 'é', '\u{1F600}', '\uFFFD', 'A-B', 'A B'],
    ['"}', '"', '}', '"} ', '"}}', '\\"}', ''],
  ];
  for (const text of strings(7, 20_000, parts)) {
    const expected = TAIL_SESSION.exec(text);
    assert.equal(tailSession(text), expected?.[1], text);
    assert.equal(tailSessionStart(text), expected ? expected.index : -1, text);
  }
  assert.equal(tailSession(`{"id":1,"result":{},"sessionId":"${ID}"}`), ID);
  assert.equal(tailSession(`{"id":1,"result":{},"sessionId":"${'Z'.repeat(64)}"}`), 'Z'.repeat(64));
  for (const text of [
    `{"id":1,"result":{},"sessionId":"${'Z'.repeat(65)}"}`,
    '{"id":1,"result":{},"sessionId":""}',
    // An escape is no session id the hub routes by: it reads none, and the message is the browser's own.
    '{"id":1,"result":{},"sessionId":"AB\\u0043"}',
    `{"id":1,"result":{},"sessionId":"${ID}"} `,
    `{"id":1,"result":{},"sessionId":"${ID}"}}`,
    `{"id":1,"result":{},"sessionId" :"${ID}"}`,
    `"sessionId":"${ID}"}`,
    '',
    '}',
  ])
    assert.equal(tailSession(text), undefined, text);
});

test("an answer's id and an event's name are read from the head as the regular expressions read them", () => {
  const parts = [
    ['{"id":', '{"method":"', '{"id" :', '{ "id":', '"id":', '{"method":'],
    ['', '-', '--', ' '],
    ['0', '7', '9007199254740991', '12345678901234567', '', 'Target.attachedToTarget', 'Page.', '\\u0041', 'a b'],
    [',', '"', '",', '', ' ,', '.', 'x,'],
    ['"result":{}}', '', '"params":{}}'],
  ];
  for (const text of strings(11, 20_000, parts)) {
    const id = HEAD_ID.exec(text);
    assert.equal(headId(text), id ? Number(id[1]) : undefined, text);
    assert.equal(headMethod(text), HEAD_METHOD.exec(text)?.[1], text);
  }
  assert.equal(headId('{"id":12,"result":{}}'), 12);
  assert.equal(headId('{"id":-3,"result":{}}'), -3);
  assert.equal(headId('{"id":9007199254740991,"result":{}}'), 9_007_199_254_740_991);
  // Seventeen digits is no id anyone here wrote: the reader parses such a message whole.
  assert.equal(headId('{"id":12345678901234567,"result":{}}'), undefined);
  assert.equal(headId('{"id":1e3,"result":{}}'), undefined);
  assert.equal(headId('{ "id":1,"result":{}}'), undefined);
  assert.equal(headMethod('{"method":"Target.attachedToTarget","params":{}}'), 'Target.attachedToTarget');
  assert.equal(headMethod('{"method":"Target.attached\\u0054oTarget","params":{}}'), undefined);
  assert.equal(headMethod('{"method":"","params":{}}'), undefined);
});

test('a command is written as JSON.stringify writes it, session last, and reads back as what was parsed', () => {
  const commands = [
    { id: 0, method: 'Browser.getVersion' },
    { id: 7, method: 'Runtime.evaluate', params: { expression: '1' }, sessionId: ID },
    { id: 9_007_199_254_740_991, method: 'Page.navigate', params: { url: 'https://a.test/"\\\u2028' } },
    // What JSON.parse makes of hostile text: an own __proto__ key, a lone surrogate, the replacement character.
    { id: 3, method: 'Runtime.evaluate', params: JSON.parse('{"__proto__":{"x":1},"expression":"\\ud800\uFFFD"}') },
    { id: 4, method: 'Target.setAutoAttach', params: {}, sessionId: 'S1' },
  ];
  for (const { id, method, params, sessionId } of commands) {
    const text = commandText(id, method, params, sessionId);
    assert.equal(text, JSON.stringify({ id, method, params, sessionId }));
    assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify({ id, method, params, sessionId })));
    if (sessionId !== undefined) assert.equal(tailSession(text), sessionId);
    assert.equal(text.isWellFormed(), true);
  }
  assert.equal(commandText(-0, 'Page.enable', undefined, undefined), '{"id":0,"method":"Page.enable"}');
});

/** The command JSON.parse reads from `text`, as the filter takes it. */
function parsed(text: string): { id: number; method: string; params?: object; sessionId?: string } {
  const { id, method, params, sessionId } = JSON.parse(text) as Record<string, unknown>;
  return {
    id: id as number,
    method: method as string,
    ...(params !== undefined && { params: params as object }),
    ...(sessionId !== undefined && { sessionId: sessionId as string }),
  };
}

test("a client's text goes on as it is only where no reader could read it as another command", () => {
  const through = [
    '{"id":1,"method":"Page.enable"}',
    `{"id":2,"method":"Runtime.evaluate","params":{"expression":"1"},"sessionId":"${ID}"}`,
    // Playwright's own writing: JSON.stringify of id, method, params, sessionId.
    `{"id":3,"method":"Runtime.callFunctionOn","params":{"functionDeclaration":"(a) => a + \\"}\\\\\\"\\"","arguments":[{"value":{"a":[1,2,{"b":null}],"c":"\\u0000"}}],"returnByValue":true},"sessionId":"S1"}`,
    '{"id":4,"method":"Page.navigate","params":{ "url" : "https://a.test/é\u{1F600}" , "referrer":"" }}',
    '{"id":5,"method":"Target.setAutoAttach","params":{}}',
    // A session named inside params is no session of the message's: the hub adds the connection's own at the end.
    '{"id":7,"method":"Target.detachFromTarget","params":{"sessionId":"B"}}',
    '{"id":6,"method":"X.y","params":{"a":{"a":{"a":{"a":1}}},"b":[[],[{}],{"a":1,"b":2}],"c":1e300,"d":-0.5e-3}}',
  ];
  for (const text of through) {
    assert.equal(readsAsParsed(text, parsed(text)), true, text);
    // What goes on means what commandText would have said.
    const { id, method, params, sessionId } = parsed(text);
    assert.deepEqual(JSON.parse(text), JSON.parse(commandText(id, method, params, sessionId)));
  }
  const rewritten = [
    // A key twice, at any depth, or spelt with an escape: two readers could keep different ones.
    '{"id":1,"method":"Page.navigate","params":{"url":"https://a.test/","url":"file:///etc/passwd"}}',
    '{"id":1,"method":"X.y","params":{"a":{"b":1,"b":2}}}',
    '{"id":1,"method":"X.y","params":{"a":[{"b":[{"c":1,"d":2,"c":3}]}]}}',
    `{"id":1,"method":"X.y","params":{${Array.from({ length: 40 }, (_, i) => `"k${i % 39}":${i}`).join(',')}}}`,
    '{"id":1,"method":"Page.navigate","params":{"u\\u0072l":"https://a.test/","url":"file:///x"}}',
    '{"id":1,"method":"Page.navigate","params":{"\\u0075rl":"file:///x"}}',
    // Members past the params, params twice, or members out of the host's order.
    '{"id":1,"method":"X.y","params":{},"params":{"a":1}}',
    '{"id":1,"method":"X.y","params":{"a":1},"x":2}',
    `{"id":1,"method":"X.y","params":{"a":1},"x":2,"sessionId":"${ID}"}`,
    `{"id":1,"method":"X.y","sessionId":"${ID}","params":{"a":1}}`,
    `{"method":"X.y","id":1,"params":{"a":1},"sessionId":"${ID}"}`,
    `{"id":1,"method":"X.y","sessionId":"A","sessionId":"${ID}"}`,
    // Not written as the host writes: spaces between members, an id or a method spelt otherwise.
    '{ "id":1,"method":"X.y"}',
    '{"id":1,"method":"X.y" }',
    '{"id":1e0,"method":"X.y"}',
    '{"id":-0,"method":"X.y"}',
    '{"id":1,"method":"X.\\u0079"}',
    `{"id":1,"method":"X.y","sessionId":"${ID.slice(0, 31)}\\u0041"}`,
    // Nested past what is read through.
    `{"id":1,"method":"X.y","params":{"a":${'['.repeat(80)}${']'.repeat(80)}}}`,
  ];
  for (const text of rewritten) assert.equal(readsAsParsed(text, parsed(text)), false, text);
});

test('read through or written anew, the command JSON.parse read is the one that goes on', () => {
  const parts = [
    ['{"id":1,"method":"X.y"', '{"id":2,"method":"Page.navigate"', '{"method":"X.y","id":1'],
    ['', ',"params":'],
    ['{', '{ '],
    ['"a":1', '"url":"file:///"', '"a":{"a":1,"a":2}', '"a":[1,{"b":"\\""}]', '"\\u0061":1', '"a":"}"'],
    ['', ',"a":2', ',"b":3', ',"url":"https://a.test/"', ',"b":{}'],
    ['}', ' }'],
    ['', ',"x":1', ',"params":{"a":3}'],
    ['}', `,"sessionId":"${ID}"}`, ',"sessionId":"S1"}'],
  ];
  let through = 0;
  for (const text of strings(5, 5_000, parts)) {
    let command: ReturnType<typeof parsed>;
    try {
      command = parsed(text);
    } catch {
      continue;
    }
    if (typeof command.params !== 'object') continue;
    if (!readsAsParsed(text, command)) continue;
    through++;
    const { id, method, params, sessionId } = command;
    assert.deepEqual(JSON.parse(text), JSON.parse(commandText(id, method, params, sessionId)), text);
    assert.ok(!/"a":\{"a":1,"a":2\}|\\u0061/.test(text), `a repeated or escaped key went through: ${text}`);
  }
  assert.ok(through > 100, `${through} read through`);
});
