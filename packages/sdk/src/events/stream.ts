/**
 * `client.events.stream()`: the service's Server-Sent Events feed as an async iterable of
 * typed events. It reconnects by itself (a dropped connection, a restart of the service,
 * `stream.closed` for a slow reader, no byte for three heartbeats) with `Last-Event-ID`,
 * so the events in between arrive after the reconnect, each once and in order. It stops
 * when you `break`, call `close()`, abort the signal, or the key is refused or revoked
 * (thrown as ApiError / StreamClosedError).
 */
import { ApiError, ConnectionError, TimeoutError, WalletSdkError } from '../errors.js';
import { backoff, sleep, type Transport } from '../core/transport.js';
import type { OperationName } from '../core/operations.js';
import { SseParser } from './sse.js';
import type { EventName, StreamCloseReason, WalletEvent } from './types.js';

export interface StreamOptions {
  /** Start after this cursor (an event's `cursor`, `meta.nextCursor`); default: the events still to come. */
  after?: string;
  /** Only these events. */
  types?: EventName[];
  /** Only this wallet's events (a business key). */
  walletId?: string;
  signal?: AbortSignal;
  /** Reconnect after a failure (default true). */
  reconnect?: boolean;
  /** Longest wait between reconnects, in ms (default 30,000). */
  maxReconnectDelayMs?: number;
  /** Reconnect when nothing (not even a heartbeat) came for this long, in ms (default 45,000: three heartbeats). */
  idleTimeoutMs?: number;
  /** Told about each (re)connection and each loss, e.g. to print them. */
  onStatus?: (status: { state: 'connected' | 'reconnecting'; lastEventId?: string; error?: unknown }) => void;
}

/** The service ended the stream for a reason a reconnect cannot fix (`key_revoked`). */
export class StreamClosedError extends WalletSdkError {
  constructor(
    readonly reason: StreamCloseReason,
    message: string,
  ) {
    super(`event stream closed: ${reason}: ${message}`);
  }
}

const RECONNECT_AFTER: ReadonlySet<string> = new Set(['shutdown', 'slow_reader', 'error']);
/** The operation a stream reads (typed: it must exist in the generated API). */
const OPERATION: OperationName = 'GET /v1/events/stream';

export class EventStream implements AsyncIterable<WalletEvent> {
  readonly #ctrl = new AbortController();
  #lastEventId: string | undefined;
  /** How long to wait before reconnecting after a clean close: the service's `retry:` (1 s), until it says. */
  #retryMs = 1_000;
  #started = false;
  #idle: NodeJS.Timeout | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly opts: StreamOptions = {},
  ) {
    this.#lastEventId = opts.after;
    if (opts.signal) {
      if (opts.signal.aborted) this.#ctrl.abort(opts.signal.reason);
      else opts.signal.addEventListener('abort', () => this.#ctrl.abort(opts.signal!.reason), { once: true });
    }
  }

  /** The cursor of the last event received: resume from it later with `after`. */
  get lastEventId(): string | undefined {
    return this.#lastEventId;
  }

  close(): void {
    clearTimeout(this.#idle);
    this.#ctrl.abort(new WalletSdkError('stream closed'));
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<WalletEvent> {
    if (this.#started) throw new WalletSdkError('an event stream can be iterated once');
    this.#started = true;
    const signal = this.#ctrl.signal;
    const reconnect = this.opts.reconnect ?? true;
    let failures = 0;
    try {
      while (!signal.aborted) {
        let retryAfter: number | null = null;
        try {
          const connection = this.#connection(signal);
          try {
            for (;;) {
              const next = await connection.next();
              if (next.done) {
                // The service ended the stream cleanly (stream.closed with a reason to come back):
                // after `error` (its read failed) the next attempt backs off like a failure, so a
                // service failing at every start is not reconnected to in a tight loop.
                if (next.value === 'error') failures++;
                else failures = 0;
                break;
              }
              failures = 0;
              yield next.value;
            }
          } finally {
            // A `break` of the caller's loop lands here: the connection's own cleanup runs.
            await connection.return('shutdown');
          }
        } catch (err) {
          if (signal.aborted) return;
          if (err instanceof StreamClosedError) throw err;
          if (err instanceof ApiError) {
            if (!err.retryable) throw err;
            retryAfter = err.retryAfter;
          } else if (!(err instanceof ConnectionError || err instanceof TimeoutError || err instanceof IdleError)) throw err;
          if (!reconnect) throw err;
          this.opts.onStatus?.({ state: 'reconnecting', ...(this.#lastEventId ? { lastEventId: this.#lastEventId } : {}), error: err });
          failures++;
        }
        if (!reconnect) return;
        const delay = failures === 0 ? this.#retryMs : backoff(failures - 1, retryAfter, this.opts.maxReconnectDelayMs ?? 30_000);
        await sleep(Math.max(delay, this.#retryMs), signal).catch(() => undefined);
      }
    } finally {
      this.#ctrl.abort(new WalletSdkError('stream closed'));
    }
  }

  /** Ends with the reason of a `stream.closed` that asks for a reconnect. */
  async *#connection(signal: AbortSignal): AsyncGenerator<WalletEvent, StreamCloseReason> {
    const conn = new AbortController();
    const stop = () => conn.abort(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    const query: Record<string, unknown> = { types: this.opts.types, walletId: this.opts.walletId };
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.#lastEventId) headers['last-event-id'] = this.#lastEventId;
    const idleMs = this.opts.idleTimeoutMs ?? 45_000;
    const arm = () => {
      clearTimeout(this.#idle);
      // Unref'd: a stream the program stopped reading must not keep it alive.
      this.#idle = setTimeout(() => conn.abort(new IdleError(`no data for ${idleMs} ms`)), idleMs).unref();
    };
    try {
      const res = await this.transport.open(OPERATION.slice('GET '.length), query, headers, conn.signal);
      this.opts.onStatus?.({ state: 'connected', ...(this.#lastEventId ? { lastEventId: this.#lastEventId } : {}) });
      arm();
      const parser = new SseParser();
      const decoder = new TextDecoder();
      const reader = res.body!.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) throw new ConnectionError('the event stream ended without a reason');
          arm();
          const parsed = parser.push(decoder.decode(value, { stream: true }));
          if (parsed.retry !== undefined) this.#retryMs = parsed.retry;
          // Where the service started this stream (`id:`, or the `: open after` comment of an
          // older service): a reconnect before the first event resumes there, not "from now".
          if (this.#lastEventId === undefined) {
            const opened = parsed.comments.map((c) => /^open after (\S+)$/.exec(c)?.[1]).find(Boolean);
            if (opened) this.#lastEventId = opened;
          }
          for (const message of parsed.messages) {
            if (message.event === 'stream.closed') {
              const { reason, message: why } = JSON.parse(message.data) as { reason: StreamCloseReason; message: string };
              if (RECONNECT_AFTER.has(reason)) return reason;
              throw new StreamClosedError(reason, why);
            }
            const event = JSON.parse(message.data) as WalletEvent;
            this.#lastEventId = message.lastEventId || event.cursor;
            yield event;
          }
          if (parsed.lastEventId) this.#lastEventId = parsed.lastEventId;
        }
      } finally {
        reader.cancel().catch(() => undefined);
      }
    } catch (err) {
      if (conn.signal.reason instanceof IdleError && !signal.aborted) throw conn.signal.reason;
      if (!signal.aborted && err instanceof Error && err.name === 'AbortError')
        throw new ConnectionError('the event stream was interrupted', { cause: err });
      if (!signal.aborted && err instanceof TypeError) throw new ConnectionError(`the event stream broke: ${err.message}`, { cause: err });
      throw err;
    } finally {
      clearTimeout(this.#idle);
      signal.removeEventListener('abort', stop);
      conn.abort();
    }
  }
}

class IdleError extends WalletSdkError {}
