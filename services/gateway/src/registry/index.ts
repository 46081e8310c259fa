import type { Upstreams } from '../upstreams.js';
import { creditsRow } from './rows/credits.js';
import { scrapeRow } from './rows/scrape.js';
import { usageRow } from './rows/usage.js';
import type { Capability } from './types.js';

/** Every capability this codebase can serve; a row appears only when its backend is configured. */
const ALL_ROWS: Capability[] = [scrapeRow, creditsRow, usageRow];

/** The registry of this deployment: the only truth about what is served. */
export function buildRegistry(upstreams: Pick<Upstreams, 'configured'>): Capability[] {
  return ALL_ROWS.filter((row) => upstreams.configured(row.backend));
}
