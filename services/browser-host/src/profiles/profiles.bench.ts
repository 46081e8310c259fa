// How long a profile holding 20 MB of site data takes to save when its
// session ends and to restore when the next one attaches (docs/profiles.md):
// a session browser on Debian's Chromium writes 20 MB of random bytes (they
// do not compress) into IndexedDB; the save (tar, zstd, seal, one Postgres
// transaction) and the restore (read, unseal, untar) are timed as the host
// runs them, over BENCH_ROUNDS rounds.
//   node services/browser-host/dist/profiles/profiles.bench.js   (or make bench)
// Prints a table, then one JSON line (the last line) for tools.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { AllowList } from '@wap/netguard';
import { quietLog } from '@wap/testkit';
import { browserFace } from '../domain/browser-face.js';
import { sessionSettings } from '../domain/session-options.js';
import { chromiumVersion, launchSessionBrowser } from '../sessions/session-browser.js';
import { openBrowserHostDatabase } from '../store/database.js';
import { ProfileStore } from '../store/profiles.js';
import { freshDatabase } from '../test-support.js';
import { type Attached, Profiles } from './profiles.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const MEGABYTES = Number(process.env.BENCH_PROFILE_MB ?? 20);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function main() {
  const database = await freshDatabase();
  const db = openBrowserHostDatabase(database.url);
  const site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html>'));
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  const profiles = new Profiles(
    new ProfileStore(db),
    { key: 'the-profile-key-of-this-bench-0123456789', maxBytes: 200 * 1024 * 1024, leaseTtlMs: 30_000, exits: [] },
    quietLog(),
  );
  const face = browserFace(sessionSettings(undefined), chromiumVersion('/usr/bin/chromium'));
  const workspaceId = `ws-${randomUUID()}`;
  const saves: number[] = [];
  const restores: number[] = [];
  let stored = 0n;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const profile = await profiles.create(workspaceId, `bench-${round}`, undefined);
      const timed = (attached: Attached): Attached => ({
        ...attached,
        restore: async (dir) => {
          const t0 = performance.now();
          await attached.restore(dir);
          restores.push(performance.now() - t0);
        },
        release: async (dir) => {
          const t0 = performance.now();
          await attached.release(dir);
          if (dir) saves.push(performance.now() - t0);
        },
      });
      const holder = () => ({ sessionId: randomUUID(), host: 'bench' });
      // The session that fills it.
      const writer = await launchSessionBrowser('/usr/bin/chromium', AllowList.parse('127.0.0.0/8'), face, {
        profile: timed(await profiles.attach(workspaceId, profile.id, holder())),
      });
      const page = await writer.browser.newPage();
      await page.goto(`${origin}/`);
      await page.evaluate(async (mb: number) => {
        const db = await new Promise<IDBDatabase>((resolve, reject) => {
          const open = indexedDB.open('bench', 1);
          open.onupgradeneeded = () => open.result.createObjectStore('blobs');
          open.onsuccess = () => resolve(open.result);
          open.onerror = () => reject(open.error);
        });
        for (let i = 0; i < mb; i++) {
          const bytes = new Uint8Array(1024 * 1024);
          for (let o = 0; o < bytes.length; o += 65_536) crypto.getRandomValues(bytes.subarray(o, o + 65_536));
          await new Promise<void>((resolve, reject) => {
            const tx = db.transaction('blobs', 'readwrite');
            tx.objectStore('blobs').put(bytes.buffer, i);
            tx.oncomplete = () => resolve();
            tx.onerror = () => reject(tx.error);
          });
        }
      }, MEGABYTES);
      restores.pop(); // the first attach had nothing to restore
      await writer.close({ keepState: true });
      stored = (await profiles.get(workspaceId, profile.id)).sizeBytes;
      // The session that restores it, and finds the data there.
      const reader = await launchSessionBrowser('/usr/bin/chromium', AllowList.parse('127.0.0.0/8'), face, {
        profile: timed(await profiles.attach(workspaceId, profile.id, holder())),
      });
      const again = await reader.browser.newPage();
      await again.goto(`${origin}/`);
      const count = await again.evaluate(
        () =>
          new Promise<number>((resolve) => {
            const open = indexedDB.open('bench', 1);
            open.onsuccess = () => {
              const req = open.result.transaction('blobs').objectStore('blobs').count();
              req.onsuccess = () => resolve(req.result);
            };
          }),
      );
      if (count !== MEGABYTES) throw new Error(`restored ${count} of ${MEGABYTES} blobs`);
      await reader.close({ keepState: false });
    }
  } finally {
    site.close();
    await db.$disconnect();
    await database.drop();
  }
  const result = {
    bench: 'profiles',
    siteDataMB: MEGABYTES,
    rounds: ROUNDS,
    storedBytes: Number(stored),
    saveMs: { median: Math.round(median(saves)), all: saves.map(Math.round) },
    restoreMs: { median: Math.round(median(restores)), all: restores.map(Math.round) },
  };
  console.log(`\nA profile holding ${MEGABYTES} MB of IndexedDB data (random bytes), ${ROUNDS} rounds\n`);
  console.log('step      median   each');
  console.log('--------  -------  ----------------');
  console.log(`save      ${`${result.saveMs.median} ms`.padEnd(7)}  ${result.saveMs.all.join(', ')} ms`);
  console.log(`restore   ${`${result.restoreMs.median} ms`.padEnd(7)}  ${result.restoreMs.all.join(', ')} ms`);
  console.log(`\nstored ${(result.storedBytes / 1024 / 1024).toFixed(1)} MiB (tar, zstd, AES-256-GCM)`);
  console.log(JSON.stringify(result));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
