import { gfm } from '@joplin/turndown-plugin-gfm';
import TurndownService from 'turndown';
import { INVISIBLE } from './text.js';

let service: TurndownService | undefined;

function turndown(): TurndownService {
  if (service) return service;
  service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '*',
  });
  service.use(gfm);
  service.escape = escapeMarkdown;
  // One space after the marker, as most Markdown in the wild (turndown pads to four columns).
  service.addRule('listItem', {
    filter: 'li',
    replacement: (content, node, options) => {
      const parent = node.parentNode as Element | null;
      let marker = `${options.bulletListMarker} `;
      if (parent?.nodeName === 'OL') {
        const start = Number(parent.getAttribute('start') ?? '1') || 1;
        marker = `${start + Array.prototype.indexOf.call(parent.children, node)}. `;
      }
      const body = content
        .replace(/^\n+/, '')
        .replace(/\n+$/, '\n')
        .replace(/\n/gm, `\n${' '.repeat(marker.length)}`);
      return marker + body + (node.nextSibling && !/\n$/.test(body) ? '\n' : '');
    },
  });
  // Empty links (icons, anchors) would leave "[](url)" noise.
  service.addRule('emptyLink', {
    filter: (node) => node.nodeName === 'A' && !(node.textContent ?? '').trim() && !node.querySelector('img'),
    replacement: () => '',
  });
  return service;
}

/**
 * GitHub-flavoured Markdown of cleaned content (code languages already normalised): an element
 * of our DOM, which turndown copies rather than parsing a serialisation again, or HTML text.
 */
export function renderMarkdown(content: Element | string): string {
  if (typeof content === 'string' ? !content.trim() : !content.firstChild) return '';
  return turndown()
    .turndown(content as unknown as TurndownService.Node)
    .replace(INVISIBLE, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * Escapes only what would change how text reads as Markdown. Turndown's default also escapes
 * every bracket and intraword underscore, which garbles references like "[1]" and snake_case.
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/\\(?=[!-/:-@[-`{-~])/g, '\\\\')
    .replace(/[*`]/g, '\\$&')
    .replace(/(^|[^\p{L}\p{N}])_|_(?=[^\p{L}\p{N}]|$)/gu, (match) => match.replace('_', '\\_'))
    .replace(/\](?=[([:])/g, '\\]')
    .replace(/^(\s*)([-+] |#{1,6} |>|=+\s*$|~~~)/, '$1\\$2')
    .replace(/^(\s*\d+)([.)] )/, '$1\\$2');
}

const LANGUAGE_CLASS = /(?:^|\s)(?:lang(?:uage)?-|highlight-(?:source-)?|brush:\s*)([\w+#.-]+)/i;

/**
 * Marks every code block with `language-x` on its <code>, the form Markdown converters read,
 * from the conventions highlighters leave: classes on the block, its <code> or its wrapper,
 * or data-lang attributes.
 */
export function normaliseCodeBlocks(root: Element): void {
  for (const pre of Array.from(root.querySelectorAll('pre'))) {
    let code = pre.querySelector('code');
    if (!code || pre.childElementCount !== 1) {
      for (const br of Array.from(pre.querySelectorAll('br'))) br.replaceWith('\n');
      const text = pre.textContent ?? '';
      code = pre.ownerDocument.createElement('code');
      code.textContent = text;
      pre.textContent = '';
      pre.appendChild(code);
    }
    const language = codeLanguage(pre, code);
    if (language) code.setAttribute('class', `language-${language}`);
    else code.removeAttribute('class');
  }
}

function codeLanguage(pre: Element, code: Element): string | undefined {
  for (const element of [code, pre, pre.parentElement, pre.parentElement?.parentElement]) {
    if (!element) continue;
    const declared = element.getAttribute('data-lang') ?? element.getAttribute('data-language');
    if (declared?.trim()) return declared.trim().toLowerCase();
    const match = (element.getAttribute('class') ?? '').match(LANGUAGE_CLASS);
    if (match?.[1]) return match[1].toLowerCase();
  }
  return undefined;
}
