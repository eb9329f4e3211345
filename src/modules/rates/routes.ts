import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, Nullable, aliasSchema, ok } from '../../lib/schema.js';
import { ValidationError } from '../../lib/errors.js';
import { rateText } from './quote.js';
import type { RateService } from './service.js';

const RatesQuery = Type.Object(
  {
    assets: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description: 'comma-separated asset symbols, e.g. `USDT,USDC` (any letter case); default: every symbol of GET /v1/assets',
      }),
    ),
    currency: Type.Optional(
      Type.String({ minLength: 1, maxLength: 8, description: 'the quote currency; `USD` (the default) is the one supported' }),
    ),
  },
  { additionalProperties: false, examples: [{ assets: 'USDT,USDC', currency: 'USD' }] },
);

const RatesEnvelope = Envelope(
  Type.Record(Type.String(), Type.Record(Type.String(), Nullable(Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' }))), {
    description:
      'symbol -> { currency -> rate }: a decimal string with every digit the price feed gives (never a float), or null when no usable rate exists (no source, a stale or refused feed)',
    examples: [{ USDT: { USD: '0.9997' }, USDC: { USD: '1' } }],
  }),
);

export const rateRoutes: FastifyPluginAsyncTypebox<{ rates: RateService }> = async (app, { rates }) => {
  const schema = {
    tags: ['Blockchains'],
    summary: 'Current rates of assets',
    description:
      'Rates from the price feeds the operator configured (Chainlink AggregatorV3 on the assets’ chains), never invented; a USD stablecoin without a feed is quoted at its peg only with RATES_PEG_FALLBACK.',
    querystring: RatesQuery,
    response: { 200: RatesEnvelope },
  };
  const handler = async (req: { auth: Parameters<RateService['symbolRates']>[0]; query: { assets?: string; currency?: string } }) => {
    const symbols = req.query.assets
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (symbols?.length === 0)
      throw new ValidationError('assets names no symbol', [{ field: 'assets', message: 'comma-separated symbols, e.g. USDT,USDC' }]);
    const quotes = await rates.symbolRates(req.auth, symbols, req.query.currency ?? 'USD');
    const data: Record<string, Record<string, string | null>> = {};
    for (const [symbol, byCurrency] of Object.entries(quotes)) {
      data[symbol] = Object.fromEntries(Object.entries(byCurrency).map(([c, q]) => [c, q ? rateText(q) : null]));
    }
    return ok(data, 'Rates retrieved successfully');
  };
  app.get('/v1/assets/rates', { schema }, handler);
  // The described service's overview lists the same endpoint as `/rates`.
  app.get('/v1/rates', { schema: aliasSchema(schema, '/v1/assets/rates') }, handler);
};
