import * as grpc from '@grpc/grpc-js';
import { injectContext } from '@wap/telemetry';
import { fromServiceError } from './errors.js';
import { deserializer, methodPath, serializer } from './server.js';
import { attachServiceToken } from './service-token.js';
import type { CallOptions, GenService, GenServiceMethods, ServiceClient } from './types.js';

export interface ClientSettings {
  /**
   * Deadline for unary calls that name none; there is no unary call without a deadline.
   * A server stream (an event feed, a live log) has one only when the call names it:
   * it ends when the caller aborts or the server finishes it.
   */
  defaultTimeoutMs?: number;
  /** The fleet's SERVICE_TOKEN, sent with every call; a health client needs none. */
  token?: string;
  credentials?: grpc.ChannelCredentials;
  channelOptions?: grpc.ChannelOptions;
}

export interface Closable {
  close(): void;
}

function callMetadata(options: CallOptions | undefined, token: string | undefined): grpc.Metadata {
  const metadata = options?.metadata?.clone() ?? new grpc.Metadata();
  injectContext((key, value) => metadata.set(key, value));
  if (token !== undefined) attachServiceToken(metadata, token);
  return metadata;
}

/** A typed grpc-js client for a protobuf-es service descriptor. */
export function createClient<S extends GenServiceMethods>(
  service: GenService<S>,
  address: string,
  settings: ClientSettings = {},
): ServiceClient<S> & Closable {
  const channel = new grpc.Client(address, settings.credentials ?? grpc.credentials.createInsecure(), {
    // A peer that vanished without closing (a pod killed, its address gone) is found
    // within 15 s even on an idle channel, instead of calls timing out on it.
    'grpc.keepalive_time_ms': 10_000,
    'grpc.keepalive_timeout_ms': 5_000,
    'grpc.keepalive_permit_without_calls': 1,
    // Ask DNS again as soon as a backend goes away (a rollout replaced it): grpc-js
    // otherwise waits 30 s between resolutions, and meanwhile knows only the old pods.
    'grpc.dns_min_time_between_resolutions_ms': 1_000,
    // A peer restarting comes back in seconds: retry connecting (and resolving, when its
    // name has no ready address yet) at least every 5 s, not after up to 120 s of backoff.
    'grpc.max_reconnect_backoff_ms': 5_000,
    // Spread calls over every address a name resolves to (a headless Service's pods).
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
    ...settings.channelOptions,
  });
  const defaultTimeoutMs = settings.defaultTimeoutMs ?? 5_000;
  const client: Record<string, unknown> = { close: () => channel.close() };

  for (const method of service.methods) {
    const path = methodPath(method);
    const serialize = serializer(method.input);
    const deserialize = deserializer(method.output);
    const deadlineOf = (options?: CallOptions) => Date.now() + (options?.timeoutMs ?? defaultTimeoutMs);

    if (method.methodKind === 'unary') {
      client[method.localName] = (request: unknown, options?: CallOptions) =>
        new Promise((resolve, reject) => {
          const call = channel.makeUnaryRequest(
            path,
            serialize,
            deserialize,
            request,
            callMetadata(options, settings.token),
            { deadline: deadlineOf(options) },
            (err, response) => (err ? reject(fromServiceError(err)) : resolve(response)),
          );
          options?.signal?.addEventListener('abort', () => call.cancel(), { once: true });
        });
    } else if (method.methodKind === 'server_streaming') {
      client[method.localName] = (request: unknown, options?: CallOptions) => ({
        async *[Symbol.asyncIterator]() {
          const call = channel.makeServerStreamRequest(
            path,
            serialize,
            deserialize,
            request,
            callMetadata(options, settings.token),
            {
              deadline: options?.timeoutMs === undefined ? Number.POSITIVE_INFINITY : deadlineOf(options),
            },
          );
          options?.signal?.addEventListener('abort', () => call.cancel(), { once: true });
          try {
            for await (const message of call) yield message;
          } catch (err) {
            throw fromServiceError(err as grpc.ServiceError);
          } finally {
            call.cancel();
          }
        },
      });
    }
  }
  return client as ServiceClient<S> & Closable;
}
