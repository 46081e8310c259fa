// Where the Postgres and NATS of this checkout are: the one reader of
// scripts/infra.sh, for `make up`, the tests and the benches.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

export interface Infra {
  /** A superuser URL of the Postgres server; each service's database is made from it. */
  adminUrl: string;
  natsUrl: string;
}

const INFRA_SCRIPT = path.resolve(__dirname, '..', '..', '..', 'scripts', 'infra.sh');
let cached: Infra | undefined;

/** DATABASE_ADMIN_URL and NATS_URL from the environment, else what scripts/infra.sh reports. */
export function localInfra(): Infra {
  if (process.env.DATABASE_ADMIN_URL && process.env.NATS_URL)
    return { adminUrl: process.env.DATABASE_ADMIN_URL, natsUrl: process.env.NATS_URL };
  if (!cached) {
    const out = execFileSync(INFRA_SCRIPT, ['env'], { encoding: 'utf8' });
    const read = (name: string) => new RegExp(`^${name}=(.+)$`, 'm').exec(out)?.[1]?.trim();
    const adminUrl = read('DATABASE_ADMIN_URL');
    const natsUrl = read('NATS_URL');
    if (!adminUrl || !natsUrl) throw new Error('set DATABASE_ADMIN_URL and NATS_URL (or run scripts/infra.sh start)');
    cached = { adminUrl, natsUrl };
  }
  return cached;
}
