// Streamed answers: newline-delimited JSON and server-sent events, each item one JSON object.
// A stream whose status is already sent says how it ended in its last frame, as the Error
// object: iterating throws it as the APIError of its code's status.
import { APIConnectionError, APIError, APIUserAbortError, type ErrorObject } from './errors.js';
import { ERROR_STATUS } from './generated/operations.js';

/** The lines of a byte stream, decoded as UTF-8 (a last line without its newline included). */
async function* lines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      yield buffer.slice(0, newline).replace(/\r$/, '');
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf('\n');
    }
  }
  buffer += decoder.decode();
  if (buffer) yield buffer.replace(/\r$/, '');
}

/** One server-sent event (the WHATWG parsing rules, without reconnection). */
export interface ServerSentEvent {
  event: string;
  data: string;
  id: string | undefined;
}

export async function* serverSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  let event = '';
  let data: string[] = [];
  let id: string | undefined;
  for await (const line of lines(body)) {
    if (line === '') {
      if (data.length) yield { event: event || 'message', data: data.join('\n'), id };
      event = '';
      data = [];
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id') id = value;
  }
  if (data.length) yield { event: event || 'message', data: data.join('\n'), id };
}

/** `{ error: { code, message } }`: how a stream's last frame reports the failure that ended it. */
function endingError(item: unknown): ErrorObject | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const keys = Object.keys(item);
  const error = (item as { error?: unknown }).error;
  if (keys.length !== 1 || typeof error !== 'object' || error === null) return undefined;
  const { code, message } = error as Record<string, unknown>;
  return typeof code === 'string' && typeof message === 'string' ? (error as ErrorObject) : undefined;
}

const streamError = (error: ErrorObject, headers: Headers) =>
  APIError.from(ERROR_STATUS[error.code] ?? 500, error, headers);

/**
 * A streamed answer: iterate it with `for await` for each item; `abort()` (or the call's
 * signal) closes it early. It can be iterated once.
 */
export class Stream<T> implements AsyncIterable<T> {
  #used = false;
  #stopped = false;

  constructor(
    /** The HTTP answer, its body not read yet. */
    readonly response: Response,
    private readonly kind: 'ndjson' | 'sse',
    private readonly controller: AbortController,
  ) {}

  /** Stops reading and closes the connection. */
  abort(): void {
    this.#stopped = true;
    this.controller.abort();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.#used) throw new TypeError('This stream was iterated already');
    this.#used = true;
    const body = this.response.body;
    if (!body) return;
    const headers = this.response.headers;
    try {
      if (this.kind === 'ndjson') {
        for await (const line of lines(body)) {
          if (!line.trim()) continue;
          const item = JSON.parse(line) as unknown;
          const error = endingError(item);
          if (error) throw streamError(error, headers);
          yield item as T;
        }
      } else {
        for await (const event of serverSentEvents(body)) {
          const item = JSON.parse(event.data) as unknown;
          const error = event.event === 'error' ? (endingError(item) ?? (item as ErrorObject)) : undefined;
          if (error) throw streamError(error, headers);
          yield item as T;
        }
      }
    } catch (err) {
      if (err instanceof APIError || err instanceof SyntaxError) throw err;
      if (this.#stopped) return;
      if (this.controller.signal.aborted) throw new APIUserAbortError({ cause: this.controller.signal.reason });
      throw new APIConnectionError('The stream broke off', { cause: err });
    } finally {
      // Leaving the loop early (break, an error) closes the connection.
      this.#stopped = true;
      this.controller.abort();
    }
  }
}
