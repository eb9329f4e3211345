/**
 * One Server-Sent Events connection of the event feed. It reads the events table after its
 * position, writes them, and waits: for a notification (db/changes.ts, sent by migration
 * 031's trigger at COMMIT), for a short poll while events wait behind a running transaction
 * or while notifications are off, or for the heartbeat. Nothing is ever pushed into it: the
 * indexer and the worker only write rows, so a slow or stuck reader can hold up no one.
 *
 * What a reader can cost is bounded: a batch is read only once the previous one has left
 * the process (the socket's buffer is below `bufferBytes`); a reader whose buffer stays
 * above that for `slowReaderMs` is told why (`stream.closed`, reason `slow_reader`) and
 * disconnected. It resumes from its last event id without loss.
 */
import type { Db } from '../../db/pool.js';
import type { Logger } from '../../lib/logger.js';
import { formatCursor, type Position } from './cursor.js';
import * as store from './store.js';
import type { EventView } from './present.js';

export interface StreamSettings {
  /** Comment line sent when nothing else was for this long (default 15 s). */
  heartbeatMs: number;
  /** Open streams per API key and process (default 5). */
  maxStreamsPerKey: number;
  /**
   * Open streams per business and process, whatever its keys (default 50): keys are free to
   * create, and every stream is woken by every event and reads the shared pool.
   */
  maxStreamsPerBusiness: number;
  /** Bytes a connection may hold unsent before the next batch waits (default 1 MiB). */
  bufferBytes: number;
  /** How long the buffer may stay above `bufferBytes` before the reader is dropped (default 30 s). */
  slowReaderMs: number;
  /**
   * How long a closed stream's unsent bytes may wait for the reader before the socket is
   * destroyed (default 30 s; 1 s at shutdown). Its key's slot is held until then.
   */
  closeGraceMs: number;
  /** Poll interval while notifications are off or events are held back (default 1 s). */
  pollMs: number;
  /** Events per read. */
  batch: number;
}

export const DEFAULT_STREAM_SETTINGS: StreamSettings = {
  heartbeatMs: 15_000,
  maxStreamsPerKey: 5,
  maxStreamsPerBusiness: 50,
  bufferBytes: 1024 * 1024,
  slowReaderMs: 30_000,
  closeGraceMs: 30_000,
  pollMs: 1_000,
  batch: 100,
};

export type CloseReason = 'shutdown' | 'slow_reader' | 'key_revoked' | 'error';

const CLOSE_MESSAGES: Record<CloseReason, string> = {
  shutdown: 'the server is shutting down; reconnect with Last-Event-ID',
  slow_reader: 'the client did not read its events fast enough; reconnect with Last-Event-ID',
  key_revoked: 'the API key was revoked',
  error: 'the stream failed; reconnect with Last-Event-ID',
};

/** What a stream writes to: Node's ServerResponse (after Fastify let go of it). */
export interface Sink {
  write(chunk: string): boolean;
  end(chunk?: string): void;
  destroy(): void;
  readonly writableLength: number;
  readonly destroyed: boolean;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
}

export interface StreamSpec {
  keyId: string;
  scope: store.Scope;
  position: Position;
  types: readonly string[] | null;
}

export interface StreamContext {
  db: Db;
  logger: Logger;
  settings: StreamSettings;
  /** Whether notifications arrive (db/changes.ts is listening). */
  live: () => boolean;
  present: (row: store.FeedRow) => EventView;
  /** Called once, when the stream stops reading events for any reason. */
  stopped: (stream: EventStream) => void;
  /** Called once, when its connection is gone (the key's slot is free again). */
  released: (stream: EventStream) => void;
}

export class EventStream {
  #position: Position;
  #closed = false;
  #woken = false;
  #wake: (() => void) | null = null;
  #heartbeat: NodeJS.Timeout | null = null;

  constructor(
    readonly spec: StreamSpec,
    private readonly sink: Sink,
    private readonly ctx: StreamContext,
  ) {
    this.#position = spec.position;
  }

  get position(): Position {
    return this.#position;
  }

  /** Starts reading; the headers are already sent. */
  start(): void {
    let gone = false;
    const release = () => {
      if (gone) return;
      gone = true;
      this.#finish();
      this.ctx.released(this);
    };
    this.sink.once('close', release);
    // A client that hung up while the stream was being prepared: its 'close' has been
    // emitted already and will not come again; the stream would hold its key's slot and
    // poll the database for a connection that is gone.
    if (this.sink.destroyed) return release();
    // Tells EventSource how soon to reconnect, and where it starts: an `id:` alone sets the
    // client's Last-Event-ID without an event, so a reconnect before the first event resumes
    // here instead of "from now" (which lost what was written in between).
    const opened = formatCursor(this.#position);
    this.#write(`retry: 1000\nid: ${opened}\n: open after ${opened}\n\n`);
    this.#heartbeat = setInterval(() => void this.#beat(), this.ctx.settings.heartbeatMs);
    this.#heartbeat.unref();
    void this.#run();
  }

  /** New events may be there (a notification for this stream's scope). */
  wake(): void {
    this.#woken = true;
    this.#wake?.();
  }

  /** Ends the stream with a reason the client can read (`event: stream.closed`). */
  close(reason: CloseReason): void {
    if (this.#closed) return;
    const frame = `event: stream.closed\ndata: ${JSON.stringify({ reason, message: CLOSE_MESSAGES[reason] })}\n\n`;
    this.#finish();
    if (this.sink.destroyed) return;
    this.sink.end(frame);
    // A reader that reads nothing more would keep the socket (and what it holds) forever.
    setTimeout(() => this.sink.destroy(), reason === 'shutdown' ? 1_000 : this.ctx.settings.closeGraceMs).unref();
  }

  async #run(): Promise<void> {
    const { db, settings } = this.ctx;
    try {
      while (!this.#closed) {
        this.#woken = false;
        const rows = await store.eventsAfter(db, { ...this.spec, after: this.#position, limit: settings.batch });
        if (this.#closed) return;
        if (rows.length > 0) {
          if (!(await store.keyIsLive(db, this.spec.keyId))) return this.close('key_revoked');
          this.#write(rows.map((row) => this.#frame(row)).join(''));
          this.#position = { txid: rows.at(-1)!.txid, id: rows.at(-1)!.id };
          if (this.sink.writableLength > settings.bufferBytes && !(await this.#drained())) return this.close('slow_reader');
          if (rows.length === settings.batch) continue;
        }
        if (this.#woken) continue;
        // Nothing new. Wait for a notification, but look again soon when there is none to
        // wait for, or when committed events are held back by a transaction still running.
        const soon = !this.ctx.live() || (await store.eventsHeld(db, { ...this.spec, after: this.#position }));
        if (this.#closed || this.#woken) continue;
        await this.#sleep(soon ? settings.pollMs : settings.heartbeatMs);
      }
    } catch (err) {
      if (this.#closed) return;
      this.ctx.logger.warn({ err, scope: this.spec.scope }, 'event stream failed');
      this.close('error');
    }
  }

  #frame(row: store.FeedRow): string {
    const view = this.ctx.present(row);
    // JSON.stringify writes no raw line break, so `data` is one line.
    return `id: ${view.cursor}\nevent: ${view.event}\ndata: ${JSON.stringify(view)}\n\n`;
  }

  #write(chunk: string): void {
    if (this.sink.destroyed) return;
    this.sink.write(chunk);
  }

  /** Resolves true once the socket's buffer has drained, false after slowReaderMs. */
  #drained(): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.sink.off('drain', onDrain);
        this.sink.off('close', onClose);
        resolve(ok);
      };
      const onDrain = () => done(true);
      const onClose = () => done(true);
      const timer = setTimeout(() => done(false), this.ctx.settings.slowReaderMs);
      this.sink.once('drain', onDrain);
      this.sink.once('close', onClose);
    });
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#wake = null;
        resolve();
      }, ms);
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = null;
        resolve();
      };
    });
  }

  async #beat(): Promise<void> {
    if (this.#closed) return;
    try {
      // A revoked key's stream ends even while no event comes.
      if (!(await store.keyIsLive(this.ctx.db, this.spec.keyId))) return this.close('key_revoked');
    } catch {
      return; // the database is unreachable: the read loop reports it
    }
    // Not into a full buffer: that is the slow-reader check's business, and a comment
    // queued behind it would not reach the client any sooner.
    if (!this.#closed && this.sink.writableLength <= this.ctx.settings.bufferBytes) this.#write(': keep-alive\n\n');
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    this.#wake?.();
    this.ctx.stopped(this);
  }
}
