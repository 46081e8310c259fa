// One fleet with the default settings for the suites of the gateway, OAuth sign-in, the console's
// API, the monitors' routes and the fleet itself (shared-fleet.ts says why these share one and
// others do not). The fleet's suite comes last: its final test stops every service.
import './gateway.suite.js';
import './oauth.suite.js';
import './console-api.suite.js';
import './monitor-routes.suite.js';
import './fleet.suite.js';
