// Input checks the handlers share.
import { resourceId } from '@wap/rpc';

/** Session ids are UUIDs; anything else is a session that does not exist (as another workspace's is). */
export const sessionId = (id: string): string => resourceId(id);
