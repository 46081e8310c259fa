// The operator's exits (docs/profiles.md): upstream proxies a profile's
// traffic leaves through, each with a kind and a region. Pure: whether an
// exit answers is egress/exit-reachable.ts.
import { z } from 'zod';
import { type Place, placeFields } from './exit-place.js';

export const EXIT_KINDS = ['residential', 'datacenter'] as const;
export type ExitKind = (typeof EXIT_KINDS)[number];

/** Its place (`country`, `timezone`, `locale`), when the operator knows it: what its sessions' pages see (exit-place.ts). */
export interface Exit extends Place {
  id: string;
  kind: ExitKind;
  region: string;
  /** http:// or socks5:// upstream proxy, credentials in it. Never logged. */
  url: string;
}

/** What a profile pins: an exit, or `direct` (no exit). */
export interface PinnedExit {
  id: string;
  kind: ExitKind | 'direct';
  region: string;
}

export const DIRECT: PinnedExit = { id: 'direct', kind: 'direct', region: '' };

const exitSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,62}$/)
    .refine((id) => id !== 'direct', '`direct` is not an exit'),
  kind: z.enum(EXIT_KINDS),
  region: z.string().min(1).max(64),
  url: z.string().refine((u) => {
    try {
      const p = new URL(u).protocol;
      return p === 'http:' || p === 'socks5:' || p === 'socks:' || p === 'socks4:';
    } catch {
      return false;
    }
  }, 'an http:// or socks5:// URL'),
  ...placeFields,
});

/** EXITS as configured: a JSON array; empty when unset. Throws what is wrong, naming the exit but never its URL. */
export function parseExits(json: string | undefined): Exit[] {
  if (!json?.trim()) return [];
  const parsed = z.array(exitSchema).safeParse(JSON.parse(json));
  if (!parsed.success)
    throw new Error(`EXITS: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const ids = new Set<string>();
  for (const e of parsed.data) {
    if (ids.has(e.id)) throw new Error(`EXITS: exit ${e.id} is listed twice`);
    ids.add(e.id);
  }
  return parsed.data;
}

/** What a create asks for: an exit by id, the first of a region (and kind), or nothing (direct). */
export interface ExitRequest {
  id?: string;
  region?: string;
  kind?: ExitKind;
}

/** The exit a new profile pins; undefined when none configured matches what was asked. */
export function pickExit(exits: readonly Exit[], asked: ExitRequest | undefined): PinnedExit | undefined {
  if (!asked || (!asked.id && !asked.region && !asked.kind)) return DIRECT;
  if (asked.id === 'direct') return asked.region || asked.kind ? undefined : DIRECT;
  const found = exits.find(
    (e) =>
      (!asked.id || e.id === asked.id) &&
      (!asked.region || e.region === asked.region) &&
      (!asked.kind || e.kind === asked.kind),
  );
  return found && { id: found.id, kind: found.kind, region: found.region };
}
