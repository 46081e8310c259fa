// Profiles (docs/profiles.md): durable browser identities with a pinned exit
// and stored browser state, served by browser-host (any replica: they share
// its database). Profile writes are free (docs/billing.md).
import type { browser } from '@wap/proto';
import { z } from 'zod';
import { asQueryIssues, nextCursor, pageQuery } from '../paging.js';
import { capability } from '../types.js';
import { isoTime } from '../usage-shape.js';

const profileObject = z.object({
  id: z.string().describe('Minted by the server; pass as `profile` to GET /connect.'),
  label: z.string(),
  exit: z
    .object({
      id: z.string().describe('A configured exit, or `direct`.'),
      kind: z.enum(['residential', 'datacenter', 'direct']),
      region: z.string().nullable(),
    })
    .describe("Where the profile's traffic leaves; pinned at creation."),
  createdAt: z.string().describe('ISO 8601.'),
  lastUsedAt: z.string().nullable().describe('When a session last attached it; null before.'),
  storageBytes: z.number().int().describe('Its stored state (cookies, storage, IndexedDB…), compressed and encrypted.'),
  inUse: z.boolean().describe('A live session holds it now (a second attach is profile_in_use).'),
});

const toProfileJson = (p: browser.Profile | undefined) => {
  if (!p) throw new Error('browser-host answered no profile');
  return {
    id: p.id,
    label: p.label,
    exit: {
      id: p.exitId,
      kind: (['residential', 'datacenter'].includes(p.exitKind) ? p.exitKind : 'direct') as
        | 'residential'
        | 'datacenter'
        | 'direct',
      region: p.exitRegion || null,
    },
    createdAt: isoTime(p.createdAt) ?? '',
    lastUsedAt: isoTime(p.lastUsedAt),
    storageBytes: Number(p.sizeBytes),
    inUse: p.inUse,
  };
};

const params = z.strictObject({ id: z.string().min(1).max(100).describe('The profile id.') });

export const profilesCreateRow = capability({
  name: 'profiles.create',
  method: 'post',
  path: '/v1/profiles',
  tag: 'Profiles',
  summary: 'Create a profile',
  description:
    'A durable browser identity: log in once in a session that attaches it (`GET /connect?profile=<id>`) and stay logged in across sessions, on any browser host, seen from the same exit. Its exit is pinned now: by `exit.id`, or the first exit of `exit.region` (and `exit.kind`); without `exit`, or with no exit configured, `direct`. bad_request when no configured exit matches. Free.',
  backend: 'browser-host',
  bills: [],
  mcpTool: 'service_profiles_create',
  request: {
    body: z.strictObject({
      label: z.string().min(1).max(200).describe('Your name for it; `GET /v1/profiles?label=` filters on it.'),
      exit: z
        .strictObject({
          id: z.string().min(1).max(63).optional().describe('A configured exit, or `direct`.'),
          region: z.string().min(1).max(64).optional(),
          kind: z.enum(['residential', 'datacenter']).optional(),
        })
        .optional(),
    }),
  },
  example: { label: 'shop-account-1', exit: { region: 'eu' } },
  response: z.object({ success: z.literal(true), profile: profileObject }),
  errors: ['capability_unavailable'],
  handler: async ({ principal, upstreams, signal }, { body }) => {
    const out = await upstreams.browser.createProfile(
      {
        workspaceId: principal.workspaceId,
        label: body.label,
        exit: { id: body.exit?.id ?? '', region: body.exit?.region ?? '', kind: body.exit?.kind ?? '' },
      },
      { signal },
    );
    return { success: true as const, profile: toProfileJson(out.profile) };
  },
});

export const profilesListRow = capability({
  name: 'profiles.list',
  method: 'get',
  path: '/v1/profiles',
  tag: 'Profiles',
  summary: "The workspace's profiles",
  description:
    'Newest first, a page at a time; `label` is a glob: `*` any run of characters, `?` one, every other character literal (`%` and `_` included). Free.',
  backend: 'browser-host',
  bills: [],
  mcpTool: 'service_profiles_list',
  request: {
    query: z.strictObject({
      label: z.string().max(200).optional().describe('A glob over labels, e.g. `shop-*`.'),
      ...pageQuery('Profiles', 20),
    }),
  },
  response: z.object({
    success: z.literal(true),
    profiles: z.array(profileObject),
    nextCursor,
  }),
  errors: ['capability_unavailable'],
  handler: async ({ principal, upstreams, signal }, { query: q }) => {
    const out = await upstreams.browser
      .listProfiles(
        {
          workspaceId: principal.workspaceId,
          ...(q.label !== undefined && { labelGlob: q.label }),
          limit: q.limit,
          cursor: q.cursor ?? '',
        },
        { signal },
      )
      .catch(asQueryIssues);
    return {
      success: true as const,
      profiles: out.profiles.map(toProfileJson),
      nextCursor: out.nextCursor || null,
    };
  },
});

export const profilesGetRow = capability({
  name: 'profiles.get',
  method: 'get',
  path: '/v1/profiles/{id}',
  tag: 'Profiles',
  summary: 'One profile',
  description:
    "Label, exit, creation time, last use, stored size and whether a session holds it. Another workspace's profile is profile_not_found. Free.",
  backend: 'browser-host',
  bills: [],
  mcpTool: 'service_profiles_get',
  request: { params },
  response: z.object({ success: z.literal(true), profile: profileObject }),
  errors: ['profile_not_found', 'capability_unavailable'],
  handler: async ({ principal, upstreams, signal }, { params: p }) => {
    const out = await upstreams.browser.getProfile({ workspaceId: principal.workspaceId, profileId: p.id }, { signal });
    return { success: true as const, profile: toProfileJson(out.profile) };
  },
});

export const profilesDeleteRow = capability({
  name: 'profiles.delete',
  method: 'delete',
  path: '/v1/profiles/{id}',
  tag: 'Profiles',
  summary: 'Delete a profile and its stored state',
  description:
    'Irreversible: its cookies and site data are deleted with it, no bytes left; then it is profile_not_found. A profile a live session holds is profile_in_use: end the session first. Free.',
  backend: 'browser-host',
  bills: [],
  mcpTool: 'service_profiles_delete',
  request: { params },
  response: z.object({ success: z.literal(true) }),
  errors: ['profile_not_found', 'profile_in_use', 'capability_unavailable'],
  handler: async ({ principal, upstreams, signal }, { params: p }) => {
    await upstreams.browser.deleteProfile({ workspaceId: principal.workspaceId, profileId: p.id }, { signal });
    return { success: true as const };
  },
});
