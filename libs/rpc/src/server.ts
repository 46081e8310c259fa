import { create, type DescMessage, type DescMethod, fromBinary, toBinary } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from '@wap/log';
import { inIncomingTrace } from '@wap/telemetry';
import { toServiceError } from './errors.js';
import { serviceTokenCheck } from './service-token.js';
import type { CallContext, GenService, GenServiceMethods, ServiceImpl } from './types.js';

export function methodPath(method: DescMethod): string {
  return `/${method.parent.typeName}/${method.name}`;
}

export function serializer(desc: DescMessage) {
  // biome-ignore lint/suspicious/noExplicitAny: protobuf-es messages of any schema
  return (message: any): Buffer => Buffer.from(toBinary(desc, create(desc, message)));
}

export function deserializer(desc: DescMessage) {
  return (bytes: Buffer) => fromBinary(desc, bytes);
}

/** Runs `fn` in a span of the caller's trace (libs/telemetry), whose ids the call's log lines carry. */
function inCallerTrace<T>(metadata: grpc.Metadata, path: string, fn: () => T): T {
  const carried = (key: string) => {
    const value = metadata.get(key)[0];
    return typeof value === 'string' ? value : undefined;
  };
  return inIncomingTrace(carried, path, fn);
}

function callContext(
  call: grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>,
  method: string,
): CallContext {
  const abort = new AbortController();
  call.on('cancelled', () => abort.abort(new Error('call cancelled')));
  return { metadata: call.metadata, signal: abort.signal, method };
}

export interface ServerSettings {
  /** The fleet's SERVICE_TOKEN: every call but a health check must carry it (service-token.ts). */
  token: string;
  /** Where refused calls are logged (never with the token). */
  log: Logger;
  options?: grpc.ServerOptions;
}

/** A gRPC server that refuses, UNAUTHENTICATED, every call without the service token, health checks aside. */
export function createServer(settings: ServerSettings): grpc.Server {
  if (settings.token === '') throw new Error('createServer: an empty service token would admit anyone');
  const interceptors = [serviceTokenCheck(settings.token, settings.log), ...(settings.options?.interceptors ?? [])];
  return new grpc.Server({ ...settings.options, interceptors });
}

/**
 * Registers a protobuf-es service descriptor with grpc-js: the one adapter
 * between generated code and the transport. Errors leave as `toServiceError`.
 */
export function addService<S extends GenServiceMethods>(
  server: grpc.Server,
  service: GenService<S>,
  impl: ServiceImpl<S>,
  log: Logger,
): void {
  const definition: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  const handlers: grpc.UntypedServiceImplementation = {};
  for (const method of service.methods) {
    const path = methodPath(method);
    const kind = method.methodKind;
    if (kind !== 'unary' && kind !== 'server_streaming') {
      throw new Error(`${path}: ${kind} RPCs are not supported by the adapter`);
    }
    definition[method.localName] = {
      path,
      requestStream: false,
      responseStream: kind === 'server_streaming',
      requestSerialize: serializer(method.input),
      requestDeserialize: deserializer(method.input),
      responseSerialize: serializer(method.output),
      responseDeserialize: deserializer(method.output),
      originalName: method.localName,
    };
    // biome-ignore lint/suspicious/noExplicitAny: indexed by the descriptor's own method names
    const handler = (impl as any)[method.localName];
    if (typeof handler !== 'function') throw new Error(`${path}: no handler`);
    const quiet = method.name === 'Watch';
    // Health checks come every few seconds from every probe and gateway: logged only at debug.
    const okLevel = path.startsWith('/grpc.health.v1.') ? 'debug' : 'info';
    if (kind === 'unary') {
      handlers[method.localName] = (
        call: grpc.ServerUnaryCall<unknown, unknown>,
        callback: grpc.sendUnaryData<unknown>,
      ) =>
        inCallerTrace(call.metadata, path, () => {
          const started = performance.now();
          Promise.resolve()
            .then(() => handler(call.request, callContext(call, path)))
            .then(
              (response) => {
                // The answer first, its log line after: the caller does not wait on the log.
                callback(null, response);
                log[okLevel]({ rpc: path, grpc_code: 0, ms: Math.round(performance.now() - started) }, 'rpc');
              },
              (err: unknown) => {
                const status = toServiceError(err);
                callback(status as grpc.ServiceError, null);
                const level = status.code === grpc.status.INTERNAL ? 'error' : 'info';
                log[level](
                  { rpc: path, grpc_code: status.code, ms: Math.round(performance.now() - started), err },
                  'rpc failed',
                );
              },
            );
        });
    } else {
      handlers[method.localName] = (call: grpc.ServerWritableStream<unknown, unknown>) =>
        inCallerTrace(call.metadata, path, async () => {
          const started = performance.now();
          try {
            for await (const message of handler(call.request, callContext(call, path)) as AsyncIterable<unknown>) {
              if (call.cancelled) break;
              if (!call.write(message)) await new Promise((resolve) => call.once('drain', resolve));
            }
            if (!quiet) log.info({ rpc: path, grpc_code: 0, ms: Math.round(performance.now() - started) }, 'rpc');
            call.end();
          } catch (err) {
            const status = toServiceError(err);
            log.info({ rpc: path, grpc_code: status.code, err }, 'rpc failed');
            call.emit('error', status);
          }
        });
    }
  }
  server.addService(definition, handlers);
}
