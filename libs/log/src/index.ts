import { context, trace } from '@opentelemetry/api';
import pino, { type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

/** Paths never written to a log, whatever a caller passes in. */
export const REDACT_PATHS = [
  'authorization',
  'password',
  'secret',
  'apiKey',
  'token',
  '*.authorization',
  '*.Authorization',
  '*.password',
  '*.secret',
  '*.apiKey',
  '*.token',
  'headers.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  'metadata.authorization',
];

export interface LoggerSettings {
  /** The service or tool the lines come from (`crawl`, `gateway`). */
  service: string;
  level?: string;
  /** Where lines go; defaults to stdout. Tests pass a stream to read them back. */
  destination?: pino.DestinationStream;
}

/**
 * A JSON logger whose every line carries `trace_id` and `span_id` of the active
 * OpenTelemetry span, so one request can be followed across services.
 */
export function createLogger(settings: LoggerSettings): Logger {
  const options: LoggerOptions = {
    level: settings.level ?? process.env.LOG_LEVEL ?? 'info',
    base: { service: settings.service },
    timestamp: pino.stdTimeFunctions.isoTime,
    messageKey: 'msg',
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    mixin: traceFields,
  };
  return settings.destination ? pino(options, settings.destination) : pino(options);
}

/** The active trace's ids in the names log pipelines expect. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  if (!traceId || traceId === '00000000000000000000000000000000') return {};
  return { trace_id: traceId, span_id: spanId };
}
