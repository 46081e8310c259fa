// The body of an ExtractPool thread.
import { extract } from './extract.js';
import type { ExtractTask } from './pool.js';

export default function run({ html, url, options }: ExtractTask) {
  return extract(html, url, options);
}
