import { baseEnv } from '@wap/service';
import { z } from 'zod';

/** Every variable the service reads. */
export const env = baseEnv(50055).extend({
  /**
   * The fleet's shared secret for recording chunks (docs/sessions.md): browser
   * hosts sign them, this service refuses any whose signature fails. Unset,
   * chunks wait in the stream until it is set.
   */
  RECORDING_KEY: z.string().min(32).optional(),
});

export type SessionRecorderConfig = z.infer<typeof env>;
