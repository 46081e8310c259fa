// The secrets table (docs/secrets.md). Values go in sealed (domain/envelope.ts)
// and come out only inside this service: to the run loop through a redeemed
// intent (store/intents.ts), to an integration's connection as its bearer
// token, and to the answer check as a yes or no. Every read a caller reaches
// selects the listing's fields alone.
import { randomUUID } from 'node:crypto';
import { ApiError } from '@wap/errors';
import { type KeyEncryptionKey, openEnvelope, sealEnvelope } from '../domain/envelope.js';
import { reveals, type SecretKind, type SecretValue } from '../domain/secrets.js';
import type { AgentDatabase } from './database.js';

/** A secret as anyone outside the store may see it: never its value. */
export interface SecretView {
  id: string;
  workspaceId: string;
  handle: string;
  kind: SecretKind;
  domains: string[];
  last4: string | null;
  createdAt: Date;
}

export interface NewSecret {
  handle: string;
  domains: string[];
  value: SecretValue;
}

const VIEW = {
  id: true,
  workspaceId: true,
  handle: true,
  kind: true,
  domains: true,
  last4: true,
  createdAt: true,
} as const;

/** The context both layers of a secret's envelope bind: a row's bytes open nothing elsewhere. */
export const secretContext = (workspaceId: string, id: string) => `wap secret ${workspaceId}/${id}`;

export class SecretStore {
  /** `kek` unset (no AGENT_SECRETS_KEY): nothing can be stored or opened; listing and deleting still work. */
  constructor(
    private readonly db: AgentDatabase,
    private readonly kek: KeyEncryptionKey | undefined,
  ) {}

  get configured(): boolean {
    return this.kek !== undefined;
  }

  /** Stores a value under a handle new to the workspace; undefined when the handle is taken. */
  async create(workspaceId: string, secret: NewSecret): Promise<SecretView | undefined> {
    const kek = this.requireKek();
    const id = randomUUID();
    const envelope = await sealEnvelope(kek, secretContext(workspaceId, id), Buffer.from(JSON.stringify(secret.value)));
    const last4 = secret.value.kind === 'card' ? secret.value.number.slice(-4) : null;
    const { count } = await this.db.secret.createMany({
      data: [
        {
          id,
          workspaceId,
          handle: secret.handle,
          kind: secret.value.kind,
          domains: secret.domains,
          last4,
          sealed: new Uint8Array(envelope.sealed),
          wrappedKey: new Uint8Array(envelope.wrappedKey),
          kekId: envelope.kekId,
        },
      ],
      skipDuplicates: true,
    });
    if (count === 0) return undefined;
    return this.get(workspaceId, id) as Promise<SecretView>;
  }

  async get(workspaceId: string, id: string): Promise<SecretView | null> {
    return (await this.db.secret.findFirst({ where: { id, workspaceId }, select: VIEW })) as SecretView | null;
  }

  /** The workspace's secrets, oldest first. */
  async list(workspaceId: string): Promise<SecretView[]> {
    return (await this.db.secret.findMany({
      where: { workspaceId },
      select: VIEW,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    })) as SecretView[];
  }

  /** The secrets of the workspace with these handles (those that exist). */
  async byHandles(workspaceId: string, handles: string[]): Promise<SecretView[]> {
    if (handles.length === 0) return [];
    return (await this.db.secret.findMany({
      where: { workspaceId, handle: { in: handles } },
      select: VIEW,
    })) as SecretView[];
  }

  /**
   * Deletes the value with its intents and the runs' links to it (cascades), so
   * a run already going finds it gone at its next fill. False for none or another workspace's.
   */
  async delete(workspaceId: string, id: string): Promise<boolean> {
    const { count } = await this.db.secret.deleteMany({ where: { id, workspaceId } });
    return count > 0;
  }

  /** A secret with its value, for this service's own use of it (an integration's bearer token). */
  async open(workspaceId: string, handle: string): Promise<{ view: SecretView; value: SecretValue } | undefined> {
    const row = await this.db.secret.findUnique({ where: { workspaceId_handle: { workspaceId, handle } } });
    if (!row) return undefined;
    return { view: viewOf(row), value: await this.decrypt(row) };
  }

  /**
   * The handle of a secret granted to the run whose value `text` shows, if
   * any: the check before an answer or a record leaves the run
   * (`secret_in_answer`). Answers a handle, never the value.
   */
  async revealedIn(runId: string, text: string): Promise<string | undefined> {
    if (!this.kek) return undefined;
    const rows = await this.db.secret.findMany({ where: { runs: { some: { runId } } } });
    for (const row of rows) if (reveals(await this.decrypt(row), text)) return row.handle;
    return undefined;
  }

  /** Opens a row's value; only this store and the intents' redeem call it. */
  async decrypt(row: SealedRow): Promise<SecretValue> {
    const plain = await openEnvelope(this.requireKek(), secretContext(row.workspaceId, row.id), {
      sealed: Buffer.from(row.sealed),
      wrappedKey: Buffer.from(row.wrappedKey),
      kekId: row.kekId,
    });
    return JSON.parse(plain.toString('utf8')) as SecretValue;
  }

  private requireKek(): KeyEncryptionKey {
    if (!this.kek) throw new ApiError('capability_unavailable', { capability: 'secrets' });
    return this.kek;
  }
}

/** What opening a value needs of its row. */
export interface SealedRow {
  id: string;
  workspaceId: string;
  sealed: Uint8Array;
  wrappedKey: Uint8Array;
  kekId: string;
}

const viewOf = (row: Omit<SecretView, 'kind'> & { kind: string }): SecretView => ({
  id: row.id,
  workspaceId: row.workspaceId,
  handle: row.handle,
  kind: row.kind as SecretKind,
  domains: row.domains,
  last4: row.last4,
  createdAt: row.createdAt,
});
