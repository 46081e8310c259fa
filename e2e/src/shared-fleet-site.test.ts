// One fleet whose egress reaches 127.0.0.2 alone, where each suite's test site listens, for the
// suites of scrapes, their recordings, the calls billed, MCP and monitors checking pages
// (shared-fleet.ts says why these share one and others do not). The monitors' suites come last:
// a monitor they leave checks every minute.
import './scrape.suite.js';
import './firecrawl-v2.suite.js';
import './firecrawl-v2-append.suite.js';
import './firecrawl-v1-watch.suite.js';
import './crawl-webhooks.suite.js';
import './documents.suite.js';
import './parse.suite.js';
import './scrape-recording.suite.js';
import './usage-calls.suite.js';
import './mcp.suite.js';
import './monitor-checks.suite.js';
import './monitor-plans.suite.js';
