import { type Context, context, propagation, SpanKind, trace } from '@opentelemetry/api';
import type { Instrumentation } from '@opentelemetry/instrumentation';

/** What stops the running telemetry; set while it runs. */
let running: (() => Promise<void>) | undefined;
/** Whether spans are exported, and so the instrumentations make the spans of requests and calls. */
let instrumented = false;

export interface TelemetrySettings {
  serviceName: string;
  /** OTLP/HTTP endpoint; without one spans are still made (logs carry their ids) but not exported. */
  otlpEndpoint?: string;
}

// The OpenTelemetry packages are required where they are used, not imported at the top: the rpc and events
// libs import this module for `injectContext`, and a service without an exporter never loads the SDK, its
// exporters or the express and pg instrumentations (about 30 MB of resident memory a process; make bench's
// idle.bench). Each require stays synchronous: the instrumentations must patch before grpc-js and http load.

/**
 * The http and grpc instrumentations, loaded only when spans are exported: without an exporter they
 * made a span per request and per call that nothing read (about a tenth of the gateway's CPU a request,
 * decision 0029). Then `inIncomingTrace` makes the one span of an incoming request or call itself.
 * Probes and outbound fetches make no span.
 */
function transportInstrumentations(): Instrumentation[] {
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { GrpcInstrumentation } =
    require('@opentelemetry/instrumentation-grpc') as typeof import('@opentelemetry/instrumentation-grpc');
  return [
    new HttpInstrumentation({
      // Probes and Prometheus scrapes are not worth a trace each.
      ignoreIncomingRequestHook: (req) => req.url === '/healthz' || req.url === '/metrics',
      // Outbound HTTP goes to the web (pages, search providers, webhooks):
      // no span, and above all no traceparent header that would leak our
      // trace ids to third parties and mark every fetch as ours.
      ignoreOutgoingRequestHook: () => true,
    }),
    new GrpcInstrumentation({ ignoreGrpcMethods: ['Watch'] }),
    // No undici instrumentation: undici carries only outbound fetches to the
    // web, and it injects trace headers into every request it sees.
  ];
}

/**
 * Starts tracing: ids only, or, with an exporter, the http, grpc, express and pg
 * instrumentations, which must patch before those modules are first required; that is
 * why services load it through `@wap/telemetry/register` as their first import.
 */
export function startTelemetry(settings: TelemetrySettings): void {
  if (running) return;
  instrumented = settings.otlpEndpoint !== undefined;
  running = settings.otlpEndpoint ? exporting(settings.serviceName, settings.otlpEndpoint) : idsOnly();
}

/**
 * Without an exporter nothing would read a span, so none is recorded and no
 * instrumentation runs: the sampler says no, yet the span `inIncomingTrace`
 * makes for a request or call still gets real ids (a non-recording span) that
 * logs carry and gRPC metadata and NATS headers pass on, so one trace id still
 * follows a request through the fleet. Recording spans only to drop them cost
 * the gateway about 0.2 ms of CPU a request (make bench).
 */
function idsOnly(): () => Promise<void> {
  const { AlwaysOffSampler, TracerProvider } =
    require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace');
  const { AsyncLocalStorageContextManager } =
    require('@opentelemetry/context-async-hooks') as typeof import('@opentelemetry/context-async-hooks');
  const { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } =
    require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  const provider = new TracerProvider({ sampler: new AlwaysOffSampler() });
  trace.setGlobalTracerProvider(provider);
  return async () => {
    await provider.shutdown();
    contextManager.disable();
  };
}

/** Spans exported over OTLP/HTTP by the SDK, with its default sampler or OTEL_TRACES_SAMPLER. */
function exporting(serviceName: string, endpoint: string): () => Promise<void> {
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { BatchSpanProcessor } = require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace');
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { ExpressInstrumentation } =
    require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { PgInstrumentation } =
    require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const sdk = new NodeSDK({
    serviceName,
    spanProcessors: [
      new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` }) }),
    ],
    // Metrics and logs go through their own pipelines (pino); keep the SDK to traces.
    metricReaders: [],
    instrumentations: [
      ...transportInstrumentations(),
      // Spans that only describe work inside a service are worth making only
      // when something reads them; each costs CPU on every request (make bench).
      // One span per route handler is enough; a span per middleware layer costs more than the layer.
      new ExpressInstrumentation({ ignoreLayersType: ['middleware' as never, 'router' as never] }),
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  return () => sdk.shutdown().catch(() => undefined);
}

export async function stopTelemetry(): Promise<void> {
  const stop = running;
  running = undefined;
  instrumented = false;
  await stop?.();
  // Let a later start install its own provider, propagator and context manager.
  trace.disable();
  propagation.disable();
  context.disable();
}

/** Writes the active trace context into a carrier (gRPC metadata, NATS headers). */
export function injectContext(set: (key: string, value: string) => void, ctx: Context = context.active()): void {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  for (const [key, value] of Object.entries(carrier)) set(key, value);
}

/** Reads a trace context written by `injectContext`. */
export function extractContext(get: (key: string) => string | undefined): Context {
  const carrier: Record<string, string> = {};
  for (const key of propagation.fields()) {
    const value = get(key);
    if (value !== undefined) carrier[key] = value;
  }
  return propagation.extract(context.active(), carrier);
}

/**
 * Runs `fn`, the handling of an incoming request or call, in a span of its own whose
 * parent is the trace context its carrier brought (HTTP headers, gRPC metadata), or
 * in a new trace when it brought none. The span is not recorded: it only gives the
 * request's log lines and outgoing calls their ids. When spans are exported the
 * instrumentations make the request's span, and `fn` runs in it (or, for a request
 * they skip, such as a probe, in the caller's trace).
 */
export function inIncomingTrace<T>(get: (key: string) => string | undefined, name: string, fn: () => T): T {
  if (trace.getSpan(context.active())) return fn();
  const parent = extractContext(get);
  if (instrumented) return context.with(parent, fn);
  const span = trace.getTracer('@wap/telemetry').startSpan(name, { kind: SpanKind.SERVER }, parent);
  return context.with(trace.setSpan(parent, span), fn);
}
