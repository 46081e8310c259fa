// The fleet's service token (SERVICE_TOKEN, docs/decisions/0035-service-credentials.md):
// every client sends it with each call, every server refuses a call without it before its
// handler runs. grpc.health.v1 stays open: the kubelet's probes and `waitServing` carry no token.
import { createHash, timingSafeEqual } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from '@wap/log';

/** The metadata key the token travels in, as `Bearer <token>`. */
export const SERVICE_TOKEN_METADATA = 'authorization';

const HEALTH_PREFIX = '/grpc.health.v1.Health/';

/** Puts `token` on a call's metadata. */
export function attachServiceToken(metadata: grpc.Metadata, token: string): void {
  metadata.set(SERVICE_TOKEN_METADATA, `Bearer ${token}`);
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Whether a call's metadata carries the token whose SHA-256 is `expected`:
 * compared in constant time, digest to digest, so a wrong length says nothing either.
 */
function carriesServiceToken(metadata: grpc.Metadata, expected: Buffer): boolean {
  const values = metadata.get(SERVICE_TOKEN_METADATA);
  if (values.length !== 1 || typeof values[0] !== 'string') return false;
  const presented = values[0].startsWith('Bearer ') ? values[0].slice('Bearer '.length) : '';
  return timingSafeEqual(digest(presented), expected);
}

/**
 * A server interceptor that answers UNAUTHENTICATED to a call whose metadata
 * lacks `token`: the metadata is never passed on, so the handler never sees the
 * call (grpc-js holds its message until then). Health calls pass untouched.
 */
export function serviceTokenCheck(token: string, log: Logger): grpc.ServerInterceptor {
  const expected = digest(token);
  return (method, call) => {
    if (method.path.startsWith(HEALTH_PREFIX)) return new grpc.ServerInterceptingCall(call);
    return new grpc.ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, pass) => {
            if (carriesServiceToken(metadata, expected)) {
              pass(metadata);
              return;
            }
            // Never the token presented: what was wrong with it is for the caller's own logs.
            log.warn({ rpc: method.path, peer: call.getPeer() }, 'rpc refused: no valid service token');
            call.sendStatus({
              code: grpc.status.UNAUTHENTICATED,
              details: 'the call carries no valid service token (SERVICE_TOKEN)',
              metadata: new grpc.Metadata(),
            });
          },
        }),
    });
  };
}
