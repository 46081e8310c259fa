import { crawl } from '@wap/proto';

const { Format, Engine } = crawl;

/** Options only a browser can honour. */
export function needsBrowser(options: crawl.ScrapeOptions): boolean {
  return (
    options.formats.includes(Format.SCREENSHOT) ||
    options.formats.includes(Format.SCREENSHOT_FULL_PAGE) ||
    options.actions.length > 0 ||
    options.waitForMs > 0
  );
}

/**
 * Whether fetched HTML is an empty shell that scripts fill in: little visible
 * text next to a mount point or many scripts. Then `auto` renders it.
 */
export function looksScriptRendered(html: string, extractedText: string): boolean {
  const text = extractedText.trim();
  if (text.length >= 500) return false;
  const noscriptHint = /<noscript[^>]*>[^<]*(enable|requires?) javascript/i.test(html);
  if (!noscriptHint && !/<script\b/i.test(html)) return false;
  // An app's mount point holding nothing or a loading placeholder.
  const mountPoint =
    /<(div|main|section)[^>]+id=["'](root|app|__next|__nuxt|svelte|main|application)["'][^>]*>\s*(<(p|div|span)[^>]*>\s*(loading[^<]{0,20})?\s*<\/\4>\s*)?<\/\1>/i.test(
      html,
    );
  return mountPoint || noscriptHint || text.length < 200 || /^\W*loading\b/i.test(text);
}

export type EngineChoice = 'fetch' | 'browser' | 'fetch-then-decide';

export function chooseEngine(options: crawl.ScrapeOptions, browserAvailable: boolean): EngineChoice {
  if (options.engine === Engine.FETCH) return 'fetch';
  if (options.engine === Engine.BROWSER || needsBrowser(options)) return 'browser';
  return browserAvailable ? 'fetch-then-decide' : 'fetch';
}
