// Documents as the scrape formats: PDF (PDF.js), DOCX (mammoth), XLSX (ExcelJS)
// and CSV (Papa Parse), read on threads of their own within bounds (pool.ts).
export { type Block, type Rendered, type Run, render } from './blocks.js';
export { documentKind } from './detect.js';
export { DocumentPool, type PoolSettings, type ReadOptions } from './pool.js';
export { DocumentRefusal, readDocument } from './read.js';
export { samplePdf } from './sample.js';
export {
  DEFAULT_LIMITS,
  type DocumentKind,
  type DocumentLimits,
  type DocumentMetadata,
  type ParsedDocument,
  type ParseRequest,
  type UnrepresentableReason,
} from './types.js';
