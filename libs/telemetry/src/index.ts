import { type Context, context, propagation } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';

let sdk: NodeSDK | undefined;

const DROP_SPANS: SpanProcessor = {
  onStart: () => undefined,
  onEnd: () => undefined,
  forceFlush: async () => undefined,
  shutdown: async () => undefined,
};

export interface TelemetrySettings {
  serviceName: string;
  /** OTLP/HTTP endpoint; without one spans are still made (logs carry their ids) but not exported. */
  otlpEndpoint?: string;
}

/**
 * Starts the OpenTelemetry SDK with the http, express, grpc, pg and undici
 * instrumentations. Must run before those modules are first required, which is
 * why services load it through `@wap/telemetry/register` as their first import.
 */
export function startTelemetry(settings: TelemetrySettings): void {
  if (sdk) return;
  // Without an exporter, spans are still made (so ids are real and logs carry
  // them) and then dropped: an empty processor list would leave no provider at all.
  const spanProcessors: SpanProcessor[] = settings.otlpEndpoint
    ? [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${settings.otlpEndpoint.replace(/\/$/, '')}/v1/traces` }))]
    : [DROP_SPANS];
  sdk = new NodeSDK({
    serviceName: settings.serviceName,
    spanProcessors,
    // Metrics and logs go through their own pipelines (pino); keep the SDK to traces.
    metricReaders: [],
    instrumentations: [
      new HttpInstrumentation({
        // Probes are not worth a trace each.
        ignoreIncomingRequestHook: (req) => req.url === '/healthz',
      }),
      // One span per route handler is enough; a span per middleware layer costs more than the layer.
      new ExpressInstrumentation({ ignoreLayersType: ['middleware' as never, 'router' as never] }),
      new GrpcInstrumentation({ ignoreGrpcMethods: ['Watch'] }),
      new PgInstrumentation({ requireParentSpan: true }),
      new UndiciInstrumentation(),
    ],
  });
  sdk.start();
}

export async function stopTelemetry(): Promise<void> {
  const running = sdk;
  sdk = undefined;
  await running?.shutdown().catch(() => undefined);
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
