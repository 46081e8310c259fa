import type { DescMessage, MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import type { Metadata } from '@grpc/grpc-js';

export type { GenService, GenServiceMethods };

/** What a handler knows about the call besides its request. */
export interface CallContext {
  metadata: Metadata;
  /** Aborted when the caller cancels or its deadline passes. */
  signal: AbortSignal;
  /** Full method path, e.g. `/grpc.health.v1.Health/Check`. */
  method: string;
}

type UnaryHandler<I extends DescMessage, O extends DescMessage> = (
  request: MessageShape<I>,
  ctx: CallContext,
) => Promise<MessageInitShape<O>>;

type ServerStreamingHandler<I extends DescMessage, O extends DescMessage> = (
  request: MessageShape<I>,
  ctx: CallContext,
) => AsyncIterable<MessageInitShape<O>>;

/** One handler per RPC of a generated service, typed from its descriptor. */
export type ServiceImpl<S extends GenServiceMethods> = {
  [K in keyof S]: S[K] extends {
    methodKind: 'unary';
    input: infer I extends DescMessage;
    output: infer O extends DescMessage;
  }
    ? UnaryHandler<I, O>
    : S[K] extends {
          methodKind: 'server_streaming';
          input: infer I extends DescMessage;
          output: infer O extends DescMessage;
        }
      ? ServerStreamingHandler<I, O>
      : never;
};

export interface CallOptions {
  /** Milliseconds from now; every call has one (the client's default when omitted). */
  timeoutMs?: number;
  signal?: AbortSignal;
  metadata?: Metadata;
}

/** A typed client: one async method per RPC, named by the RPC's local name. */
export type ServiceClient<S extends GenServiceMethods> = {
  [K in keyof S]: S[K] extends {
    methodKind: 'unary';
    input: infer I extends DescMessage;
    output: infer O extends DescMessage;
  }
    ? (request: MessageInitShape<I>, options?: CallOptions) => Promise<MessageShape<O>>
    : S[K] extends {
          methodKind: 'server_streaming';
          input: infer I extends DescMessage;
          output: infer O extends DescMessage;
        }
      ? (request: MessageInitShape<I>, options?: CallOptions) => AsyncIterable<MessageShape<O>>
      : never;
};
