// The LedgerService implementation: one handler per RPC, each in its own file.
import type { ledger } from '@wap/proto';
import type { ServiceImpl } from '@wap/rpc';
import { acquireSlot } from './acquire-slot.js';
import { authorize } from './authorize.js';
import { charge } from './charge.js';
import { credits } from './credits.js';
import type { LedgerDeps } from './deps.js';
import { ensureAccount } from './ensure-account.js';
import { grant } from './grant.js';
import { listCalls } from './list-calls.js';
import { listSlots } from './list-slots.js';
import { releaseSlot } from './release-slot.js';
import { renewSlot } from './renew-slot.js';
import { settle } from './settle.js';
import { settleBatch } from './settle-batch.js';
import { usage } from './usage.js';
import { voidHold } from './void.js';

export type { LedgerDeps } from './deps.js';

export function ledgerService(deps: LedgerDeps): ServiceImpl<(typeof ledger.LedgerService)['method']> {
  return {
    ensureAccount: ensureAccount(deps),
    grant: grant(deps),
    authorize: authorize(deps),
    settle: settle(deps),
    settleBatch: settleBatch(deps),
    void: voidHold(deps),
    charge: charge(deps),
    credits: credits(deps),
    usage: usage(deps),
    listCalls: listCalls(deps),
    acquireSlot: acquireSlot(deps),
    renewSlot: renewSlot(deps),
    releaseSlot: releaseSlot(deps),
    listSlots: listSlots(deps),
  };
}
