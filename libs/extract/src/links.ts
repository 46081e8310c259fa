import { absoluteUrl } from './urls.js';

/** Every distinct absolute link target on the page, in document order, fragments dropped. */
export function collectLinks(root: Element, base: string | undefined): string[] {
  const seen = new Set<string>();
  for (const anchor of Array.from(root.querySelectorAll('a[href], area[href]'))) {
    const url = absoluteUrl(anchor.getAttribute('href'), base);
    if (!url) continue;
    seen.add(url.replace(/#.*$/, ''));
  }
  return [...seen];
}
