export { AllowList, classifyAddress, isBlockedAddress } from './address.js';
export {
  assertAllowedAddress,
  BlockedAddressError,
  type GuardedLookupOptions,
  guardedLookup,
  isBlockedAddressError,
  type LookupFunction,
  type Resolver,
  systemResolver,
} from './lookup.js';
export type { AddressClass } from './ranges.js';
export {
  type CheckUrlOptions,
  checkUrl,
  HOST_NAME_TOO_LONG,
  hostNameFits,
  type UrlRefusal,
  urlRefusal,
} from './url.js';
