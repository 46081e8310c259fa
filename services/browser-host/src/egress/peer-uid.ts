// Which OS user opened a loopback TCP connection, as the kernel says: a
// session's egress proxy serves its own browser's user alone, so a browser
// that named another session's proxy (had the CDP filter let a context's
// proxyServer through) is refused by the kernel's account, not by a header.
import { readFileSync } from 'node:fs';

/** A port in /proc/net/tcp's notation: the address, then ":" and the port in four hex digits. */
const hexPort = (port: number) => port.toString(16).toUpperCase().padStart(4, '0');

/**
 * The uid owning the client end of a connection accepted on 127.0.0.1:`serverPort`
 * from 127.0.0.1:`clientPort`; undefined when the kernel lists no such socket.
 */
export function loopbackPeerUid(clientPort: number, serverPort: number): number | undefined {
  // 127.0.0.1 in the kernel's byte order: 0100007F.
  const local = `0100007F:${hexPort(clientPort)}`;
  const remote = `0100007F:${hexPort(serverPort)}`;
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n')) {
    const fields = line.trim().split(/\s+/);
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid ...
    if (fields[1] === local && fields[2] === remote) return Number(fields[7]);
  }
  return undefined;
}
