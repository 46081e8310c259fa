// What a submit checks of the secrets, integrations and purchases it grants
// (docs/secrets.md), before the run is written: a card number in the task,
// handles past the per-run limit, names that do not exist in the workspace,
// and a card without a spend cap. Answers the grants to write with the run.
import { ApiError } from '@wap/errors';
import type { agent } from '@wap/proto';
import { containsCardNumber } from '../domain/cards.js';
import type { NewGrants } from '../store/grants.js';
import type { AgentRpcDeps } from './deps.js';
import { invalid, parseHandles, parseIntegrationIds, parsePurchases } from './parse.js';

export async function checkGrants(
  deps: Pick<AgentRpcDeps, 'config' | 'secrets' | 'integrationStore'>,
  req: agent.SubmitRunRequest,
  task: string,
): Promise<NewGrants> {
  // Nothing about the task is echoed: not where the number sits, not its digits.
  if (containsCardNumber(task)) throw new ApiError('card_number_in_task');
  const handles = parseHandles(req.secretHandles);
  const limit = deps.config.AGENT_RUN_SECRETS_LIMIT;
  if (handles.length > limit) throw new ApiError('run_secrets_limit', { limit, requested: handles.length });
  const integrationIds = parseIntegrationIds(req.integrationIds);
  const purchases = parsePurchases(req.purchases);

  const found = new Map((await deps.secrets.byHandles(req.workspaceId, handles)).map((s) => [s.handle, s]));
  const secrets = handles.map((handle) => {
    const s = found.get(handle);
    if (!s) invalid(`secrets.${req.secretHandles.indexOf(handle)}`, 'no secret of this workspace has this handle');
    return s;
  });
  if (secrets.some((s) => s.kind === 'card') && !purchases)
    throw new ApiError('spend_cap_required', { field: 'purchases.spendCap' });

  const rows = new Map((await deps.integrationStore.byIds(req.workspaceId, integrationIds)).map((r) => [r.id, r]));
  const integrations = integrationIds.map((id) => {
    const row = rows.get(id);
    if (!row)
      invalid(
        `integrations.${req.integrationIds.findIndex((i) => i.toLowerCase() === id)}`,
        'no integration of this workspace has this id',
      );
    return { id, toolsHash: row.toolsHash };
  });
  return { secrets: secrets.map((s) => ({ handle: s.handle, id: s.id })), integrations, purchases };
}
