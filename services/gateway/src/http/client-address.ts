// Who sent a request, as far as its address tells: what the sign-in throttle
// keys by (docs/oauth.md, "Guessing passwords"). Behind an ingress every
// request comes from the proxy, so the address the proxy saw is read from
// the header it adds, but only when the request comes from a proxy the
// operator trusts (TRUSTED_PROXIES), and only as far as trusted proxies wrote
// it: the right-most address that is not itself a trusted proxy, as Express's
// `trust proxy` takes it (proxy-addr's walk). A client that sends its own
// header directly, or through the proxy, changes nothing: the proxy appends
// what it saw after whatever the client wrote.
import type { IncomingMessage } from 'node:http';
import parseForwarded from 'forwarded-parse';
import proxyaddr from 'proxy-addr';

/** The header the trusted proxies write the address they saw in. */
export type ProxyHeader = 'x-forwarded-for' | 'forwarded';

export type ClientAddress = (req: IncomingMessage) => string;

/** The request's own peer: what the address is when no proxy is trusted. */
const peer: ClientAddress = (req) => req.socket.remoteAddress ?? '';

/**
 * The `for` addresses of a Forwarded header (RFC 7239), left to right, in
 * X-Forwarded-For's form: without brackets and ports. Elements are split on
 * commas before they are parsed, so one the client wrote badly leaves those
 * the proxies appended after it readable; one that cannot be read is "unknown",
 * never trusted, so the walk stops there.
 */
export function forwardedFor(header: string | undefined): string {
  if (!header) return '';
  return header
    .split(',')
    .map((element) => {
      let value: string | undefined;
      try {
        value = parseForwarded(element.trim())[0]?.for;
      } catch {
        value = undefined;
      }
      if (!value) return 'unknown';
      return /^\[([^\]]+)\](?::\d+)?$/.exec(value)?.[1] ?? /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(value)?.[1] ?? value;
    })
    .join(', ');
}

/** How the gateway finds a request's client address, given the proxies it trusts (CIDRs) and their header. */
export function clientAddressOf(trusted: readonly string[], header: ProxyHeader): ClientAddress {
  if (trusted.length === 0) return peer;
  const trust = proxyaddr.compile([...trusted]);
  if (header === 'x-forwarded-for') return (req) => proxyaddr(req, trust);
  // proxy-addr walks X-Forwarded-For alone: it is handed the Forwarded header's addresses in that form.
  return (req) => {
    const asForwardedFor: Pick<IncomingMessage, 'headers' | 'socket'> = {
      headers: { 'x-forwarded-for': forwardedFor(req.headers.forwarded) },
      socket: req.socket,
    };
    return proxyaddr(asForwardedFor as IncomingMessage, trust);
  };
}
