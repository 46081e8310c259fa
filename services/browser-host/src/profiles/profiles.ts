// Profiles as the host serves them (docs/profiles.md): created with a pinned
// exit, attached to one session at a time under a lease, their state
// restored into the session's fresh user-data dir and saved from it when the
// session ends cleanly.
import { ApiError } from '@wap/errors';
import type { Logger } from '@wap/log';
import { seal, unseal } from '@wap/sealed';
import { DIRECT, type Exit, type ExitRequest, type PinnedExit, pickExit } from '../domain/exits.js';
import { exitReachable } from '../egress/exit-reachable.js';
import type { ProfileFilter, ProfileRow, ProfileStore } from '../store/profiles.js';
import { pack, unpack } from './archive.js';

/** What the sealed blobs are: the key derivation's purpose (a profile's key opens nothing else). */
export const PROFILE_STATE = 'wap profile state v1';

export interface ProfileSettings {
  /** The fleet's secret the states are sealed under (PROFILE_KEY). */
  key: string;
  /** The most a state may take stored (PROFILE_MAX_BYTES). */
  maxBytes: number;
  /** How long a lease lasts without renewal (PROFILE_LEASE_TTL). */
  leaseTtlMs: number;
  exits: readonly Exit[];
}

/** A profile held by a session: what it restores, and where its traffic goes. */
export interface Attached {
  profile: ProfileRow;
  /** The exit its traffic leaves through; undefined for direct. */
  exit: Exit | undefined;
  /** Writes the stored state, if any, into a fresh user-data dir. */
  restore(dir: string): Promise<void>;
  /** Saves the dir's state (undefined: keep the last good one) and lets the lease go; once, later calls do nothing. */
  release(dir: string | undefined): Promise<void>;
}

export class Profiles {
  constructor(
    private readonly store: ProfileStore,
    private readonly settings: ProfileSettings,
    private readonly log: Logger,
  ) {}

  async create(workspaceId: string, label: string, asked: ExitRequest | undefined): Promise<ProfileRow> {
    const exit: PinnedExit | undefined = pickExit(this.settings.exits, asked);
    // An exit no configuration names is the caller's to fix; one that is down is exit_unavailable, at attach.
    if (!exit) {
      const configured = this.settings.exits.map((e) => `${e.id} (${e.kind}, ${e.region})`).join(', ') || 'none';
      throw new ApiError('bad_request', {
        issues: [{ path: 'exit', message: `no configured exit matches; configured: ${configured}, or direct` }],
      });
    }
    return this.store.create({ workspaceId, label, exit });
  }

  list(filter: ProfileFilter): Promise<ProfileRow[]> {
    return this.store.list(filter);
  }

  async get(workspaceId: string, id: string): Promise<ProfileRow> {
    const row = await this.store.get(workspaceId, id);
    if (!row) throw new ApiError('profile_not_found');
    return row;
  }

  async delete(workspaceId: string, id: string): Promise<void> {
    const outcome = await this.store.delete(workspaceId, id);
    if (outcome === 'not_found') throw new ApiError('profile_not_found');
    if (outcome === 'in_use') throw new ApiError('profile_in_use');
  }

  /**
   * The profile's lease for the session (profile_in_use when another holds
   * it; profile_not_found when it is not the workspace's), its exit checked
   * (exit_unavailable when it is gone from the configuration or does not
   * answer: never a fall back to direct).
   */
  async attach(workspaceId: string, id: string, holder: { sessionId: string; host: string }): Promise<Attached> {
    const taken = await this.store.acquire(workspaceId, id, holder, this.settings.leaseTtlMs);
    if (taken === 'not_found') throw new ApiError('profile_not_found');
    if (taken === 'in_use') throw new ApiError('profile_in_use');
    const profile = taken;
    const letGo = () => this.store.release(profile.id, holder.sessionId).then(() => undefined);
    let exit: Exit | undefined;
    if (profile.exitId !== DIRECT.id) {
      exit = this.settings.exits.find((e) => e.id === profile.exitId);
      if (!exit || !(await exitReachable(exit))) {
        await letGo().catch(() => undefined);
        throw new ApiError('exit_unavailable', { exit: profile.exitId });
      }
    }
    let released = false;
    return {
      profile,
      exit,
      restore: async (dir) => {
        const sealed = await this.store.state(profile.id);
        if (!sealed) return;
        await unpack(unseal(this.settings.key, PROFILE_STATE, profile.id, sealed), dir);
      },
      release: async (dir) => {
        if (released) return;
        released = true;
        let sealed: Buffer | undefined;
        if (dir) {
          sealed = seal(this.settings.key, PROFILE_STATE, profile.id, await pack(dir));
          if (sealed.length > this.settings.maxBytes) {
            this.log.warn(
              { profileId: profile.id, bytes: sealed.length, maxBytes: this.settings.maxBytes },
              'profile state over PROFILE_MAX_BYTES: not saved, the last good one stays',
            );
            sealed = undefined;
          }
        }
        const outcome = await this.store.release(profile.id, holder.sessionId, sealed);
        if (outcome === 'lost')
          this.log.warn(
            { profileId: profile.id, sessionId: holder.sessionId },
            'profile lease lapsed; state not saved',
          );
      },
    };
  }

  /** Keeps the leases of these live sessions (the host's heartbeat). */
  renew(sessionIds: readonly string[]): Promise<void> {
    return this.store.renew(sessionIds, this.settings.leaseTtlMs);
  }
}
