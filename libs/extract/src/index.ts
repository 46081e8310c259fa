export { extract } from './extract.js';
export { ExtractPool, type ExtractTask } from './pool.js';
export type { ExtractOptions, ExtractResult, Format, Metadata } from './types.js';
export { SAMPLE_PAGE, warmUp } from './warm.js';
