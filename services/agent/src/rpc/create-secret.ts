import { ApiError } from '@wap/errors';
import type { secrets } from '@wap/proto';
import { cardDigits } from '../domain/cards.js';
import { HANDLE, normaliseHost, SECRET_KINDS, type SecretKind, type SecretValue } from '../domain/secrets.js';
import { toSecret } from '../views/secret.js';
import type { AgentRpcDeps } from './deps.js';
import { invalid } from './parse.js';

/** Hosts one secret may list. */
export const MAX_SECRET_DOMAINS = 20;
/** The longest value of any kind, in characters. */
const MAX_VALUE_CHARS = 8_192;

/**
 * secrets.CreateSecret: a value under a handle new to the workspace, sealed
 * (docs/secrets.md). A card's security code is refused, never stored.
 */
export function createSecret({ secrets: store }: AgentRpcDeps) {
  return async (req: secrets.CreateSecretRequest): Promise<secrets.CreateSecretResponse> => {
    if (!req.workspaceId) invalid('workspaceId', 'required');
    const parsed = parseSecret(req);
    if (!store.configured) throw new ApiError('capability_unavailable', { capability: 'secrets' });
    const created = await store.create(req.workspaceId, parsed);
    if (!created) invalid('handle', 'a secret of this workspace already has this handle: delete it first');
    return { $typeName: 'wap.agent.v1.CreateSecretResponse', secret: toSecret(created) };
  };
}

export function parseSecret(req: secrets.CreateSecretRequest) {
  if (!HANDLE.test(req.handle))
    invalid('handle', 'letters, digits, `_`, `.` and `-`, 1 to 64 characters, starting with a letter or digit');
  if (!(SECRET_KINDS as readonly string[]).includes(req.kind)) invalid('kind', `one of ${SECRET_KINDS.join(', ')}`);
  if (req.domains.length === 0) invalid('domains', 'at least one host where the secret may be filled');
  if (req.domains.length > MAX_SECRET_DOMAINS) invalid('domains', `at most ${MAX_SECRET_DOMAINS}`);
  const domains = req.domains.map(
    (d, i) =>
      normaliseHost(d) ?? invalid(`domains.${i}`, 'a host name such as shop.example.com, without scheme, port or path'),
  );
  return { handle: req.handle, domains: [...new Set(domains)], value: parseValue(req.kind as SecretKind, req.value) };
}

function parseValue(kind: SecretKind, value: secrets.CreateSecretRequest['value']): SecretValue {
  const expected = { card: 'card', login: 'login', env: 'text' }[kind];
  if (value.case !== expected) invalid('value', `a ${kind} secret's value is ${kindShape[kind]}`);
  switch (value.case) {
    case 'card': {
      const c = value.value;
      // Refused before anything else is looked at: a CVC is asked for per purchase and never kept.
      if (c.cvc) throw new ApiError('cvc_not_storable', { field: 'value.cvc' });
      const number = cardDigits(c.number);
      if (!number) invalid('value.number', 'a card number of 13 to 19 digits whose check digit is right');
      if (!(c.expMonth >= 1 && c.expMonth <= 12)) invalid('value.expMonth', '1 to 12');
      if (!(c.expYear >= 2000 && c.expYear <= 2100)) invalid('value.expYear', 'a four-digit year');
      if (c.holder.length > 200) invalid('value.holder', 'at most 200 characters');
      return { kind: 'card', number, expMonth: c.expMonth, expYear: c.expYear, holder: c.holder.trim() };
    }
    case 'login': {
      const l = value.value;
      if (!l.username || l.username.length > 512) invalid('value.username', '1 to 512 characters');
      if (!l.password || l.password.length > MAX_VALUE_CHARS)
        invalid('value.password', `1 to ${MAX_VALUE_CHARS} characters`);
      return { kind: 'login', username: l.username, password: l.password };
    }
    case 'text':
      if (!value.value || value.value.length > MAX_VALUE_CHARS) invalid('value', `1 to ${MAX_VALUE_CHARS} characters`);
      return { kind: 'env', value: value.value };
    default:
      return invalid('value', 'required');
  }
}

const kindShape: Record<SecretKind, string> = {
  card: '{ number, expMonth, expYear, holder? }',
  login: '{ username, password }',
  env: 'a string',
};
