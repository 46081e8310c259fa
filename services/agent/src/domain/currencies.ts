// The currencies a purchase or a rule may name: the ISO 4217 codes of money in
// use, as Node's ICU knows them (Intl.supportedValuesOf), so no list of ours
// goes stale. Funds, metals and testing codes (XAU, XTS, XXX) are not among them.
const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

/** Whether `code` is an ISO 4217 currency code, as written (upper case). */
export const isCurrency = (code: string): boolean => CURRENCIES.has(code);
