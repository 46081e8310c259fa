export { ApiError, type ErrorBody, type ErrorDetails, errorFromBody, isApiError, toErrorBody } from './api-error.js';
export { ERRORS, type ErrorSpec } from './catalogue/index.js';
export { ERROR_CODES, ERROR_GROUPS, type ErrorCode, isErrorCode } from './codes.js';
export { codeForGrpcStatus, grpcStatusFor } from './grpc.js';
export { type JsonSchema, toJsonSchema } from './json-schema.js';
export { errorSchema } from './openapi.js';
export { isDatabaseOutage, outageError } from './outage.js';
