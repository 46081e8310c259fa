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
  /**
   * Where lines go; defaults to stdout, written asynchronously (below). Tests pass a
   * stream to read them back.
   */
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
  return pino(options, settings.destination ?? stdout());
}

/**
 * Stdout written asynchronously: a line goes into a buffer and the buffer to the
 * file descriptor without blocking, so a busy process writes many lines a system
 * call and no request waits on one (one synchronous write per call was about a fifth
 * of a busy service's time, decision 0029). pino flushes the buffer synchronously
 * when the process exits, a crash included; lines still buffered at a SIGKILL are lost.
 * One stream for every logger of the process, so their writes never interleave.
 */
function stdout(): pino.DestinationStream {
  shared ??= pino.destination({ dest: process.stdout.fd ?? 1, sync: false });
  return shared;
}
let shared: pino.DestinationStream | undefined;

/** The active trace's ids in the names log pipelines expect. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  if (!traceId || traceId === '00000000000000000000000000000000') return {};
  return { trace_id: traceId, span_id: spanId };
}
