// Newline-delimited JSON answers (the network log): every frame, and an Error object as a last
// line when the stream ended on one.
import { ApiFailure, send } from './client.js';

export async function readNdjson<T>(path: string, signal?: AbortSignal): Promise<T[]> {
  const res = await send(path, signal ? { signal } : {});
  const frames: T[] = [];
  for (const line of (await res.text()).split('\n')) {
    if (!line.trim()) continue;
    const frame = JSON.parse(line) as T & { error?: { code: string; message: string } };
    if (frame.error) throw new ApiFailure(res.status, frame.error.code, frame.error.message, undefined);
    frames.push(frame);
  }
  return frames;
}
