import type { ErrorCode } from '../codes.js';
import { capacity } from './capacity.js';
import { general, profiles } from './general.js';
import { integrations, pages } from './pages.js';
import { providers, purchases } from './purchases.js';
import { replay, secrets } from './secrets.js';
import type { ErrorSpec } from './spec.js';

export type { ErrorSpec } from './spec.js';

/** Every code's status, message, gRPC status, condition and details shape. */
export const ERRORS: Readonly<Record<ErrorCode, ErrorSpec>> = {
  ...general,
  ...capacity,
  ...profiles,
  ...pages,
  ...integrations,
  ...secrets,
  ...replay,
  ...purchases,
  ...providers,
};
