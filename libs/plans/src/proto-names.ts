import type { DescEnum } from '@bufbuild/protobuf';

/**
 * A contract enum and the names the platform uses for its values, read from
 * the enum's descriptor (PLAN_FREE is `free`, METER_PAGE_LOAD is `page_load`),
 * so no table of numbers is written here. `names` is the literal list the
 * types come from; proto-names.test.ts holds both to the contract's numbers,
 * written there by hand.
 */
export interface ProtoNames<N extends string, E extends number> {
  /** Every name, in the contract's order, UNSPECIFIED left out. */
  readonly names: readonly N[];
  /** The enum value of a name; UNSPECIFIED (0) for a name the contract does not have. */
  toEnum(name: string): E;
  /** The name of an enum value; undefined for UNSPECIFIED or a number this build does not know. */
  toName(value: number): N | undefined;
}

/** The platform's name of one enum value: its contract name without the enum's prefix, in lower case. */
function protoValueName(desc: DescEnum, value: DescEnum['values'][number]): string {
  return value.name.toLowerCase().slice(desc.sharedPrefix?.length ?? 0);
}

export function protoNames<N extends string, E extends number>(desc: DescEnum, names: readonly N[]): ProtoNames<N, E> {
  const known = new Set<string>(names);
  const byName = new Map<string, E>();
  const byNumber = new Map<number, N>();
  for (const value of desc.values) {
    const name = protoValueName(desc, value);
    if (value.number === 0 || !known.has(name)) continue;
    byName.set(name, value.number as E);
    byNumber.set(value.number, name as N);
  }
  return {
    names,
    toEnum: (name) => byName.get(name) ?? (0 as E),
    toName: (value) => byNumber.get(value),
  };
}
