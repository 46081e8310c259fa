// How secrets and integrations read back: ids, handles, kinds, domains, a
// card's last four, tools. Never a value: these views are built from rows
// that never held one (store/secrets.ts selects the listing's fields alone).
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { integrations, secrets } from '@wap/proto';
import type { IntegrationRow } from '../store/integrations.js';
import type { SecretView } from '../store/secrets.js';

export const toSecret = (s: SecretView) =>
  create(secrets.SecretSchema, {
    id: s.id,
    handle: s.handle,
    kind: s.kind,
    domains: s.domains,
    last4: s.last4 ?? '',
    createdAt: timestampFromDate(s.createdAt),
  });

export const toIntegration = (i: IntegrationRow) =>
  create(integrations.IntegrationSchema, {
    id: i.id,
    url: i.url,
    secretHandle: i.secretHandle,
    serverName: i.serverName,
    serverVersion: i.serverVersion,
    tools: i.tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchemaJson: JSON.stringify(t.inputSchema ?? {}),
    })),
    createdAt: timestampFromDate(i.createdAt),
    checkedAt: timestampFromDate(i.checkedAt),
    changedAt: i.changedAt ? timestampFromDate(i.changedAt) : undefined,
  });
