// Core NATS subjects shared by more than one service (not JetStream: nothing
// is stored; a subscriber that is away misses them and knows it).

/**
 * The ledger announces here, as a JSON array of workspace ids, whose credits
 * changed in committed writes; gateways drop their cached credit views.
 */
export const creditsChangedSubject = (namespace: string) => `${namespace}ledger.credits.changed`;
