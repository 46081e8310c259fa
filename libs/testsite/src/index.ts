export { CHARSET_PAGES, type CharsetPage, JAPANESE_TEXT, WESTERN_TEXT } from './charsets.js';
export { type Article, mainText, random } from './content.js';
export * from './model-fakes.js';
export { type FakeTarget, type Received, startFakeDiscord, startFakeSlack, startFakeWebhook } from './notify-fakes.js';
export { EXTRA_LINKS, STATIC_PAGES } from './pages.js';
export { type FakeSearch, type Indexed, startFakeBrave, startFakeSearxng } from './search-fakes.js';
export { startTestSite, type TestSite, type TestSiteOptions } from './server.js';
export { SiteStats } from './stats.js';
