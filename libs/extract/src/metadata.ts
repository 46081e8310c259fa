import { trim } from './dom.js';
import { absoluteUrl } from './urls.js';

/** Page metadata under Firecrawl's field names; every other <meta> appears under its own name. */
export interface Metadata {
  title?: string;
  description?: string;
  language?: string;
  canonical?: string;
  keywords?: string;
  robots?: string;
  author?: string;
  favicon?: string;
  publishedTime?: string;
  modifiedTime?: string;
  ogTitle?: string;
  ogDescription?: string;
  ogUrl?: string;
  ogImage?: string;
  ogType?: string;
  ogSiteName?: string;
  ogLocale?: string;
  ogLocaleAlternate?: string[];
  articleSection?: string;
  articleTag?: string[];
  [meta: string]: string | string[] | undefined;
}

const NAMED: Record<string, string> = {
  description: 'description',
  keywords: 'keywords',
  robots: 'robots',
  author: 'author',
  'og:title': 'ogTitle',
  'og:description': 'ogDescription',
  'og:url': 'ogUrl',
  'og:image': 'ogImage',
  'og:type': 'ogType',
  'og:site_name': 'ogSiteName',
  'og:locale': 'ogLocale',
  'article:published_time': 'publishedTime',
  'article:modified_time': 'modifiedTime',
  'article:section': 'articleSection',
};
const LISTED: Record<string, string> = {
  'og:locale:alternate': 'ogLocaleAlternate',
  'article:tag': 'articleTag',
};
const MAX_VALUE = 2000;

export function extractMetadata(document: Document, base: string | undefined): Metadata {
  const metadata: Metadata = {};
  const set = (key: string, value: string): void => {
    if (metadata[key] === undefined) metadata[key] = value;
  };
  for (const meta of Array.from(document.querySelectorAll('meta'))) {
    const name = (meta.getAttribute('property') ?? meta.getAttribute('name') ?? meta.getAttribute('itemprop') ?? '')
      .trim()
      .toLowerCase();
    const value = trim(meta.getAttribute('content')).slice(0, MAX_VALUE);
    if (!name || !value) continue;
    const listed = LISTED[name];
    if (listed) {
      const list = (metadata[listed] as string[] | undefined) ?? [];
      list.push(value);
      metadata[listed] = list;
      continue;
    }
    set(NAMED[name] ?? name, value);
  }
  const title = trim(document.querySelector('title')?.textContent) || metadata.ogTitle;
  if (title) metadata.title = title.slice(0, MAX_VALUE);
  const language =
    document.documentElement?.getAttribute('lang') ??
    document.querySelector('meta[http-equiv="content-language" i]')?.getAttribute('content') ??
    metadata.ogLocale?.replace('_', '-');
  if (language?.trim()) metadata.language = language.trim();
  const canonical = absoluteUrl(document.querySelector('link[rel~="canonical" i]')?.getAttribute('href'), base);
  if (canonical) metadata.canonical = canonical;
  const favicon = absoluteUrl(
    document
      .querySelector('link[rel~="icon" i], link[rel="shortcut icon" i], link[rel~="apple-touch-icon" i]')
      ?.getAttribute('href'),
    base,
  );
  if (favicon) metadata.favicon = favicon;
  for (const key of ['ogImage', 'ogUrl'] as const) {
    const resolved = absoluteUrl(metadata[key], base);
    if (resolved) metadata[key] = resolved;
  }
  fillFromJsonLd(document, metadata);
  return metadata;
}

/** Articles often state author and dates only in their schema.org block. */
function fillFromJsonLd(document: Document, metadata: Metadata): void {
  if (metadata.author && metadata.publishedTime) return;
  for (const script of Array.from(document.querySelectorAll('script[type="application/ld+json"]'))) {
    let data: unknown;
    try {
      data = JSON.parse(script.textContent ?? '');
    } catch {
      continue;
    }
    for (const node of flatten(data)) {
      const author = authorName(node.author);
      if (author && !metadata.author) metadata.author = author;
      if (typeof node.datePublished === 'string' && !metadata.publishedTime)
        metadata.publishedTime = node.datePublished;
      if (typeof node.dateModified === 'string' && !metadata.modifiedTime) metadata.modifiedTime = node.dateModified;
    }
  }
}

function flatten(data: unknown, depth = 0): Record<string, unknown>[] {
  if (depth > 4 || data === null || typeof data !== 'object') return [];
  if (Array.isArray(data)) return data.flatMap((item) => flatten(item, depth + 1));
  const record = data as Record<string, unknown>;
  return [record, ...flatten(record['@graph'], depth + 1)];
}

function authorName(author: unknown): string | undefined {
  if (typeof author === 'string') return trim(author) || undefined;
  const list = Array.isArray(author) ? author : [author];
  const names = list
    .map((a) => (a && typeof a === 'object' ? (a as Record<string, unknown>).name : a))
    .filter((n): n is string => typeof n === 'string' && n.trim() !== '');
  return names.length > 0 ? names.join(', ') : undefined;
}
