import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, ok } from '../../lib/schema.js';
import { WalletParams } from '../wallets/schemas.js';
import type { EventFeedService } from './service.js';
import { EventSchema, EventsMeta, EventsQuery, StreamHeaders, StreamQuery, TriggerBody } from './schemas.js';

export const eventFeedRoutes: FastifyPluginAsyncTypebox<{ feed: EventFeedService }> = async (app, { feed }) => {
  const event = Type.Ref(EventSchema);

  app.get(
    '/v1/events',
    {
      schema: {
        tags: ['Events'],
        summary: 'Events, oldest first, after a cursor',
        description:
          "Extension. Every event the webhooks of the key's wallets carry (a business key: all its wallets), with the body's `event` and `data`, " +
          'its latest delivery beside it, and its `cursor`. Read on with `after=meta.nextCursor`. Events are kept as long as the webhook log. ' +
          'An event appears once every transaction that started before it has ended, so nothing can appear behind a cursor already read.',
        querystring: EventsQuery,
        response: {
          200: Type.Object({ data: Type.Array(event), message: Type.String(), statusCode: Type.Literal(200), meta: EventsMeta }),
        },
      },
    },
    async (req) => {
      const { items, meta } = await feed.list(req.auth, { ...req.query, limit: req.query.limit ?? 100 });
      return ok(items, 'Events fetched successfully', { meta });
    },
  );

  app.get(
    '/v1/events/stream',
    {
      schema: {
        tags: ['Events'],
        summary: 'The same events, live (Server-Sent Events)',
        description:
          'Extension. `text/event-stream`: one message per event (`id:` its cursor, `event:` its name, `data:` the Event as JSON), ' +
          'from now on, or after `after`, or after `Last-Event-ID` (what EventSource sends when it reconnects), so a reconnecting client misses nothing. ' +
          'A `: keep-alive` comment every 15 s. The server ends a stream with `event: stream.closed` and a `reason` ' +
          '(`shutdown`, `slow_reader` when the client reads too slowly, `key_revoked`, `error`). ' +
          'A limited number of open streams per API key and per business, per server (5 and 50 by default: EVENT_STREAMS_PER_KEY, EVENT_STREAMS_PER_BUSINESS; 429 `STREAM_LIMIT_REACHED` beyond).',
        querystring: StreamQuery,
        headers: StreamHeaders,
        response: {
          200: {
            description: 'an endless text/event-stream',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async (req, reply) => {
      const prepared = await feed.prepareStream(req.auth, req.query, req.headers['last-event-id']);
      // HEAD (Fastify answers it with this handler): the stream's headers, no stream. Node
      // would hold a HEAD's headers back until the end that a stream never reaches, so the
      // client hung, holding one of the key's stream slots.
      if (req.method === 'HEAD') {
        prepared.cancel();
        return reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-store').send();
      }
      // From here on the connection is the stream's; Fastify's reply (and onSend hooks) are out of the way.
      reply.hijack();
      const res = reply.raw;
      // Gone while the stream was prepared (its checks read the database): give the slot back.
      if (req.raw.socket.destroyed || res.destroyed) return prepared.cancel();
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
        'x-request-id': req.id,
      });
      req.raw.socket.setNoDelay(true);
      prepared.start(res);
    },
  );

  app.post(
    '/v1/wallets/:walletId/webhooks/trigger',
    {
      schema: {
        tags: ['Webhooks'],
        summary: 'Send a test event of any type',
        description:
          "Extension. Writes an event of the given type with a realistic Transaction in `data` (the wallet's chain, network, master address and first enabled asset; " +
          'a fresh id that is no stored transaction) and `"test": true` in the body. It reaches the event feed and its streams (`webhooks listen`) and, when the wallet has a ' +
          'webhook URL, a signed delivery through the normal pipeline (retries, log). Answers the Event. On a mainnet wallet only `webhook.test` is sent (422 `NOT_SUPPORTED` for other types): ' +
          'a signed test deposit reaching a production receiver that does not check `test` would be credited.',
        params: WalletParams,
        body: TriggerBody,
        response: { 200: Envelope(event) },
      },
    },
    async (req) => ok(await feed.trigger(req.auth, req.params.walletId, req.body.event), 'Test event written'),
  );

  // The API's shutdown must not wait for endless responses: tell each stream's client and end it.
  app.addHook('preClose', async () => feed.closeAll('shutdown'));
};
