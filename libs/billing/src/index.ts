// The billing client every service charges through: the price list, and holds
// for per-unit, per-block and metered work against the billing-ledger.
export {
  type BlockSettle,
  blockSettle,
  blockSettles,
  crawlBlocks,
  PAGES_PER_BLOCK,
  type PageHold,
} from './blocks.js';
export { billed, type Charge, type MeterInit, NO_USAGE, toMeters } from './holds.js';
export { type LedgerClient, ledgerClient } from './ledger.js';
export { MeteredHold, type MeteredSettings, type MeteredState, type PendingCharge, recoverMetered } from './metered.js';
export {
  creditsDown,
  creditsUp,
  exactUnit,
  MC_PER_CREDIT,
  METERS,
  type MeterName,
  type MeterQuantity,
  type PricedMeter,
  type PricedUsage,
  priceMeter,
  priceUsage,
  RATES,
  type Rate,
} from './prices.js';
export { SettleBatcher } from './settle-batcher.js';
export { isBrowserLimit, SLOT_TTL_SECONDS, SlotLease, type SlotRequest } from './slots.js';
