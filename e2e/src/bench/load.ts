// The load generator, run as its own process so it does not share an event
// loop with what it measures. Reads a JSON config on argv[2], prints a JSON result.
import autocannon from 'autocannon';

interface LoadConfig {
  url: string;
  /** Requests per second over all connections; 0 for as fast as possible. */
  rate: number;
  seconds: number;
  connections: number;
  /** Header sets cycled through, one per request (e.g. several API keys). */
  headers: Record<string, string>[];
}

async function main() {
  const config = JSON.parse(process.argv[2] ?? '{}') as LoadConfig;
  const result = await autocannon({
    url: config.url,
    connections: config.connections,
    duration: config.seconds,
    ...(config.rate > 0 ? { overallRate: config.rate } : {}),
    requests: config.headers.map((headers) => ({ method: 'GET', headers })),
  });
  const statuses = {
    '2xx': result['2xx'],
    '4xx': result['4xx'],
    '5xx': result['5xx'],
    errors: result.errors,
    timeouts: result.timeouts,
  };
  process.stdout.write(
    `${JSON.stringify({
      requestsPerSecond: result.requests.average,
      total: result.requests.total,
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      statuses,
    })}\n`,
  );
}

void main();
