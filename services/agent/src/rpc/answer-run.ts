import { ApiError } from '@wap/errors';
import type { agent } from '@wap/proto';
import { sealText } from '@wap/sealed';
import { CVC_PURPOSE } from '../domain/secrets.js';
import { toRun } from '../views/run.js';
import type { AgentRpcDeps } from './deps.js';
import { invalid, MAX_ANSWER_CHARS, runRef } from './parse.js';

/**
 * agent.AnswerRun: the answer to a paused run's question, or (`approve`) a
 * person's decision on what it asked approval for; the run resumes.
 * It carries only the answer: the loop hands it to the model as the reply to
 * its own question, quoted as data, never as instructions.
 */
/** A CVC as it waits for its fill: sealed with the secrets' key for the run; never stored as given. */
function sealCvc(config: AgentRpcDeps['config'], approve: boolean, runId: string, cvc: string): string {
  if (!approve) invalid('cvc', 'only with an approval');
  if (!/^\d{3,4}$/.test(cvc)) invalid('cvc', '3 or 4 digits');
  const key = config.AGENT_SECRETS_KEY;
  if (!key) throw new ApiError('capability_unavailable', { capability: 'secrets' });
  return sealText(key, CVC_PURPOSE, runId, cvc);
}

export function answerRun({ store, pauses, wake, config }: AgentRpcDeps) {
  return async (req: agent.AnswerRunRequest): Promise<agent.AnswerRunResponse> => {
    const ref = runRef(req);
    if (req.approve !== undefined) {
      // A decision, not words: the run asked a person to approve a purchase or a gated action.
      if (req.answer.trim()) invalid('answer', 'give either an answer or approve, not both');
      const sealedCvc = req.cvc ? sealCvc(config, req.approve, ref.runId, req.cvc) : undefined;
      const out = await pauses.approve(ref.workspaceId, ref.runId, req.approve, sealedCvc);
      if (out === 'not_found') throw new ApiError('not_found');
      if (out === 'no_open_purchase') throw new ApiError('no_open_purchase');
      wake(out.id);
      return { $typeName: 'wap.agent.v1.AnswerRunResponse', run: toRun(out, await store.files(out.id)) };
    }
    const answer = req.answer.trim();
    if (!answer) invalid('answer', 'required');
    if (answer.length > MAX_ANSWER_CHARS) invalid('answer', `longer than ${MAX_ANSWER_CHARS} characters`);
    const out = await pauses.answer(ref.workspaceId, ref.runId, answer);
    if (out === 'not_found') throw new ApiError('not_found');
    if (out === 'not_asked') {
      // The run stopped waiting (it went on, ended, or waits for an approval, which takes approve).
      const row = await store.get(ref.workspaceId, ref.runId);
      const status =
        row?.status === 'paused' && row.pausedFor ? `paused_for_${row.pausedFor}` : (row?.status ?? 'unknown');
      throw new ApiError('answer_lost', { runId: ref.runId, status });
    }
    wake(out.id);
    return { $typeName: 'wap.agent.v1.AnswerRunResponse', run: toRun(out, await store.files(out.id)) };
  };
}
