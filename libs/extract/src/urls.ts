/** The URL relative links resolve against: the page's <base href> when valid, else the final URL. */
export function baseUrlOf(document: Document, pageUrl: string | undefined): string | undefined {
  const page = parseUrl(pageUrl);
  const declared = document.querySelector('base[href]')?.getAttribute('href');
  if (declared) {
    const base = parseUrl(declared.trim(), page?.href);
    if (base && isWebUrl(base)) return base.href;
  }
  return page?.href;
}

/** Resolves a reference to an absolute http(s) URL; undefined for javascript:, mailto: without base, junk. */
export function absoluteUrl(reference: string | null | undefined, base: string | undefined): string | undefined {
  if (!reference) return undefined;
  const trimmed = reference.trim();
  if (!trimmed || trimmed.startsWith('#') || /^javascript:/i.test(trimmed)) return undefined;
  const url = parseUrl(trimmed, base);
  if (!url) return undefined;
  if (url.protocol === 'mailto:' || url.protocol === 'tel:') return url.href;
  return isWebUrl(url) ? url.href : undefined;
}

function parseUrl(value: string | undefined, base?: string): URL | undefined {
  if (!value) return undefined;
  try {
    return new URL(value, base);
  } catch {
    return undefined;
  }
}

function isWebUrl(url: URL): boolean {
  return url.protocol === 'http:' || url.protocol === 'https:';
}

/** Rewrites href and src in a tree to absolute URLs; lazy-loaded images get their real source. */
export function absolutizeTree(root: Element, base: string | undefined): void {
  for (const link of Array.from(root.querySelectorAll('a[href]'))) {
    const href = link.getAttribute('href');
    const resolved = absoluteUrl(href, base);
    if (resolved) link.setAttribute('href', resolved);
    else if (href?.trim().startsWith('#') && base) link.setAttribute('href', new URL(href.trim(), base).href);
    else link.removeAttribute('href');
  }
  for (const image of Array.from(root.querySelectorAll('img'))) {
    const source = imageSource(image);
    const resolved = absoluteUrl(source, base);
    if (resolved) image.setAttribute('src', resolved);
    else image.remove();
  }
}

function imageSource(image: Element): string | undefined {
  const src = image.getAttribute('src') ?? '';
  const lazy =
    image.getAttribute('data-src') ?? image.getAttribute('data-lazy-src') ?? image.getAttribute('data-original');
  // Placeholders (data: pixels) stand in until a script swaps the lazy source in.
  if (lazy && (!src || src.startsWith('data:'))) return lazy;
  if (src && !src.startsWith('data:')) return src;
  const srcset = image.getAttribute('srcset') ?? image.getAttribute('data-srcset');
  return srcset?.trim().split(/\s+/)[0] ?? undefined;
}
