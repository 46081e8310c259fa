// make bench: the Firecrawl v2 translation's own time on a scrape: the request
// firecrawl-py sends (its defaults included) rewritten into ours, and a scrape's
// answer passed back, measured in-process (the route's other work is the v1 route's).
import { goal, printGoals } from '@wap/testkit';
import { FIRECRAWL_V2 } from './firecrawl-v2.js';

const ROUNDS = 20_000;
const translate = FIRECRAWL_V2.scrape?.[0]?.translate;
if (!translate?.request) throw new Error('no scrape translation');

const sent = {
  params: {},
  query: {},
  body: {
    url: 'https://example.com/articles/1',
    formats: ['markdown', 'links', { type: 'screenshot', fullPage: true }, { type: 'json', prompt: 'the title' }],
    onlyMainContent: true,
    mobile: false,
    skipTlsVerification: true,
    removeBase64Images: true,
    fastMode: false,
    blockAds: true,
    maxAge: 14_400_000,
    storeInCache: true,
    origin: 'python-sdk@4.54.0',
  },
};
const answer = { success: true, data: { markdown: '# Title\n\n'.repeat(200), metadata: { title: 'Title' } } };

const times: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const t0 = process.hrtime.bigint();
  translate.request(sent);
  translate.response?.(answer, sent);
  times.push(Number(process.hrtime.bigint() - t0) / 1e6);
}
times.sort((a, b) => a - b);
const p50 = times[Math.floor(times.length / 2)] ?? Number.NaN;
const p99 = times[Math.floor(times.length * 0.99)] ?? Number.NaN;
console.log(
  `v2 scrape translation over ${ROUNDS} calls: p50 ${(p50 * 1000).toFixed(1)} µs, p99 ${(p99 * 1000).toFixed(1)} µs`,
);
const goals = [goal('the v2 translation’s own time on a scrape, p50', p50, '<=', 1, 'ms')];
printGoals(goals);
console.log(
  JSON.stringify({ bench: 'firecrawl-v2', p50Ms: Number(p50.toFixed(4)), p99Ms: Number(p99.toFixed(4)), goals }),
);
