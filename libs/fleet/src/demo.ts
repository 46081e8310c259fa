// What `make up` adds for the demo shop (docs/demo.md): the gateway serves it on a loopback address
// of its own, and that one address, nothing else of loopback, is let through the egress guard, so
// a newcomer's first agent run has a page to work on with no internet and no setting.

/** The shop's address: no other server of the fleet listens there. */
export const DEMO_HOST = '127.0.0.3';

/**
 * DEMO_SITE (the .env's, else DEMO_HOST on the gateway's HTTP port) and EGRESS_ALLOW with the shop's
 * address added to the .env's ranges.
 */
export function demoSettings(
  env: Readonly<Record<string, string>>,
  httpPort: number,
): { DEMO_SITE: string; EGRESS_ALLOW: string } {
  const site = env.DEMO_SITE || `${DEMO_HOST}:${httpPort}`;
  const host = site.slice(0, site.lastIndexOf(':'));
  const ranges = (env.EGRESS_ALLOW ?? '')
    .split(/[\s,]+/)
    .filter(Boolean)
    .filter((r) => r !== `${host}/32`);
  return { DEMO_SITE: site, EGRESS_ALLOW: [...ranges, `${host}/32`].join(',') };
}

/** The shop's first page. */
export const demoUrl = (site: string) => `http://${site}/`;
