import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { Envelope, PagedEnvelope, ok } from '../../lib/schema.js';
import { AppError, ValidationError } from '../../lib/errors.js';
import { unsafeInputError } from '../../lib/safe-text.js';
import { IMAGE_MAX_BYTES } from './links.js';
import type { CheckoutService, Upload } from './service.js';
import {
  CheckoutParams,
  CheckoutSchema,
  CreateCheckoutBody,
  CreateLinkBody,
  LinkParams,
  ListQuery,
  PaymentLinkSchema,
  UpdateLinkBody,
} from './schemas.js';

const Link = Type.Ref(PaymentLinkSchema);
const Checkout = Type.Ref(CheckoutSchema);
const TAGS = ['Payment links'];

/** Fields a multipart form sends as JSON text, and those it sends as numbers or booleans. */
const JSON_FIELDS = new Set(['metadata', 'configurations', 'accepts']);
/** Optional fields a form leaves blank to mean "not given" (the described service's examples send them empty). */
const BLANK_IS_ABSENT = new Set(['metadata', 'configurations', 'accepts', 'paymentLimit', 'redirectUrl', 'slug', 'active']);

const uploads = new WeakMap<FastifyRequest, Upload>();

/**
 * A multipart body (the described service's form, with an image `file`) as the JSON body
 * the route's schema checks: JSON fields parsed, numbers and booleans read, blanks dropped;
 * the file kept aside for the handler, and the result checked for unstorable text as any
 * JSON body is. JSON bodies pass untouched.
 */
async function fromForm(req: FastifyRequest): Promise<void> {
  if (!req.isMultipart()) return;
  const form = (req.body ?? {}) as Record<string, unknown>;
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(form)) {
    if (Buffer.isBuffer(value)) {
      if (key !== 'file')
        throw new ValidationError(`${key} must be a text field; only file is a file`, [{ field: key, message: 'unexpected file' }]);
      uploads.set(req, { data: value });
      continue;
    }
    if (typeof value !== 'string') throw new ValidationError(`${key} is given more than once`, [{ field: key, message: 'repeated' }]);
    if (value === '' && BLANK_IS_ABSENT.has(key)) continue;
    if (JSON_FIELDS.has(key)) {
      try {
        body[key] = JSON.parse(value);
      } catch {
        throw new ValidationError(`${key} must be JSON text`, [{ field: key, message: 'not valid JSON' }]);
      }
    } else if (key === 'paymentLimit' && /^\d{1,9}$/.test(value)) body[key] = Number(value);
    else if (key === 'active' && (value === 'true' || value === 'false')) body[key] = value === 'true';
    else body[key] = value;
  }
  // The global input check (http/validation.ts) ran before this hook, on the form's raw
  // text, where a JSON escape such as "\u0000" is six harmless characters; parsed, it is a
  // NUL that jsonb refuses (a 500). So the rebuilt body passes the same check again.
  const unsafe = unsafeInputError(body, 'body');
  if (unsafe) throw unsafe;
  req.body = body;
}

/** What busboy says of a form it cannot read (no boundary, an empty one, cut short): plain Errors, without a status. */
const MALFORMED_FORM = /multipart|boundary|needle/i;

export const checkoutRoutes: FastifyPluginAsyncTypebox<{ checkouts: CheckoutService }> = async (app, { checkouts }) => {
  // A malformed form is the client's mistake: 400, not the 500 an error without a status
  // becomes. Anything else goes on to the API's error handler (a throw here reaches it).
  app.setErrorHandler((err: Error, req) => {
    const status = (err as { statusCode?: unknown }).statusCode;
    if (req.isMultipart() && !(err instanceof AppError) && typeof status !== 'number' && MALFORMED_FORM.test(err.message)) {
      throw new ValidationError('body is not a well-formed multipart form', [{ field: 'body', message: err.message }]);
    }
    throw err;
  });
  // Multipart here only: the rest of the API takes JSON (415 otherwise).
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { fileSize: IMAGE_MAX_BYTES, files: 1, fields: 30, fieldSize: 64 * 1024, parts: 31 },
    async onFile(part) {
      try {
        (part as unknown as { value: unknown }).value = await part.toBuffer();
      } catch {
        throw new ValidationError('file is larger than 1 MiB', [{ field: 'file', message: 'at most 1 MiB' }]);
      }
    },
  });
  const multipartNote =
    ' Send JSON, or `multipart/form-data` with an image `file` (PNG, JPEG, GIF or WebP, at most 1 MiB; shown on the page) and the other fields as text (`metadata`, `configurations` and `accepts` as JSON text).';

  app.post(
    '/v1/payment_links',
    {
      preValidation: fromForm,
      schema: {
        tags: TAGS,
        summary: 'Create a payment link',
        description:
          'A link takes payments in the USD stablecoins of the wallets it accepts (`accepts`, an extension; a wallet key defaults to its own wallet). `amount` blank: the payer chooses. `slug` unique on the installation (409 `SLUG_TAKEN`); default one made from the name.' +
          multipartNote,
        consumes: ['application/json', 'multipart/form-data'],
        body: CreateLinkBody,
        response: { 200: Envelope(Link) },
      },
    },
    async (req) => ok(await checkouts.createLink(req.auth, req.body, uploads.get(req) ?? null, 'api'), 'Payment Link created successfully'),
  );

  app.get(
    '/v1/payment_links',
    {
      schema: {
        tags: TAGS,
        summary: 'List payment links',
        description: 'Newest first. A wallet key sees the links that take only its wallet; a business key every link of the business.',
        querystring: ListQuery,
        response: { 200: PagedEnvelope(Link) },
      },
    },
    async (req) => {
      const { items, meta } = await checkouts.listLinks(req.auth, req.query.page ?? 1, req.query.limit ?? 100);
      return ok(items, 'Payment Links fetched successfully', { meta });
    },
  );

  app.get(
    '/v1/payment_links/:id',
    { schema: { tags: TAGS, summary: 'Get a payment link', params: LinkParams, response: { 200: Envelope(Link) } } },
    async (req) => ok(await checkouts.getLink(req.auth, req.params.id), 'Payment Link fetched successfully'),
  );

  app.patch(
    '/v1/payment_links/:id',
    {
      preValidation: fromForm,
      schema: {
        tags: TAGS,
        summary: 'Update a payment link',
        description:
          '`active: false` deactivates it (the page answers its `inactiveMessage`); any field of the link may change, `amount: ""` lets the payer choose.' +
          multipartNote,
        consumes: ['application/json', 'multipart/form-data'],
        params: LinkParams,
        body: UpdateLinkBody,
        response: { 200: Envelope(Link) },
      },
    },
    async (req) =>
      ok(await checkouts.updateLink(req.auth, req.params.id, req.body, uploads.get(req) ?? null), 'Payment Link updated successfully'),
  );

  app.post(
    '/v1/payment_links/:id/checkouts',
    {
      schema: {
        tags: TAGS,
        summary: 'Start a checkout session',
        description:
          "Extension: what the page does when a payer opens the link, for a merchant that shows its own page. A dedicated child address on the chosen chain, the amount in the chosen asset (`amount` overrides the link's here), `expiresAt` and a monitoring window after it (docs/checkout.md). 422 `PAYMENT_LINK_INACTIVE` (with the link's `inactiveMessage`) once deactivated or at its `paymentLimit`.",
        params: LinkParams,
        body: CreateCheckoutBody,
        response: { 200: Envelope(Checkout) },
      },
    },
    async (req) => ok(await checkouts.createCheckout(req.auth, req.params.id, req.body), 'Checkout created successfully'),
  );

  app.get(
    '/v1/payment_links/:id/checkouts',
    {
      schema: {
        tags: TAGS,
        summary: "List a payment link's checkout sessions",
        description: 'Extension. Newest first.',
        params: LinkParams,
        querystring: ListQuery,
        response: { 200: PagedEnvelope(Checkout) },
      },
    },
    async (req) => {
      const { items, meta } = await checkouts.listCheckouts(req.auth, req.params.id, req.query.page ?? 1, req.query.limit ?? 100);
      return ok(items, 'Checkouts fetched successfully', { meta });
    },
  );

  app.get(
    '/v1/checkouts/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Get a checkout session',
        description:
          'Extension. `status` new, processing, settled, expired or invalid, with `partial`, `overpaid` and `paidLate` (docs/checkout.md).',
        params: CheckoutParams,
        response: { 200: Envelope(Checkout) },
      },
    },
    async (req) => ok(await checkouts.getCheckout(req.auth, req.params.id), 'Checkout fetched successfully'),
  );
};
