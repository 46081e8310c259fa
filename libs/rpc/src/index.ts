export { type ClientSettings, type Closable, createClient } from './client.js';
export { fromCallError, fromServiceError, toCallError, toServiceError } from './errors.js';
export { HealthService, type ReadinessProbe } from './health.js';
export { addService, methodPath } from './server.js';
export type { CallContext, CallOptions, ServiceClient, ServiceImpl } from './types.js';
