import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { extractContext, inIncomingTrace, injectContext, startTelemetry, stopTelemetry } from './index.js';

/** Starts a span, checks its ids and that its context survives a carrier round trip; answers its trace flags. */
async function roundTrip(): Promise<{ flags: string; recording: boolean; traceId: string }> {
  const tracer = trace.getTracer('test');
  return tracer.startActiveSpan('outer', async (span) => {
    const { traceId, spanId, traceFlags } = span.spanContext();
    assert.match(traceId, /^[0-9a-f]{32}$/);
    assert.notEqual(traceId, '0'.repeat(32), 'a real tracer provider is installed');

    const headers = new Map<string, string>();
    injectContext((k, v) => headers.set(k, v));
    const flags = traceFlags.toString(16).padStart(2, '0');
    assert.equal(headers.get('traceparent'), `00-${traceId}-${spanId}-${flags}`);

    const received = extractContext((k) => headers.get(k));
    const remote = trace.getSpanContext(received);
    assert.equal(remote?.traceId, traceId);
    assert.equal(remote?.spanId, spanId);
    assert.equal(remote?.isRemote, true);
    // A child made on the far side stays in the same trace.
    const child = tracer.startSpan('child', {}, received);
    assert.equal(child.spanContext().traceId, traceId);
    child.end();
    const recording = span.isRecording();
    span.end();
    return { flags, recording, traceId };
  });
}

test('without an exporter spans are not recorded, yet carry real ids across a carrier', async () => {
  startTelemetry({ serviceName: 'telemetry-test' });
  try {
    const { flags, recording } = await roundTrip();
    assert.deepEqual({ flags, recording }, { flags: '00', recording: false });
  } finally {
    await stopTelemetry();
  }
});

test('with an exporter spans are recorded, sampled and exported over OTLP/HTTP', async () => {
  // A loopback stand-in for an OpenTelemetry collector: OTLP/HTTP JSON on /v1/traces.
  const bodies: string[] = [];
  const collector = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      if (req.url === '/v1/traces') bodies.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const { port } = collector.address() as AddressInfo;
  startTelemetry({ serviceName: 'telemetry-test', otlpEndpoint: `http://127.0.0.1:${port}` });
  try {
    const { flags, recording, traceId } = await roundTrip();
    assert.deepEqual({ flags, recording }, { flags: '01', recording: true });
    await stopTelemetry(); // flushes the batch
    const exported = bodies.join('\n');
    assert.ok(exported.includes(traceId), 'the span reached the collector');
    assert.ok(exported.includes('telemetry-test'), 'with its service name');
  } finally {
    await stopTelemetry();
    collector.close();
  }
});

test('without an active span nothing is injected', () => {
  const headers = new Map<string, string>();
  injectContext((k, v) => headers.set(k, v), ROOT_CONTEXT);
  assert.equal(headers.size, 0);
  const none = extractContext(() => undefined);
  assert.equal(trace.getSpanContext(none), undefined);
});

test('an incoming request runs in a span of the trace it brought, or of a new trace', async () => {
  startTelemetry({ serviceName: 'telemetry-test' });
  try {
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const carried = new Map([['traceparent', `00-${callerTrace}-${callerSpan}-01`]]);
    const inCaller = await inIncomingTrace(
      (k) => carried.get(k),
      'request',
      async () => {
        await new Promise((resolve) => setImmediate(resolve)); // still in it after an await
        const headers = new Map<string, string>();
        injectContext((k, v) => headers.set(k, v));
        return { span: trace.getSpan(context.active())?.spanContext(), sent: headers.get('traceparent') };
      },
    );
    assert.equal(inCaller.span?.traceId, callerTrace);
    assert.match(inCaller.span?.spanId ?? '', /^[0-9a-f]{16}$/);
    assert.notEqual(inCaller.span?.spanId, callerSpan, 'a span of its own');
    assert.equal(inCaller.sent, `00-${callerTrace}-${inCaller.span?.spanId}-00`, 'passed on to the next service');

    const fresh = inIncomingTrace(
      () => undefined,
      'request',
      () => trace.getSpan(context.active())?.spanContext(),
    );
    assert.match(fresh?.traceId ?? '', /^[0-9a-f]{32}$/);
    assert.notEqual(fresh?.traceId, '0'.repeat(32));
    assert.notEqual(fresh?.traceId, callerTrace);
  } finally {
    await stopTelemetry();
  }
});
