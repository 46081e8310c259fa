// What a crawl's options mean when they leave a field out: the start fills the
// default in, and the worker reads the same one.

/** Pages of one host fetched at once, when a crawl does not say. */
export const DEFAULT_MAX_PER_HOST = 4;
