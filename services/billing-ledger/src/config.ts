import { duration } from '@wap/config';
import { baseEnv } from '@wap/service';

export const env = baseEnv(50051).extend({
  // How often expired holds are marked and lapsed leases deleted; reads treat
  // both as gone in between, so this only bounds how long the rows linger.
  HOLD_SWEEP_INTERVAL: duration().prefault('5s'),
});
