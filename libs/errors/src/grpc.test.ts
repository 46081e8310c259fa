import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { codeForGrpcStatus, ERROR_CODES, ERRORS, grpcStatusFor } from './index.js';

describe('grpc mapping', () => {
  it('gives every code its catalogue status', () => {
    for (const code of ERROR_CODES) assert.equal(grpcStatusFor(code), ERRORS[code].grpc);
  });

  it('maps statuses without a code to the closest code', () => {
    assert.equal(codeForGrpcStatus(3), 'bad_request');
    assert.equal(codeForGrpcStatus(4), 'deadline_exceeded');
    assert.equal(codeForGrpcStatus(5), 'not_found');
    assert.equal(codeForGrpcStatus(12), 'capability_unavailable');
    assert.equal(codeForGrpcStatus(14), 'no_capacity');
  });

  it('treats in-mesh auth and unknown statuses as internal', () => {
    for (const status of [0, 1, 2, 7, 8, 13, 15, 16, 99, -1]) assert.equal(codeForGrpcStatus(status), 'internal');
  });

  it('round-trips the codes chosen as fallbacks', () => {
    for (const code of ['bad_request', 'deadline_exceeded', 'not_found', 'no_capacity'] as const) {
      assert.equal(codeForGrpcStatus(grpcStatusFor(code)), code);
    }
  });
});
