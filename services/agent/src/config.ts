import { baseEnv } from '@wap/service';

/** Every variable the service reads: the shared ones only, for now. */
export const env = baseEnv(50053);
