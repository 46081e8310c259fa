import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commandText, headId, headMethod, tailSession, tailSessionStart } from './cdp-message.js';

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
