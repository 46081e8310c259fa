// Preloaded into every service of a fuzzed fleet (NODE_OPTIONS=--require): no socket and no name
// lookup leaves the machine. The fuzzer makes up URLs (`https://0.jm/`, public literal addresses)
// and the egress guard lets public addresses through by design, so the guard alone would send
// fuzz traffic to whoever those names belong to. Here every name but localhost fails to resolve
// and every connection to an address off loopback fails at once, as an unreachable site does.
import dns from 'node:dns';
import net from 'node:net';

const isLoopbackHost = (host: string): boolean => {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare === '::1' || bare === '::ffff:127.0.0.1') return true;
  return net.isIPv4(bare) && bare.startsWith('127.');
};

const refusal = (code: string, syscall: string, host: string): NodeJS.ErrnoException => {
  process.stderr.write(`loopback-only: refused ${syscall} ${host}\n`);
  return Object.assign(new Error(`${syscall} ${code} ${host} (loopback-only fleet)`), {
    code,
    syscall,
    hostname: host,
  });
};

const lookup = dns.lookup;
dns.lookup = ((hostname: string, ...rest: unknown[]) => {
  const callback = rest.at(-1) as (err: Error) => void;
  if (isLoopbackHost(hostname)) return (lookup as (...a: unknown[]) => void)(hostname, ...rest);
  process.nextTick(() => callback(refusal('ENOTFOUND', 'getaddrinfo', hostname)));
}) as typeof dns.lookup;

const lookupPromise = dns.promises.lookup;
dns.promises.lookup = (async (hostname: string, options?: unknown) => {
  if (isLoopbackHost(hostname)) return lookupPromise(hostname, options as dns.LookupOptions);
  throw refusal('ENOTFOUND', 'getaddrinfo', hostname);
}) as typeof dns.promises.lookup;

// Every TCP and TLS client socket goes through Socket#connect; IPC paths are left alone.
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
  const [first, second] = args;
  let host: string | undefined;
  let ipc = false;
  if (Array.isArray(first)) {
    // Node's own normalised form: [options, callback].
    const options = first[0] as { host?: string; path?: string };
    ipc = options.path !== undefined;
    host = options.host;
  } else if (typeof first === 'object' && first !== null) {
    const options = first as { host?: string; path?: string };
    ipc = options.path !== undefined;
    host = options.host;
  } else if (typeof first === 'string' && !/^\d+$/.test(first)) {
    ipc = true;
  } else if (typeof second === 'string') {
    host = second;
  }
  if (!ipc && !isLoopbackHost(host ?? 'localhost')) {
    const err = refusal('ECONNREFUSED', 'connect', String(host));
    process.nextTick(() => this.destroy(err));
    return this;
  }
  return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
} as typeof net.Socket.prototype.connect;
