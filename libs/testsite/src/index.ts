export { type CaptchaReport, type CaptchaSite, type CaptchaSiteOptions, startCaptchaSite } from './captcha/site.js';
export { type FakeSolver, startFakeSolver } from './captcha/solver-fake.js';
export { CHARSET_PAGES, type CharsetPage, JAPANESE_TEXT, WESTERN_TEXT } from './charsets.js';
export { type Article, mainText, random } from './content.js';
export { SEEN_WITH_RUNTIME, STILL_SEEN } from './detection/held-out.js';
export {
  type DetectionSite,
  type DetectionSiteOptions,
  startDetectionSite,
  type VisitPage,
} from './detection/site.js';
export type { Check, CheckOrigin, Verdict } from './detection/verdict.js';
export { type FakeMcp, type FakeMcpTool, startFakeMcp } from './mcp-server.js';
export * from './model-fakes.js';
export { type FakeTarget, type Received, startFakeDiscord, startFakeSlack, startFakeWebhook } from './notify-fakes.js';
export { EXTRA_LINKS, STATIC_PAGES } from './pages.js';
export { type FakeSearch, type Indexed, startFakeBrave, startFakeSearxng } from './search-fakes.js';
export { startTestSite, type TestSite, type TestSiteOptions } from './server.js';
export { SiteStats } from './stats.js';
export { makeTestTls, type TestTls } from './tls.js';
