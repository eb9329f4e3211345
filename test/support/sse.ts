/**
 * A raw Server-Sent Events client for tests of the event feed: node:http (so a test can stop
 * reading, as a slow client does) and the SDK's parser. It records every message, comment
 * and the end of the connection.
 */
import { request, type IncomingMessage } from 'node:http';
import { SseParser, type SseMessage } from '../../packages/sdk/src/events/sse.js';
import { waitUntil } from './cli.js';

export interface SseConnection {
  status: number;
  headers: IncomingMessage['headers'];
  /** Error body when the status is not 200. */
  body: string;
  messages: SseMessage[];
  comments: string[];
  /** Events other than control messages, parsed. */
  events: () => { cursor: string; event: string; id: string; data: any; test: boolean; walletId: string }[];
  /** `stream.closed` reasons received. */
  closedWith: () => string[];
  ended: () => boolean;
  /** Stops reading: the socket's buffers fill up, as with a slow client. */
  pause: () => void;
  resume: () => void;
  close: () => void;
  /** Waits until `n` events arrived. */
  waitForEvents: (n: number, ms?: number) => Promise<void>;
  waitForEnd: (ms?: number) => Promise<void>;
}

export function openStream(baseUrl: string, key: string, opts: { query?: string; lastEventId?: string } = {}): Promise<SseConnection> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'x-api-key': key, accept: 'text/event-stream' };
    if (opts.lastEventId !== undefined) headers['last-event-id'] = opts.lastEventId;
    const req = request(`${baseUrl}/v1/events/stream${opts.query ? `?${opts.query}` : ''}`, { headers }, (res) => {
      const parser = new SseParser();
      const messages: SseMessage[] = [];
      const comments: string[] = [];
      let body = '';
      let ended = false;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (res.statusCode !== 200) body += chunk;
        else {
          const parsed = parser.push(chunk);
          messages.push(...parsed.messages);
          comments.push(...parsed.comments);
        }
      });
      const end = () => (ended = true);
      res.on('end', end);
      res.on('close', end);
      res.on('error', end);
      const conn: SseConnection = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        get body() {
          return body;
        },
        messages,
        comments,
        events: () => messages.filter((m) => m.event !== 'stream.closed').map((m) => JSON.parse(m.data)),
        closedWith: () => messages.filter((m) => m.event === 'stream.closed').map((m) => JSON.parse(m.data).reason as string),
        ended: () => ended,
        pause: () => res.pause(),
        resume: () => res.resume(),
        close: () => {
          req.destroy();
          res.destroy();
        },
        waitForEvents: (n, ms = 30_000) =>
          waitUntil(
            `${n} events`,
            () => conn.events().length >= n,
            ms,
            () => JSON.stringify(conn.events().map((e) => e.event)),
          ),
        waitForEnd: (ms = 30_000) => waitUntil('the end of the stream', () => ended, ms),
      };
      if (res.statusCode !== 200) res.on('end', () => resolve(conn));
      else resolve(conn);
    });
    req.on('error', reject);
    req.end();
  });
}
