import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, ERROR_CODES, ERRORS, errorFromBody, isApiError, toErrorBody } from './index.js';

describe('ApiError', () => {
  it('takes its message and status from the catalogue', () => {
    const cause = new Error('socket hang up');
    const err = new ApiError('quota_exceeded', { needed: 5, available: 2 }, { cause });
    assert.equal(err.code, 'quota_exceeded');
    assert.equal(err.status, 402);
    assert.equal(err.message, ERRORS.quota_exceeded.message);
    assert.deepEqual(err.details, { needed: 5, available: 2 });
    assert.equal(err.cause, cause);
    assert.equal(err.name, 'ApiError');
    assert.ok(err instanceof Error);
  });

  it('refuses a code outside the closed set', () => {
    assert.throws(() => new ApiError('teapot' as never), TypeError);
  });

  it('is recognised by isApiError, plain errors are not', () => {
    assert.ok(isApiError(new ApiError('not_found')));
    assert.ok(!isApiError(new Error('x')));
    assert.ok(!isApiError({ code: 'not_found', message: 'x' }));
    assert.ok(!isApiError(null));
  });
});

describe('toErrorBody', () => {
  it('answers an ApiError with its own code, fixed message and details', () => {
    const body = toErrorBody(new ApiError('bad_request', { issues: [{ path: 'url', message: 'required' }] }), 'r1');
    assert.deepEqual(body, {
      code: 'bad_request',
      message: ERRORS.bad_request.message,
      details: { issues: [{ path: 'url', message: 'required' }] },
    });
  });

  it('omits details when there are none', () => {
    assert.deepEqual(Object.keys(toErrorBody(new ApiError('unauthorized'))), ['code', 'message']);
  });

  it("never leaks a foreign error's message or stack", () => {
    const secret = 'postgres://app:hunter2@db/prod';
    for (const thrown of [new Error(secret), new TypeError(secret), secret, { message: secret }, undefined]) {
      const body = toErrorBody(thrown, 'req_123');
      assert.deepEqual(body, { code: 'internal', message: ERRORS.internal.message, details: { requestId: 'req_123' } });
      const text = JSON.stringify(body);
      assert.ok(!text.includes('hunter2') && !text.includes('at '), text);
    }
  });

  it('does not leak the cause of an ApiError either', () => {
    const err = new ApiError('page_lost', { reason: 'crashed' }, { cause: new Error('hunter2') });
    assert.ok(!JSON.stringify(toErrorBody(err)).includes('hunter2'));
  });

  it('adds the request id to a bare internal ApiError', () => {
    assert.deepEqual(toErrorBody(new ApiError('internal'), 'r9').details, { requestId: 'r9' });
  });
});

describe('errorFromBody', () => {
  it('round-trips every code', () => {
    for (const code of ERROR_CODES) {
      const sent = toErrorBody(new ApiError(code, { probe: code }));
      const received = errorFromBody(JSON.parse(JSON.stringify(sent)));
      assert.equal(received.code, code);
      assert.equal(received.status, ERRORS[code].status);
      assert.deepEqual(received.details, { probe: code });
      assert.deepEqual(toErrorBody(received), sent);
    }
  });

  it('turns anything that is not an Error object into internal', () => {
    for (const body of [null, 'oops', [], {}, { code: 'teapot', message: 'x' }, { code: 'not_found' }, { code: 404 }]) {
      const err = errorFromBody(body);
      assert.equal(err.code, 'internal', JSON.stringify(body));
      assert.equal(err.details, undefined);
    }
  });

  it('keeps the fixed message, not the one received', () => {
    assert.equal(errorFromBody({ code: 'not_found', message: 'something else' }).message, ERRORS.not_found.message);
  });

  it('drops details that are not an object', () => {
    assert.equal(errorFromBody({ code: 'not_found', message: 'm', details: [1] }).details, undefined);
  });
});
