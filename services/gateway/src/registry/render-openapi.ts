import { connectQuery } from '../http/connect.js';
import { buildRegistry } from './index.js';
import { openApiDocument } from './openapi.js';

/**
 * The OpenAPI document of every row this codebase can serve, and /connect, as
 * `GET /v1/openapi.json` answers it on a deployment that configures them all;
 * rendered offline (no fleet) for the clients' generated types (clients/).
 */
export const renderOpenApi = (serverUrl = 'http://localhost:8080'): ReturnType<typeof openApiDocument> =>
  openApiDocument(buildRegistry({ configured: () => true }), serverUrl, connectQuery);

if (require.main === module) process.stdout.write(`${JSON.stringify(renderOpenApi(), null, 2)}\n`);
