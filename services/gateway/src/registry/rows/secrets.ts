// Secrets (docs/secrets.md): credentials stored under handles that a run may
// fill but nothing reads back, served by the agent service. Every row here is
// free (docs/billing.md); no answer carries a value.
import type { secrets } from '@wap/proto';
import { z } from 'zod';
import { capability } from '../types.js';
import { isoTime } from '../usage-shape.js';

const secretObject = z.object({
  id: z.string(),
  handle: z.string().describe('What a run names it by (`secrets` of POST /v1/agent).'),
  kind: z.enum(['card', 'login', 'env']),
  domains: z.array(z.string()).describe('Hosts where it may be filled; each also covers its subdomains.'),
  last4: z.string().nullable().describe("A card's last four digits; null for other kinds."),
  createdAt: z.string().describe('ISO 8601.'),
});

const toSecretJson = (s: secrets.Secret | undefined) => ({
  id: s?.id ?? '',
  handle: s?.handle ?? '',
  kind: (s?.kind || 'env') as 'card' | 'login' | 'env',
  domains: s?.domains ?? [],
  last4: s?.last4 || null,
  createdAt: isoTime(s?.createdAt) ?? '',
});

const cardValue = z.strictObject({
  number: z.string().min(1).max(40).describe('13 to 19 digits; spaces and dashes between groups are fine.'),
  expMonth: z.number().int().min(1).max(12),
  expYear: z.number().int().min(2000).max(2100),
  holder: z.string().max(200).optional().describe('The name on the card.'),
  cvc: z
    .string()
    .max(8)
    .optional()
    .describe('Never stored: a card sent with one is cvc_not_storable (it is asked for per purchase).'),
});

const loginValue = z.strictObject({
  username: z.string().min(1).max(512),
  password: z.string().min(1).max(8_192),
});

export const secretsCreateRow = capability({
  name: 'secrets.create',
  method: 'post',
  path: '/v1/secrets',
  tag: 'Secrets',
  summary: 'Store a secret under a handle',
  description:
    'A card, a login or an env value (a token, a key), stored encrypted under a handle new to the workspace; a run that names the handle (POST /v1/agent `secrets`) may fill it on the listed domains, once per fill, and nothing ever reads the value back: no route, event, log line, replay or prompt. `value` is an object `{ number, expMonth, expYear, holder? }` for a card (the number must pass its check digit; only its last four are kept apart), `{ username, password }` for a login, a string for env. A CVC is refused (cvc_not_storable); a handle in use is bad_request. Free.',
  backend: 'agent',
  bills: [],
  mcpTool: 'service_secrets_create',
  request: {
    body: z.strictObject({
      handle: z
        .string()
        .min(1)
        .max(64)
        .describe('Letters, digits, `_`, `.` and `-`; what tasks, runs and integrations name it by.'),
      kind: z.enum(['card', 'login', 'env']),
      value: z.union([z.string().min(1).max(8_192), cardValue, loginValue]).describe('Shaped by `kind` (see above).'),
      domains: z
        .array(z.string().min(1).max(253))
        .min(1)
        .max(20)
        .describe('Hosts where it may be filled (each covering its subdomains), e.g. `shop.example.com`.'),
    }),
  },
  example: {
    handle: 'shop-login',
    kind: 'login',
    value: { username: 'ada@example.com', password: 'correct horse battery staple' },
    domains: ['shop.example.com'],
  },
  answer: { kind: 'json', status: 201 },
  response: z.object({ success: z.literal(true), secret: secretObject }),
  errors: ['cvc_not_storable'],
  handler: async ({ principal, upstreams, signal }, { body }) => {
    const v = body.value;
    const value =
      typeof v === 'string'
        ? { case: 'text' as const, value: v }
        : 'number' in v
          ? {
              case: 'card' as const,
              value: {
                number: v.number,
                expMonth: v.expMonth,
                expYear: v.expYear,
                holder: v.holder ?? '',
                cvc: v.cvc ?? '',
              },
            }
          : { case: 'login' as const, value: { username: v.username, password: v.password } };
    const out = await upstreams.secrets.createSecret(
      { workspaceId: principal.workspaceId, handle: body.handle, kind: body.kind, domains: body.domains, value },
      { signal },
    );
    return { success: true as const, secret: toSecretJson(out.secret) };
  },
});

export const secretsListRow = capability({
  name: 'secrets.list',
  method: 'get',
  path: '/v1/secrets',
  tag: 'Secrets',
  summary: "The workspace's secrets, without their values",
  description: 'Ids, handles, kinds, domains and, for cards, the last four digits; oldest first. Free.',
  backend: 'agent',
  bills: [],
  mcpTool: 'service_secrets_list',
  request: {},
  response: z.object({ success: z.literal(true), secrets: z.array(secretObject) }),
  errors: [],
  handler: async ({ principal, upstreams, signal }) => {
    const out = await upstreams.secrets.listSecrets({ workspaceId: principal.workspaceId }, { signal });
    return { success: true as const, secrets: out.secrets.map(toSecretJson) };
  },
});

export const secretsDeleteRow = capability({
  name: 'secrets.delete',
  method: 'delete',
  path: '/v1/secrets/{id}',
  tag: 'Secrets',
  summary: 'Delete a secret',
  description:
    'Deletes the value and the record of which runs used it. Effective from the next fill, in runs already going too (run_secret_undeliverable there); integrations that authenticate with it stay connected but cannot be reached until a secret with its handle exists again. Free.',
  backend: 'agent',
  bills: [],
  mcpTool: 'service_secrets_delete',
  request: { params: z.strictObject({ id: z.string().min(1).max(100).describe('The secret id.') }) },
  response: z.object({ success: z.literal(true) }),
  errors: ['not_found'],
  handler: async ({ principal, upstreams, signal }, { params }) => {
    await upstreams.secrets.deleteSecret({ workspaceId: principal.workspaceId, secretId: params.id }, { signal });
    return { success: true as const };
  },
});
