// Extraction off the event loop: parsing a page and scoring its content is
// milliseconds of CPU (a large page, far more), which on the main thread
// delays every other request of the process. A service hands pages to a small
// pool of worker threads (Piscina) instead.
import path from 'node:path';
import { Piscina } from 'piscina';
import type { ExtractOptions, ExtractResult } from './types.js';

export interface ExtractTask {
  html: string;
  url: string;
  options: ExtractOptions;
}

export class ExtractPool {
  private readonly pool: Piscina<ExtractTask, ExtractResult>;

  constructor(settings: { threads: number }) {
    const threads = Math.max(1, settings.threads);
    this.pool = new Piscina({
      filename: path.join(__dirname, 'worker.js'),
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Number.POSITIVE_INFINITY,
    });
  }

  /** `extract(html, url, options)` on a worker thread. */
  extract(html: string, url: string, options: ExtractOptions = {}): Promise<ExtractResult> {
    return this.pool.run({ html, url, options });
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
