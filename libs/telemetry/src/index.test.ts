import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { extractContext, injectContext, startTelemetry, stopTelemetry } from './index.js';

test('the SDK makes spans, and context survives a carrier round trip', async () => {
  startTelemetry({ serviceName: 'telemetry-test' });
  try {
    const tracer = trace.getTracer('test');
    await tracer.startActiveSpan('outer', async (span) => {
      const { traceId, spanId } = span.spanContext();
      assert.match(traceId, /^[0-9a-f]{32}$/);
      assert.notEqual(traceId, '0'.repeat(32), 'a real tracer provider is installed');

      const headers = new Map<string, string>();
      injectContext((k, v) => headers.set(k, v));
      assert.equal(headers.get('traceparent'), `00-${traceId}-${spanId}-01`);

      const received = extractContext((k) => headers.get(k));
      const remote = trace.getSpanContext(received);
      assert.equal(remote?.traceId, traceId);
      assert.equal(remote?.spanId, spanId);
      assert.equal(remote?.isRemote, true);
      span.end();
    });
  } finally {
    await stopTelemetry();
  }
});

test('without an active span nothing is injected', () => {
  const headers = new Map<string, string>();
  injectContext((k, v) => headers.set(k, v), ROOT_CONTEXT);
  assert.equal(headers.size, 0);
  const none = extractContext(() => undefined);
  assert.equal(trace.getSpanContext(none), undefined);
});
