import { z } from 'zod';

const ignored = (who: string) =>
  z.string().max(500).optional().describe(`Accepted and ignored (docs/migrating-from-firecrawl.md): ${who}.`);

/**
 * Fields Firecrawl's clients add to a scrape, crawl or search body for their own
 * bookkeeping. Accepted, so code written for Firecrawl runs unchanged, and read by
 * nothing; every other unknown field is still refused by name.
 */
export const firecrawlBookkeeping = {
  origin: ignored('Firecrawl’s clients name themselves here on every call (`js-sdk@…`, `python-sdk@…`)'),
  integration: ignored('Firecrawl’s Python client names the integration calling it here when told one'),
};
