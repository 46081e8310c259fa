import { z } from 'zod';
import type { CodesOf } from '../codes.js';
import { GRPC_STATUS as G } from '../grpc-status.js';
import { issueList } from './shared.js';
import type { Entries } from './spec.js';

export const general: Entries<CodesOf<'General'>> = {
  unauthorized: {
    status: 401,
    grpc: G.UNAUTHENTICATED,
    message: 'The request carries no valid credential.',
    when: 'The Authorization header is missing, is not `Bearer <credential>`, or names an unknown, expired or revoked API key or OAuth token; in the console, there is no valid session cookie, or the email and password do not sign in.',
    details: z.strictObject({
      reason: z.enum(['missing', 'malformed', 'multiple', 'invalid', 'expired', 'revoked']).optional(),
    }),
  },
  bad_request: {
    status: 400,
    alsoStatuses: [413, 415, 417, 431],
    grpc: G.INVALID_ARGUMENT,
    message: 'The request is malformed or fails validation.',
    when: 'The body, path or query fails validation (a field the route does not know is named too), or the request is not valid HTTP/1.1; 413 when the body is larger than the size limit of the route (`details.limit`), 415 when it is not sent as `application/json` (or `multipart/form-data`, on a route whose body carries files), 417 when `Expect` asks for more than `100-continue`, 431 when the headers are larger than the server reads.',
    details: z.xor([
      z.strictObject({ issues: issueList }),
      z.strictObject({ limit: z.int().nonnegative().describe('Largest accepted body, in bytes.') }),
    ]),
  },
  not_found: {
    status: 404,
    grpc: G.NOT_FOUND,
    message: 'The requested resource or route does not exist.',
    when: "The path names no route of this deployment, or an id that does not exist in the caller's workspace (ids of other workspaces answer the same, so they cannot be probed).",
    details: z.strictObject({
      resource: z.string().describe('Kind of resource, e.g. crawl or monitor.').optional(),
      id: z.string().optional(),
    }),
  },
  method_not_allowed: {
    status: 405,
    grpc: G.UNIMPLEMENTED,
    message: 'The route does not accept this HTTP method.',
    when: 'The path exists but is called with a method it does not serve.',
    details: z.strictObject({ allow: z.array(z.string()).describe('Methods the route accepts; also sent as Allow.') }),
  },
  tenant_scope: {
    status: 403,
    grpc: G.PERMISSION_DENIED,
    message: 'The credential is not valid for this surface or workspace.',
    when: "A valid credential is used outside its scope, such as an OAuth token on a surface other than the one it was issued for or a token without the `api` scope; in the console, a write without the session's CSRF token or from another origin, a sign-in from another origin, a workspace the person is no member of (`surface: console`), or a member who is not an owner managing members (`role: owner`).",
    details: z.strictObject({
      surface: z
        .enum(['rest', 'mcp', 'connect', 'console'])
        .describe('The surface the credential was used on.')
        .optional(),
      role: z.enum(['owner']).describe('The role the action needs, which the caller does not have.').optional(),
    }),
  },
  internal: {
    status: 500,
    grpc: G.INTERNAL,
    message: 'Something went wrong on our side.',
    when: 'An unexpected failure inside the service; the request id locates it in the logs.',
    details: z.strictObject({ requestId: z.string() }),
  },
  deadline_exceeded: {
    status: 408,
    grpc: G.DEADLINE_EXCEEDED,
    message: 'The request did not finish in time.',
    when: "The work did not complete within its time budget, the caller's timeout or the route's maximum.",
    details: z.strictObject({
      timeoutMs: z.int().nonnegative().describe('The budget that ran out, in milliseconds.').optional(),
    }),
  },
};

// Profiles live here too: they are two codes and read like general lookups.
export const profiles: Entries<CodesOf<'Profiles'>> = {
  profile_in_use: {
    status: 409,
    grpc: G.ABORTED,
    message: 'The profile is in use by another session.',
    when: 'A session or run asks for a profile that a live session holds; a profile serves one session at a time so its storage stays consistent.',
    details: z.strictObject({
      profileId: z.string(),
      sessionId: z.string().describe('The session holding it.').optional(),
    }),
  },
  profile_not_found: {
    status: 404,
    grpc: G.NOT_FOUND,
    message: 'The profile does not exist.',
    when: "A profile id in the path or the body names no profile of the caller's workspace, for example after it was deleted.",
    details: z.strictObject({ profileId: z.string() }),
  },
};
