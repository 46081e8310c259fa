import { duration } from '@wap/config';
import { baseEnv } from '@wap/service';

export const env = baseEnv(50051).extend({
  HOLD_SWEEP_INTERVAL: duration()
    .prefault('5s')
    .describe(
      'How often expired holds are marked and lapsed slot leases deleted; reads treat both as gone in between, so it only bounds how long the rows linger.',
    ),
});
