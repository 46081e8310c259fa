import type { Metadata } from './metadata.js';

export type { Metadata };

export type Format = 'markdown' | 'html' | 'text' | 'links' | 'metadata';

export interface ExtractOptions {
  /** Keep only the main content (default true); false keeps the whole body less scripts and styles. */
  onlyMainContent?: boolean;
  /** CSS selectors: when given, only matching elements are kept, and taken as the content as they are. */
  includeTags?: string[];
  /** CSS selectors removed before anything else. */
  excludeTags?: string[];
  /** Formats to compute (default all); the others come back empty. */
  formats?: Format[];
  /** Budget for the optional extraction stages in ms (default 5000); the result never waits on them. */
  timeBudgetMs?: number;
}

export interface ExtractResult {
  markdown: string;
  /** The cleaned content HTML. */
  html: string;
  /** Plain content text, paragraphs apart by blank lines. */
  text: string;
  /** Absolute, de-duplicated link targets of the whole page. */
  links: string[];
  metadata: Metadata;
  /** What was skipped or ignored (invalid selectors, truncated input, degraded extraction). */
  warnings: string[];
}
