// Where `wap login` keeps its tokens, and how a client reads and refreshes them: the SDK's
// third source of a credential (docs/clients.md, "Login storage").
//
// - The OS keyring, service `web-access`, account `login`: the login as JSON. Used when
//   @napi-rs/keyring can be loaded and the platform's store answers.
// - Else the file `$XDG_CONFIG_HOME/web-access/login.json` (`~/.config/...` without the
//   variable, `%APPDATA%\web-access\` on Windows), mode 0600 in a 0700 folder.
// - With the login in the keyring, that file holds only where it is (`storage: "keyring"`,
//   the base URL and client id), so a reader without the keyring module can say so.
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import path from 'node:path';
import { LoginError } from './errors.js';

export const KEYRING_SERVICE = 'web-access';
export const KEYRING_ACCOUNT = 'login';
/** Refresh an access token this long before it expires. */
export const REFRESH_AHEAD_MS = 5 * 60_000;

/** A signed-in CLI: an OAuth client of the gateway and its tokens for the REST API. */
export interface Login {
  /** The deployment signed in to: its tokens are never sent anywhere else. */
  baseUrl: string;
  /** The OAuth client the CLI registered (RFC 7591). */
  clientId: string;
  accessToken: string;
  refreshToken: string;
  /** When the access token expires, milliseconds since the epoch. */
  expiresAt: number;
  tokenEndpoint: string;
  revocationEndpoint: string;
  scope?: string;
}

/** The part of @napi-rs/keyring this module uses. */
export interface KeyringModule {
  Entry: new (
    service: string,
    account: string,
  ) => {
    getPassword(): string | null;
    setPassword(password: string): void;
    deletePassword(): boolean;
  };
}

export type Storage = 'keyring' | 'file';

export type ReadResult =
  | { status: 'found'; login: Login; storage: Storage }
  | { status: 'missing' }
  /** A login exists but cannot be read here (in the keyring, without the keyring module). */
  | { status: 'unreadable'; storage: Storage; baseUrl: string | undefined; reason: string };

type Env = Record<string, string | undefined>;

/** The folder of the CLI's settings and, without a keyring, its login. */
export function configDir(env: Env = process.env): string {
  if (env.XDG_CONFIG_HOME) return path.join(env.XDG_CONFIG_HOME, 'web-access');
  if (process.platform === 'win32' && env.APPDATA) return path.join(env.APPDATA, 'web-access');
  return path.join(env.HOME || homedir(), '.config', 'web-access');
}

/** @napi-rs/keyring if it can be loaded from here (the SDK does not depend on it), else null. */
export function loadKeyring(): KeyringModule | null {
  try {
    return createRequire(__filename)('@napi-rs/keyring') as KeyringModule;
  } catch {
    return null;
  }
}

const isLogin = (o: Record<string, unknown>): boolean =>
  ['baseUrl', 'clientId', 'accessToken', 'refreshToken', 'tokenEndpoint', 'revocationEndpoint'].every(
    (k) => typeof o[k] === 'string' && o[k] !== '',
  ) && typeof o.expiresAt === 'number';

const loginOf = (o: Record<string, unknown>): Login => ({
  baseUrl: o.baseUrl as string,
  clientId: o.clientId as string,
  accessToken: o.accessToken as string,
  refreshToken: o.refreshToken as string,
  expiresAt: o.expiresAt as number,
  tokenEndpoint: o.tokenEndpoint as string,
  revocationEndpoint: o.revocationEndpoint as string,
  ...(typeof o.scope === 'string' && { scope: o.scope }),
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface LoginStoreOptions {
  /** Where the variables come from (XDG_CONFIG_HOME, HOME); default process.env. */
  env?: Env;
  /** The keyring module; default: @napi-rs/keyring if it loads; null: the file only. */
  keyring?: KeyringModule | null;
}

/** Reads, writes and refreshes the stored login. */
export class LoginStore {
  readonly dir: string;
  readonly file: string;
  private readonly keyring: KeyringModule | null;

  constructor(options: LoginStoreOptions = {}) {
    this.dir = configDir(options.env);
    this.file = path.join(this.dir, 'login.json');
    this.keyring = options.keyring === undefined ? loadKeyring() : options.keyring;
  }

  private readFile(): Record<string, unknown> | undefined {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch {
      return undefined;
    }
    try {
      const parsed = JSON.parse(text) as unknown;
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }

  private entry() {
    if (!this.keyring) throw new Error('no keyring module');
    return new this.keyring.Entry(KEYRING_SERVICE, KEYRING_ACCOUNT);
  }

  /** The stored login, if any, and where it was found. Synchronous: a client's constructor reads it. */
  read(): ReadResult {
    const file = this.readFile();
    if (!file) return { status: 'missing' };
    if (file.storage === 'keyring') {
      const baseUrl = typeof file.baseUrl === 'string' ? file.baseUrl : undefined;
      if (!this.keyring)
        return {
          status: 'unreadable',
          storage: 'keyring',
          baseUrl,
          reason: 'it is in the OS keyring, and @napi-rs/keyring cannot be loaded here',
        };
      try {
        const text = this.entry().getPassword();
        const stored = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
        if (stored && isLogin(stored)) return { status: 'found', login: loginOf(stored), storage: 'keyring' };
        return { status: 'missing' };
      } catch (err) {
        return {
          status: 'unreadable',
          storage: 'keyring',
          baseUrl,
          reason: `the OS keyring answered: ${(err as Error).message}`,
        };
      }
    }
    if (isLogin(file)) return { status: 'found', login: loginOf(file), storage: 'file' };
    return { status: 'unreadable', storage: 'file', baseUrl: undefined, reason: `${this.file} is not a login` };
  }

  /** Writes `content` to the file, 0600, replacing it whole (never a half-written login). */
  private writeFile(content: Record<string, unknown>): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, this.file);
  }

  /**
   * Stores `login`: in the keyring when it answers, else in the file. `warning` says why
   * the file was used when a keyring was wanted.
   */
  write(login: Login, storage?: Storage): { storage: Storage; warning?: string } {
    let warning: string | undefined;
    if (storage !== 'file') {
      if (this.keyring) {
        try {
          this.entry().setPassword(JSON.stringify(login));
          this.writeFile({ version: 1, storage: 'keyring', baseUrl: login.baseUrl, clientId: login.clientId });
          return { storage: 'keyring' };
        } catch (err) {
          warning = `the OS keyring is not available (${(err as Error).message})`;
        }
      } else warning = 'the OS keyring module (@napi-rs/keyring) could not be loaded';
    }
    this.writeFile({ version: 1, storage: 'file', ...login });
    return {
      storage: 'file',
      ...(warning && { warning: `${warning}: the login is stored in ${this.file} (mode 0600)` }),
    };
  }

  /** Forgets the login, wherever it is. */
  remove(): void {
    const file = this.readFile();
    if (file?.storage === 'keyring' && this.keyring) {
      try {
        this.entry().deletePassword();
      } catch {
        // already gone, or the keyring is away: the pointer below is removed anyway
      }
    }
    rmSync(this.file, { force: true });
  }

  /** Holds the refresh lock (a file created exclusively) while `work` runs: one process refreshes at a time. */
  private async locked<T>(work: () => Promise<T>): Promise<T> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const lock = path.join(this.dir, 'login.lock');
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        closeSync(openSync(lock, 'wx', 0o600));
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        // A lock older than 30 s belongs to a process that died while refreshing.
        try {
          if (Date.now() - statSync(lock).mtimeMs > 30_000) rmSync(lock, { force: true });
        } catch {
          // removed meanwhile
        }
        if (Date.now() > deadline) throw new LoginError(`${lock} is held by another process; remove it if none runs`);
        await sleep(100);
      }
    }
    try {
      return await work();
    } finally {
      rmSync(lock, { force: true });
    }
  }

  /**
   * A login whose access token has at least REFRESH_AHEAD_MS left: refreshed (and stored)
   * when it has less. A refresh token is spent by its use, and the gateway revokes the
   * whole family when a spent one comes back, so processes refresh one at a time and each
   * reads the store again under the lock (another may have refreshed meanwhile).
   */
  async fresh(fetchImpl: typeof fetch = fetch, now = Date.now): Promise<Login> {
    const current = this.read();
    if (current.status !== 'found') throw new LoginError('No stored login: sign in with `wap login`');
    if (current.login.expiresAt - now() > REFRESH_AHEAD_MS) return current.login;
    return this.locked(async () => {
      const again = this.read();
      if (again.status !== 'found') throw new LoginError('The stored login was removed: sign in with `wap login`');
      if (again.login.expiresAt - now() > REFRESH_AHEAD_MS) return again.login;
      const login = again.login;
      const res = await fetchImpl(login.tokenEndpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: login.refreshToken,
          client_id: login.clientId,
        }),
        signal: AbortSignal.timeout(30_000),
      });
      const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
      if (!res.ok || typeof body.access_token !== 'string' || typeof body.refresh_token !== 'string')
        throw new LoginError(
          `The stored login could not be refreshed (${res.status} ${String(body.error ?? '')}): sign in again with \`wap login\``,
        );
      const refreshed: Login = {
        ...login,
        accessToken: body.access_token,
        refreshToken: body.refresh_token,
        expiresAt: now() + Number(body.expires_in ?? 3600) * 1000,
        ...(typeof body.scope === 'string' && { scope: body.scope }),
      };
      this.write(refreshed, again.storage);
      return refreshed;
    });
  }
}
