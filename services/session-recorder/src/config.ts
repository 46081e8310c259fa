import { duration } from '@wap/config';
import { baseEnv, sharedEnv } from '@wap/service';
import { z } from 'zod';

/** Every variable the service reads; each .describe() is its meaning in docs/settings.md. */
export const env = baseEnv(50055).extend({
  RECORDING_KEY: sharedEnv.RECORDING_KEY,
  RECORDING_RETENTION: duration({ min: '1d', max: '3650d' })
    .prefault('30d')
    .describe(
      'How long an ended session is kept (row, recording, network log, stream chunks); then it is deleted for good (404).',
    ),
  RECORDING_SWEEP: duration({ min: '1s', max: '1d' })
    .prefault('1h')
    .describe(
      'How often sessions past their retention are looked for and deleted (every replica sweeps; a session is deleted once).',
    ),
});

export type SessionRecorderConfig = z.infer<typeof env>;
