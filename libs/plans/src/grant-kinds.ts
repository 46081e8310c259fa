import { ledger } from '@wap/proto';
import { protoNames } from './proto-names.js';

/** The kinds of credit grant, and the ledger contract's `GrantKind` enum. */
export const GRANT_KIND_NAMES = ['promotional', 'student', 'purchased'] as const;
export type GrantKindName = (typeof GRANT_KIND_NAMES)[number];
export const grantKinds = protoNames<GrantKindName, ledger.GrantKind>(ledger.GrantKindSchema, GRANT_KIND_NAMES);
