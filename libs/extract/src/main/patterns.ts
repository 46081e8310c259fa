/*
 * The class/id vocabulary that tells content containers from boilerplate. It follows
 * trafilatura's (Apache-2.0) expressions, which were tuned on the evaluation set's source
 * corpus; keep changes general and measure them with `dist/eval/run.js`.
 */

/** Candidate content containers, tried in order; the first that yields text wins. */
export const CONTENT_CANDIDATES: ReadonlyArray<(element: Element) => boolean> = [
  (e) =>
    isContainer(e, true) &&
    (cls(e) === 'post' ||
      cls(e) === 'entry' ||
      e.getAttribute('itemprop') === 'articleBody' ||
      id(e) === 'articleContent' ||
      /(?:entry|article|art)-content|article__content|article(?:-|__)?body|articleBody|body-text/.test(id(e)) ||
      /post[-_]text|post-body|post-?entry|post[-_]?content|postContent|post_inner_wrapper|article-?text|articleText|(?:entry|page|text|article|art)-content|article__content|article(?:-|__)?body|articleBody|ArticleContent|body-text|article__container/.test(
        cls(e),
      )),
  (e) => e.localName === 'article',
  (e) =>
    isContainer(e, true) &&
    (e.getAttribute('role') === 'article' ||
      ['article', 'story'].includes(id(e)) ||
      ['postarea', 'art-postcontent', 'text', 'cell', 'story'].includes(cls(e)) ||
      /^primary|story-body/.test(id(e)) ||
      /fulltext/i.test(cls(e)) ||
      /^article |post-bodycopy|story-?content|(?:theme|blog|section|single)-content|single-post|main-column|wpb_text_column|story-body|field-body/.test(
        cls(e),
      )),
  (e) =>
    isContainer(e, true) &&
    (id(e) === 'content' ||
      cls(e) === 'content' ||
      /content-main|content-body|contentBody/.test(id(e)) ||
      /content[-_]main|content(?:-|__)body/.test(cls(e)) ||
      id(e)
        .replace(/[CM]/g, (c) => c.toLowerCase())
        .includes('main-content') ||
      cls(e)
        .replace(/[CM]/g, (c) => c.toLowerCase())
        .includes('main-content') ||
      cls(e)
        .replace(/[CP]/g, (c) => c.toLowerCase())
        .includes('page-content')),
  (e) =>
    e.localName === 'main' ||
    (isContainer(e, false) &&
      (cls(e).startsWith('main') || id(e).startsWith('main') || (e.getAttribute('role') ?? '').startsWith('main'))),
];

/** Tags the boilerplate rules look at (trafilatura's div/item/list/p/section/span). */
export const PRUNABLE = new Set(['div', 'li', 'dd', 'dt', 'ul', 'ol', 'dl', 'p', 'section', 'span']);

const BOTH_TOKENS = '^shar|social|viral|newsletter|syndication|tags|sidebar|banner|bread-?crumb|button|author';
const DISCARD_ID = new RegExp(
  `${BOTH_TOKENS}|^(?:jp-|dpsp-content)|bmdh|footer|Footer|share|Share|nav|Nav|menu|related|message-container|premium`,
);
const DISCARD_CLASS = new RegExp(
  `${BOTH_TOKENS}|^(?:nav|post-nav|ZendeskForm)|subnav|avigation|navbar|navbox|menu|bar| ad |-ad-|outbrain|taboola|criteo|paid-?content|widget|footer|Footer|byline|Byline|share-|sociable|embedded|embed|tag-list|consent|modal-content|permission|elated|next-|-stories|most-popular|meta|rating|attachment|timestamp|user-info|user-profile|-icon|article-infos|message-container|slide|viewport|overlay|options|expand|obfuscated|blurred|mol-factbox|yin|zlylin|nfoline`,
);
const HIDDEN_CLASS =
  /^hide-|comments-title|nocomments|-reply-|message|akismet|suggest-links|-hide-|hide-print| hidden| hide|noprint|notloaded/;

/** Photo credits and image descriptions outside <figure>. */
const MEDIA_CREDIT =
  /copyright|credits?(?:$|[\s_-])|(?:image|img|photo|foto|bild|picture|media)[-_]?(?:description|desc|source|credit|legend|subline)/i;
/** Date lines: the annotated sets count publication dates as boilerplate, and so do readers. */
const DATE_LINE = /(?:^|[\s_-])(?:date|datum|pubdate|published|post-date|entry-date)(?:$|[\s_-])/i;
const MAX_DATE_LINE = 40;

/** Navigation, share bars, ads, bylines, related links and the like. */
export function isBoilerplate(e: Element): boolean {
  if (!PRUNABLE.has(e.localName)) return false;
  return (
    MEDIA_CREDIT.test(cls(e)) ||
    (DATE_LINE.test(cls(e)) && (e.textContent ?? '').trim().length < MAX_DATE_LINE) ||
    e.hasAttribute('data-lp-replacement-content') ||
    (e.getAttribute('role') ?? '').replace(/N/g, 'n').includes('nav') ||
    (e.getAttribute('data-component') ?? '').includes('MostPopularStories') ||
    /cookie/.test(first(e, ['id', 'class'])) ||
    DISCARD_ID.test(id(e)) ||
    DISCARD_CLASS.test(cls(e))
  );
}

/** Hidden blocks and comment furniture, on any element. */
export function isHiddenOrReply(e: Element): boolean {
  const style = e.getAttribute('style') ?? '';
  return (
    cls(e) === 'comments-title' ||
    first(e, ['id', 'class']).startsWith('reply-') ||
    first(e, ['id', 'style']).includes('hidden') ||
    /display:\s?none/.test(style) ||
    /reader-comments|akismet/.test(id(e)) ||
    HIDDEN_CLASS.test(cls(e)) ||
    e.getAttribute('aria-hidden') === 'true'
  );
}

export function isTeaser(e: Element): boolean {
  // schema.org's description of the article is its lead, whatever the theme calls the box.
  if (isLead(e)) return false;
  return PRUNABLE.has(e.localName) && (/[tT]easer/.test(id(e)) || /[tT]easer/.test(cls(e)));
}

const LEAD_CLASS =
  /(?:^|[\s_-])(?:intro|lead|lede|standfirst|summary|abstract|teaser-text|(?:article|artikel)-teaser|excerpt|deck|subtitle|subline)(?:$|[\s_-])/i;

/** The lead paragraph news and blog themes set apart before the body. */
export function isLead(e: Element): boolean {
  if (!LEAD_CONTAINERS.has(e.localName)) return false;
  return e.getAttribute('itemprop') === 'description' || LEAD_CLASS.test(cls(e)) || LEAD_CLASS.test(id(e));
}

const LEAD_CONTAINERS = new Set(['div', 'p', 'section', 'header', 'span', 'h2', 'strong']);

export function isCaption(e: Element): boolean {
  return PRUNABLE.has(e.localName) && (id(e).includes('caption') || cls(e).includes('caption'));
}

const COMMENT_CONTAINERS = new Set(['div', 'ul', 'ol', 'dl', 'section', 'details']);

/** Reader comment sections, removed before extraction. */
export function isCommentSection(e: Element): boolean {
  return (
    COMMENT_CONTAINERS.has(e.localName) &&
    (/^(?:[Cc]omment|comol|disqus_thread|dsq-comments)/.test(id(e)) ||
      /^[Cc]omment|(?:article|post)-comments/.test(cls(e)))
  );
}

/** Social-network labels that make a line boilerplate on their own. */
export const SOCIAL_LINE =
  /^\W*(?:Drucken|E-?Mail|Facebook|Flipboard|Google|Instagram|Linkedin|Mail|PDF|Pinterest|Pocket|Print|QQ|Reddit|Twitter|WeChat|WeiBo|Whatsapp|Xing|Mehr zum Thema:?|More on this.{0,8})$/i;

function isContainer(e: Element, withMain: boolean): boolean {
  const tag = e.localName;
  return tag === 'article' || tag === 'div' || tag === 'section' || (withMain && tag === 'main');
}

function cls(e: Element): string {
  return e.getAttribute('class') ?? '';
}

function id(e: Element): string {
  return e.getAttribute('id') ?? '';
}

function first(e: Element, names: readonly string[]): string {
  for (const attribute of Array.from(e.attributes)) {
    if (names.includes(attribute.name)) return attribute.value;
  }
  return '';
}
