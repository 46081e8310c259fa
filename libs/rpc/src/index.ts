export { type ClientSettings, type Closable, createClient } from './client.js';
export { fromCallError, fromServiceError, toCallError, toServiceError } from './errors.js';
export { HealthService, type ReadinessProbe } from './health.js';
export { isUuid, resourceId } from './ids.js';
export { DEFAULT_PAGE_LIMIT, decodeCursor, encodeCursor, MAX_PAGE_LIMIT, pageLimit, pageOf } from './paging.js';
export { addService, createServer, methodPath, type ServerSettings } from './server.js';
export type { CallContext, CallOptions, ServiceClient, ServiceImpl } from './types.js';
