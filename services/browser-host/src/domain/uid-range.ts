// SESSION_UIDS read (docs/connect.md, "Isolation"): the uids session browsers
// run as, one each; sessions/os-users.ts hands them out. Pure.

/** "200000-209999": the uids sessions may run as; "off": none. */
export function parseUidRange(text: string): { first: number; last: number } | undefined {
  if (text === 'off') return undefined;
  const match = /^(\d+)-(\d+)$/.exec(text);
  const first = Number(match?.[1]);
  const last = Number(match?.[2]);
  if (!match || first < 1_000 || last < first || last > 4_000_000_000) throw new Error('a range "first-last" of uids');
  return { first, last };
}
