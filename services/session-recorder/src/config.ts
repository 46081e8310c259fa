import { baseEnv, sharedEnv } from '@wap/service';
import { z } from 'zod';

/** Every variable the service reads; each .describe() is its meaning in docs/settings.md. */
export const env = baseEnv(50055).extend({
  RECORDING_KEY: sharedEnv.RECORDING_KEY,
  RECORDING_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(3_650)
    .default(30)
    .describe(
      'Days an ended session is kept (row, recording, network log, stream chunks); then it is deleted for good (404).',
    ),
  RECORDING_SWEEP_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(86_400_000)
    .default(3_600_000)
    .describe(
      'How often sessions past their retention are looked for and deleted (every replica sweeps; a session is deleted once).',
    ),
});

export type SessionRecorderConfig = z.infer<typeof env>;
