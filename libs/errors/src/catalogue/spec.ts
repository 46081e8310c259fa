import type { z } from 'zod';
import type { ErrorCode } from '../codes.js';

export interface ErrorSpec {
  /** HTTP status of the REST and MCP answer. */
  readonly status: number;
  /** Other statuses the code may answer with, each for a named case (HTTP's own, such as 415). */
  readonly alsoStatuses?: readonly number[];
  /** Fixed and human; clients branch on the code, so it never carries values. */
  readonly message: string;
  /** gRPC status number used between services. */
  readonly grpc: number;
  /** The condition that raises the code, one sentence, for docs/errors.md. */
  readonly when: string;
  /**
   * Shape of `details` for this code. Closed objects on purpose: a field a
   * server adds without updating the catalogue would be an undocumented contract.
   */
  readonly details: z.ZodType;
}

/** The catalogue entries of one group of codes; each group lives in its own file. */
export type Entries<K extends ErrorCode> = { readonly [P in K]: ErrorSpec };
