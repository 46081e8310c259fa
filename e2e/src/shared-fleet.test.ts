// One fleet with the default settings for the gateway's suite and the fleet's
// (a fleet takes a good half minute to start on two cores). The fleet's suite
// comes last: its final test stops every service.
import './gateway.suite.js';
import './fleet.suite.js';
