// A certificate authority made for one test, and a server certificate it
// signed for loopback (localhost, 127.0.0.1, ::1): what a test trusts to reach
// an HTTPS server of its own, and nothing else does. Made with the openssl CLI.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TestTls {
  /** The CA's certificate (PEM): what a client adds to its trusted roots. */
  ca: string;
  /** The server's certificate and key (PEM), for `https.createServer`. */
  cert: string;
  key: string;
}

/** A fresh CA and a loopback server certificate it signed, valid for two days. */
export function makeTestTls(): TestTls {
  const dir = mkdtempSync(path.join(tmpdir(), 'wap-tls-'));
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  try {
    openssl(
      'req',
      '-x509',
      ...ec,
      '-keyout',
      file('ca.key'),
      '-out',
      file('ca.pem'),
      '-days',
      '2',
      '-subj',
      '/CN=wap test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
    openssl('req', ...ec, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=localhost');
    writeFileSync(
      file('server.ext'),
      'basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\n',
    );
    openssl(
      'x509',
      '-req',
      '-in',
      file('server.csr'),
      '-CA',
      file('ca.pem'),
      '-CAkey',
      file('ca.key'),
      '-set_serial',
      `0x${Date.now().toString(16)}`,
      '-days',
      '2',
      '-extfile',
      file('server.ext'),
      '-out',
      file('server.pem'),
    );
    const read = (name: string) => readFileSync(file(name), 'utf8');
    return { ca: read('ca.pem'), cert: read('server.pem'), key: read('server.key') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
