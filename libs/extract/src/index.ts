export { extract } from './extract.js';
export type { ExtractOptions, ExtractResult, Format, Metadata } from './types.js';
