import { type Context, context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { AlwaysOffSampler, BatchSpanProcessor, NoopSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace';

let sdk: NodeSDK | undefined;

export interface TelemetrySettings {
  serviceName: string;
  /** OTLP/HTTP endpoint; without one spans are still made (logs carry their ids) but not exported. */
  otlpEndpoint?: string;
}

/**
 * Starts the OpenTelemetry SDK with the http and grpc instrumentations (plus
 * express and pg when spans are exported). Must run before those modules are first required, which is
 * why services load it through `@wap/telemetry/register` as their first import.
 */
export function startTelemetry(settings: TelemetrySettings): void {
  if (sdk) return;
  // Without an exporter nothing would read a span, so none is recorded: the
  // sampler says no, yet every span still gets real ids (a non-recording span)
  // that logs carry and gRPC metadata and NATS headers pass on, so one trace id
  // still follows a request through the fleet. Recording spans only to drop
  // them cost the gateway about 0.2 ms of CPU a request (make bench).
  // With an exporter, the sampler is the SDK's default, or OTEL_TRACES_SAMPLER.
  const spanProcessors: SpanProcessor[] = settings.otlpEndpoint
    ? [
        new BatchSpanProcessor({
          exporter: new OTLPTraceExporter({ url: `${settings.otlpEndpoint.replace(/\/$/, '')}/v1/traces` }),
        }),
      ]
    : [new NoopSpanProcessor()];
  sdk = new NodeSDK({
    serviceName: settings.serviceName,
    spanProcessors,
    ...(settings.otlpEndpoint ? {} : { sampler: new AlwaysOffSampler() }),
    // Metrics and logs go through their own pipelines (pino); keep the SDK to traces.
    metricReaders: [],
    instrumentations: [
      new HttpInstrumentation({
        // Probes and Prometheus scrapes are not worth a trace each.
        ignoreIncomingRequestHook: (req) => req.url === '/healthz' || req.url === '/metrics',
        // Outbound HTTP goes to the web (pages, search providers, webhooks):
        // no span, and above all no traceparent header that would leak our
        // trace ids to third parties and mark every fetch as ours.
        ignoreOutgoingRequestHook: () => true,
      }),
      new GrpcInstrumentation({ ignoreGrpcMethods: ['Watch'] }),
      // Spans that only describe work inside a service are worth making only
      // when something reads them; each costs CPU on every request (make bench).
      ...(settings.otlpEndpoint
        ? [
            // One span per route handler is enough; a span per middleware layer costs more than the layer.
            new ExpressInstrumentation({ ignoreLayersType: ['middleware' as never, 'router' as never] }),
            new PgInstrumentation({ requireParentSpan: true }),
          ]
        : []),
      // No undici instrumentation: undici carries only outbound fetches to the
      // web, and it injects trace headers into every request it sees.
    ],
  });
  sdk.start();
}

export async function stopTelemetry(): Promise<void> {
  const running = sdk;
  sdk = undefined;
  await running?.shutdown().catch(() => undefined);
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
