// @web-access/cli as a library: run a command line in-process (the `wap` binary is cli.js).
export { parseCommand, parseDuration, UsageError } from './args.js';
export { complete, SCRIPTS } from './completion.js';
export { run, VERSION } from './main.js';
export type { Io } from './output.js';
