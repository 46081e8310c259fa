// The AgentService implementation: one handler per RPC, each in its own file.
import type { agent } from '@wap/proto';
import type { ServiceImpl } from '@wap/rpc';
import { addFile } from './add-file.js';
import { answerRun } from './answer-run.js';
import { cancelRun } from './cancel-run.js';
import { controlAllowed } from './control-allowed.js';
import { controlRun } from './control-run.js';
import type { AgentRpcDeps } from './deps.js';
import { getRun } from './get-run.js';
import { listEvents } from './list-events.js';
import { listRecords } from './list-records.js';
import { submitRun } from './submit-run.js';

export type { AgentRpcDeps } from './deps.js';

export function agentService(deps: AgentRpcDeps): ServiceImpl<(typeof agent.AgentService)['method']> {
  return {
    submitRun: submitRun(deps),
    getRun: getRun(deps),
    listEvents: listEvents(deps),
    listRecords: listRecords(deps),
    cancelRun: cancelRun(deps),
    controlRun: controlRun(deps),
    answerRun: answerRun(deps),
    addFile: addFile(deps),
    controlAllowed: controlAllowed(deps),
  };
}
