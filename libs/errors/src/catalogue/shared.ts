import { z } from 'zod';

/** Codes whose `details` is always absent or empty. */
export const noDetails = z.strictObject({});

/** Validation problems, shared by every code that reports them. */
export const issueList = z.array(
  z.strictObject({
    path: z.string().describe('Dotted path of the offending field; empty for the whole body.'),
    message: z.string(),
  }),
);

export const retryAfterSeconds = z
  .int()
  .nonnegative()
  .describe('Seconds after which a retry may succeed; also sent as Retry-After.');
