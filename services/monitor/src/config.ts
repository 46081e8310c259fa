import { baseEnv } from '@wap/service';
import type { z } from 'zod';

/** Every variable the service reads: the shared ones only, until it has settings of its own. */
export const env = baseEnv(50054);

export type MonitorConfig = z.infer<typeof env>;
