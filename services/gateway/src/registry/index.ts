import type { Upstreams } from '../clients/upstreams.js';
import { FIRECRAWL_V2 } from './firecrawl-v2.js';
import {
  agentAnswerRow,
  agentCancelRow,
  agentControlRow,
  agentEventsRow,
  agentFilesRow,
  agentGetRow,
  agentListRow,
  agentResultsRow,
  agentRow,
} from './rows/agent.js';
import { batchScrapeRow } from './rows/batch.js';
import { crawlCancelRow, crawlGetRow, crawlListRow, crawlResultsRow, crawlRow } from './rows/crawl.js';
import { creditsRow } from './rows/credits.js';
import { integrationsConnectRow, integrationsDeleteRow, integrationsListRow } from './rows/integrations.js';
import { mapRow } from './rows/map.js';
import { monitorsCreateRow, monitorsDeleteRow, monitorsListRow } from './rows/monitors.js';
import { parseFormatsRow, parseRow } from './rows/parse.js';
import { profilesCreateRow, profilesDeleteRow, profilesGetRow, profilesListRow } from './rows/profiles.js';
import { rulesGetRow, rulesSetRow } from './rows/rules.js';
import { scrapeRow } from './rows/scrape.js';
import { searchRow } from './rows/search.js';
import { secretsCreateRow, secretsDeleteRow, secretsListRow } from './rows/secrets.js';
import { sessionsDeleteRow, sessionsGetRow, sessionsListRow } from './rows/sessions.js';
import { sessionsLiveRow } from './rows/sessions-live.js';
import { sessionsNetworkRow } from './rows/sessions-network.js';
import { sessionsExportRow, sessionsVerifyRow } from './rows/sessions-recording.js';
import { usageCallsRow, usageRow } from './rows/usage.js';
import type { Capability } from './types.js';

/** Every capability this codebase can serve; a row appears only when its backend is configured. */
const ALL_ROWS: Capability[] = [
  scrapeRow,
  crawlRow,
  // Before crawl.get: Firecrawl's GET /v2/crawl/active must not be read as the crawl `active`.
  crawlListRow,
  crawlGetRow,
  crawlResultsRow,
  crawlCancelRow,
  mapRow,
  parseRow,
  parseFormatsRow,
  batchScrapeRow,
  searchRow,
  agentRow,
  agentListRow,
  agentGetRow,
  agentEventsRow,
  agentResultsRow,
  agentCancelRow,
  agentControlRow,
  agentAnswerRow,
  agentFilesRow,
  creditsRow,
  usageRow,
  usageCallsRow,
  sessionsListRow,
  sessionsGetRow,
  sessionsDeleteRow,
  sessionsVerifyRow,
  sessionsExportRow,
  sessionsLiveRow,
  sessionsNetworkRow,
  profilesCreateRow,
  profilesListRow,
  profilesGetRow,
  profilesDeleteRow,
  monitorsCreateRow,
  monitorsListRow,
  monitorsDeleteRow,
  secretsCreateRow,
  secretsListRow,
  secretsDeleteRow,
  integrationsConnectRow,
  integrationsListRow,
  integrationsDeleteRow,
  rulesGetRow,
  rulesSetRow,
];

/** The registry of this deployment: the only truth about what is served. */
export function buildRegistry(upstreams: Pick<Upstreams, 'configured'>): Capability[] {
  return ALL_ROWS.filter((row) => upstreams.configured(row.backend)).map(withFirecrawlV2);
}

/** A row with its Firecrawl v2 routes (firecrawl-v2.ts) among its aliases. */
function withFirecrawlV2(row: Capability): Capability {
  const v2 = FIRECRAWL_V2[row.name];
  return v2 ? { ...row, alsoAt: [...(row.alsoAt ?? []), ...v2] } : row;
}
