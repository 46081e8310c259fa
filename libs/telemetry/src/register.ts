// Loaded as a service's first import so the instrumentations patch grpc-js,
// express, pg and http before anything requires them.
import { startTelemetry } from './index.js';

startTelemetry({
  serviceName: process.env.OTEL_SERVICE_NAME ?? 'unknown',
  otlpEndpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined,
});
