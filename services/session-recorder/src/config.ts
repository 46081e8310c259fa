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
  /**
   * Days an ended session is kept (its row, recording, network log and
   * chunks); then it is deleted for good and answers not_found.
   */
  RECORDING_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(30),
  /** How often the retention is swept (every replica sweeps; a row is deleted once). */
  RECORDING_SWEEP_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(3_600_000),
});

export type SessionRecorderConfig = z.infer<typeof env>;
