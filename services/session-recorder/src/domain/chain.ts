// The recording's hash chain (docs/sessions.md): each chunk's link covers the
// link before it, its place, what it says of itself and its bytes, so changing,
// dropping or reordering any stored chunk breaks every link after it.
import { createHash } from 'node:crypto';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The chain's origin: bound to the session, so no chunk can be replayed into another. */
export const chainOrigin = (sessionId: string): string => sha256(`wap-recording|${sessionId}`);

export interface ChainLink {
  seq: number;
  kind: string;
  pages: number;
  bodySha256: string;
}

export const nextLink = (previous: string, link: ChainLink): string =>
  sha256([previous, link.seq, link.kind, link.pages, link.bodySha256].join('|'));

export interface StoredChunk extends ChainLink {
  body: Uint8Array;
  hash: string;
}

export type ChainCheck =
  | { valid: true; chunks: number; head: string }
  | { valid: false; chunks: number; head: string; brokenAt: number; reason: string };

/** Recomputes the chain from the stored bytes, in order, and compares it with what is stored and the head. */
export function verifyChain(sessionId: string, chunks: readonly StoredChunk[], head: string): ChainCheck {
  let link = chainOrigin(sessionId);
  for (const [i, chunk] of chunks.entries()) {
    const broken = (reason: string): ChainCheck => ({ valid: false, chunks: chunks.length, head, brokenAt: i, reason });
    if (chunk.seq !== i) return broken('a chunk is missing or out of place');
    if (createHash('sha256').update(chunk.body).digest('hex') !== chunk.bodySha256)
      return broken("a chunk's bytes changed");
    link = nextLink(link, chunk);
    if (link !== chunk.hash) return broken("a chunk's link does not follow from the one before");
  }
  if (link !== head)
    return {
      valid: false,
      chunks: chunks.length,
      head,
      brokenAt: chunks.length,
      reason: 'the head does not match the last link',
    };
  return { valid: true, chunks: chunks.length, head };
}
