// The step profile a submit asks for: the profiles anyone may ask, a lab arm only where the
// deployment enrolled the workspace (AGENT_LAB_ARMS), anything else refused with its field named.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { ApiError } from '@wap/errors';
import { parseStepProfile } from './parse.js';

const ws = randomUUID();
const other = randomUUID();

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    return { code: err.code, details: err.details };
  }
  assert.fail('not refused');
};

test('a profile is anyone’s to ask; none asked is the model’s own', () => {
  assert.equal(parseStepProfile('', ws, {}), undefined);
  assert.equal(parseStepProfile('full', ws, {}), 'full');
  assert.equal(parseStepProfile('compact', ws, {}), 'compact');
});

test('a lab arm is only for a workspace enrolled in it, or for all with *', () => {
  assert.equal(parseStepProfile('compact-plan', ws, { 'compact-plan': [ws] }), 'compact-plan');
  assert.equal(parseStepProfile('compact-plan', ws, { 'compact-plan': ['*'] }), 'compact-plan');
  assert.deepEqual(
    refusal(() => parseStepProfile('compact-plan', ws, { 'compact-plan': [other] })),
    { code: 'lab_arm_forbidden', details: { arm: 'compact-plan' } },
  );
  assert.deepEqual(
    refusal(() => parseStepProfile('compact-plan', ws, {})),
    {
      code: 'lab_arm_forbidden',
      details: { arm: 'compact-plan' },
    },
  );
});

test('a name that is neither is bad_request naming stepProfile and what there is', () => {
  for (const name of ['turbo', 'constructor', '__proto__', 'FULL']) {
    const { code, details } = refusal(() => parseStepProfile(name, ws, { 'compact-plan': ['*'] }));
    assert.equal(code, 'bad_request');
    assert.deepEqual(details, { issues: [{ path: 'stepProfile', message: 'one of full, compact, compact-plan' }] });
  }
});
