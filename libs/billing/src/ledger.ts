import { ledger } from '@wap/proto';
import { type Closable, createClient, type ServiceClient } from '@wap/rpc';

export type LedgerClient = ServiceClient<(typeof ledger.LedgerService)['method']> & Closable;

/** A client of the billing-ledger at `address` (host:port or dns:///name:port), sending the fleet's SERVICE_TOKEN. */
export const ledgerClient = (address: string, token: string): LedgerClient =>
  createClient(ledger.LedgerService, address, { token });
