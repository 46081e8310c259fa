// The OS wall behind the CDP filter's network rules: each session's Chromium
// runs in a network namespace of its own, whose one way out is its own egress
// proxy. The namespace has a loopback and a network that leads nowhere (both
// ends of a veth pair inside it): no route to the host's loopback (its
// services, another session's proxy), to the metadata address or anywhere. Its one listener, 127.0.0.1:8118 inside, is a bridge (Debian's
// socat, run as the session's user) to the egress proxy's Unix socket, which
// its user alone may open. So a CDP method that makes Chromium connect
// somewhere by itself (remote target discovery did, around the proxy) finds
// no route, whatever the filter let through: the rule closes the method, the
// wall the class.
//
// The namespace is a PID namespace too, with a shell as its init: when
// Chromium exits, or the host kills what it started, the kernel ends the
// bridge with it. It takes root (make up as root, the chart's browser host);
// elsewhere the host says at start that its browsers' network is walled by the
// proxy settings and the CDP filter alone (docs/connect.md, "Isolation").
import { execFile } from 'node:child_process';
import { lstatSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '@wap/log';
import { rootsAlone } from './os-users.js';

/** Where a walled browser finds its proxy: the bridge's address inside its namespace. */
export const WALLED_PROXY = 'http://127.0.0.1:8118';
/** 8118 as /proc/net/tcp writes a listening socket on 127.0.0.1 (state 0A). */
const BRIDGE_LISTENING = '0100007F:1FB6 00000000:0000 0A';

const DIR = path.join(tmpdir(), 'wap-network-walls');
/**
 * The address of a network inside the wall that leads nowhere (a veth pair
 * whose two ends are both inside): with loopback alone Chromium sees no
 * network, and WebRTC's candidate gathering never completes, where a desktop
 * Chrome's completes at once (with no candidate, its UDP held by the policy).
 */
const DARK_ADDRESS = '10.255.255.1';
const PROGRAMS = {
  unshare: ['/usr/bin/unshare'],
  ip: ['/usr/sbin/ip', '/sbin/ip', '/usr/bin/ip', '/bin/ip'],
  socat: ['/usr/bin/socat'],
  setpriv: ['/usr/bin/setpriv'],
} as const;

const exists = (file: string): boolean => lstatSync(file, { throwIfNoEntry: false }) !== undefined;

/** A program's path, or undefined when it is not installed. */
const find = (paths: readonly string[]) => paths.find(exists);

/** How one program is started inside a wall. */
export interface Walled {
  executablePath: string;
  args: string[];
  env: Record<string, string>;
}

export class NetworkWalls {
  private constructor(private readonly wrapper: string) {}

  /**
   * The walls of this host, or undefined (with the reason logged) when it
   * cannot build them: not root, a program missing, or namespaces refused.
   */
  static async start(log: Logger): Promise<NetworkWalls | undefined> {
    const unshare = find(PROGRAMS.unshare);
    const ip = find(PROGRAMS.ip);
    const socat = find(PROGRAMS.socat);
    const setpriv = find(PROGRAMS.setpriv);
    const why =
      process.getuid?.() !== 0
        ? 'the host does not run as root'
        : !unshare || !ip || !socat || !setpriv
          ? 'unshare, ip, socat or setpriv is missing'
          : undefined;
    if (why || !unshare || !ip || !socat || !setpriv) {
      log.warn(
        { reason: why },
        "session browsers share the host's network: what they reach is held by their proxy settings and the CDP filter alone",
      );
      return undefined;
    }
    rootsAlone(DIR);
    const wrapper = path.join(DIR, 'walled');
    // Written whole, then renamed: another host on this machine may be starting a browser through it.
    const next = `${wrapper}.${process.pid}`;
    writeFileSync(next, script({ unshare, ip, socat, setpriv }), { mode: 0o700 });
    renameSync(next, wrapper);
    const walls = new NetworkWalls(wrapper);
    const refused = await walls.probe();
    if (refused) {
      log.warn({ reason: refused }, "session browsers share the host's network: namespaces are refused here");
      return undefined;
    }
    log.info('session browsers run in network namespaces of their own, their egress proxy the one way out');
    return walls;
  }

  /** Whether a program inside a wall starts and sees only its loopback; the reason when not. */
  private async probe(): Promise<string | undefined> {
    try {
      const { stdout } = await promisify(execFile)(this.wrapper, ['/bin/sh', '-c', 'cat /proc/net/dev'], {
        // The bridge is never asked to connect: no socket is needed.
        env: { PATH: '/usr/bin:/bin', WAP_EGRESS_SOCKET: '/nonexistent' },
        timeout: 10_000,
      });
      const interfaces = stdout
        .split('\n')
        .slice(2)
        .map((line) => line.split(':')[0]?.trim())
        .filter(Boolean);
      const unexpected = interfaces.filter((name) => !['lo', 'wap0', 'wap1'].includes(name as string));
      return unexpected.length === 0 && interfaces.includes('lo')
        ? undefined
        : `interfaces inside: ${interfaces.join(', ')}`;
    } catch (err) {
      return String((err as Error).message).split('\n')[0];
    }
  }

  /**
   * How to start `launch` (the program, its arguments, its environment)
   * inside a wall whose way out is the proxy on `socket`; its bridge runs as
   * `uid` when the browser has a user of its own.
   */
  wrap(launch: Walled, socket: string, uid?: number): Walled {
    return {
      executablePath: this.wrapper,
      args: [launch.executablePath, ...launch.args],
      env: {
        ...launch.env,
        WAP_EGRESS_SOCKET: socket,
        ...(uid !== undefined && { WAP_BRIDGE_UID: String(uid) }),
      },
    };
  }
}

/**
 * The wrapper: new network and PID namespaces, a shell as their init that
 * brings up loopback, starts the bridge (its fds 3 and 4, Chromium's pipe,
 * closed) and waits until it listens, then runs the program and answers its
 * exit. `--kill-child` ends that init, and so the namespace, if unshare is
 * killed.
 */
function script(p: { unshare: string; ip: string; socat: string; setpriv: string }): string {
  const bridge = `${p.socat} TCP-LISTEN:8118,bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:"$WAP_EGRESS_SOCKET" 3>&- 4>&- &`;
  return `#!/bin/sh
exec ${p.unshare} --net --pid --fork --kill-child -- /bin/sh -c '
${p.ip} link set lo up || exit 70
${p.ip} link add wap0 type veth peer name wap1 && ${p.ip} addr add ${DARK_ADDRESS}/30 dev wap0 && ${p.ip} link set wap0 up && ${p.ip} link set wap1 up || exit 72
if [ -n "$WAP_BRIDGE_UID" ]; then
  ${p.setpriv} --reuid="$WAP_BRIDGE_UID" --regid="$WAP_BRIDGE_UID" --clear-groups --no-new-privs -- ${bridge}
else
  ${bridge}
fi
tries=0
until grep -q "${BRIDGE_LISTENING}" /proc/net/tcp; do
  tries=$((tries + 1)); [ "$tries" -gt 500 ] && exit 71
  sleep 0.01
done
unset WAP_EGRESS_SOCKET WAP_BRIDGE_UID
"$@"
' walled "$@"
`;
}
