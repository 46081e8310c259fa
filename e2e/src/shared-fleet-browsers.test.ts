// One fleet whose browsers may reach all of loopback and whose default model is scripted, for the
// suites of GET /connect and its sessions, the browser's isolation, agent runs listed, what an
// agent submit refuses, a secret and the frames of a page, the CLI, the console (a run started from
// it, and its scrape playground), the two SDKs, the detection suite on every engine, captchas and a
// scrape's model formats, Firecrawl's extract and the tools of Firecrawl's ecosystem (firecrawl-mcp,
// LangChain's loader) (shared-fleet.ts says why these share one and others do not).
import './connect.suite.js';
import './sessions.suite.js';
import './browser-isolation.suite.js';
import './agent-list.suite.js';
import './agent-submit.suite.js';
import './secret-frames.suite.js';
import './cli.suite.js';
import './console.suite.js';
import './console-run.suite.js';
import './console-scrape.suite.js';
import './sdk-typescript.suite.js';
import './sdk-python.suite.js';
import './detection.suite.js';
import './captcha.suite.js';
import './model-formats.suite.js';
import './firecrawl-v2-extract.suite.js';
import './firecrawl-ecosystem.suite.js';
import './firecrawl-aisdk.suite.js';
