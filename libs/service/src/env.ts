import { serviceEnv } from '@wap/config';
import { z } from 'zod';

/** Variables every service reads; each service extends this with its own. */
export const baseEnv = (grpcPort: number) =>
  z.object({
    ...serviceEnv({ grpcPort }),
    GRPC_HOST: z.string().default('127.0.0.1'),
  });

export type BaseEnv = z.infer<ReturnType<typeof baseEnv>>;
