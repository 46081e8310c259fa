import { serviceEnv } from '@wap/config';
import { z } from 'zod';

/** Variables every service reads; each service extends this with its own. */
export const baseEnv = (grpcPort: number) =>
  serviceEnv({ grpcPort, database: true }).extend({
    /** 127.0.0.1 on a laptop; 0.0.0.0 in a cluster. */
    GRPC_HOST: z.string().default('127.0.0.1'),
  });

export type BaseEnv = z.infer<ReturnType<typeof baseEnv>>;
