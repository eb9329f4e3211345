/** Payment links and checkout sessions: the public HTTP shapes (docs/checkout.md). */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, PageQuery, Timestamp, Uuid } from '../../lib/schema.js';

export const CHECKOUT_STATUSES = ['new', 'processing', 'settled', 'expired', 'invalid'] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];

/**
 * A decimal string in the link's currency (USD), at most 18 fraction digits. More than 0: the
 * services refuse "0" and "0.00" (400, field named), which the pattern alone cannot say clearly.
 */
const Amount = Type.String({
  pattern: '^(0|[1-9][0-9]{0,29})(\\.[0-9]{1,18})?$',
  description: 'decimal string more than 0, e.g. "100" or "12.5"',
});
/** The longest slug a link takes: one segment of its page's path, which the router must accept (http/app.ts). */
export const SLUG_MAX_LENGTH = 250;
const Slug = Type.String({
  pattern: `^[A-Za-z0-9-]{1,${SLUG_MAX_LENGTH}}$`,
  description: 'letters, digits and hyphens; unique on the installation',
});
/** The pattern is a first sieve; the services also require that the URL parser (WHATWG, new URL) reads it. */
const Url = Type.String({
  maxLength: 2048,
  pattern: '^https?://[^\\s]+$',
  description: 'an absolute http(s) URL that parses as one (e.g. not "http://[")',
});
const Metadata = Type.Object(
  {},
  {
    additionalProperties: Type.Union([Type.String({ maxLength: 500 }), Type.Number()]),
    maxProperties: 50,
    description: 'key/value pairs (strings or numbers); in multipart, a JSON string',
  },
);

export const LinkConfigurations = Type.Object(
  {
    expiresInMinutes: Type.Integer({ minimum: 1, maximum: 10_080, description: 'how long a session waits for its payment (default 30)' }),
    monitoringMinutes: Type.Integer({
      minimum: 0,
      maximum: 43_200,
      description: 'how long after expiresAt a session still watches its address: late payments, confirmations (default 1440)',
    }),
    underpaymentTolerance: Type.String({
      pattern: '^(0|[1-9][0-9]?)(\\.[0-9]{1,2})?$',
      description: 'percent of the amount a payment may fall short of and still settle ("0" to "50", default "0")',
    }),
  },
  { additionalProperties: false },
);
export type LinkConfigurations = Static<typeof LinkConfigurations>;

const Accepts = Type.Array(
  Type.Object(
    {
      walletId: Uuid('a wallet of the business'),
      assets: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
          minItems: 1,
          maxItems: 20,
          description: 'asset symbols or ids; default every enabled USD stablecoin of the wallet',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  { minItems: 1, maxItems: 20, description: "extension: the wallets (and assets) the link takes; default the wallet key's own wallet" },
);

const LinkFields = {
  description: Type.Optional(Type.String({ maxLength: 250 })),
  amount: Type.Optional(Type.Union([Amount, Type.Literal('')], { description: 'blank or absent: the payer chooses' })),
  metadata: Type.Optional(Metadata),
  paymentLimit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'settled payments the link takes, then it is inactive' }),
  ),
  redirectUrl: Type.Optional(Url),
  slug: Type.Optional(Slug),
  successMessage: Type.Optional(Type.String({ maxLength: 500 })),
  inactiveMessage: Type.Optional(Type.String({ maxLength: 500 })),
  configurations: Type.Optional(Type.Partial(LinkConfigurations)),
};
const Name = Type.String({ minLength: 1, maxLength: 250 });

export const CreateLinkBody = Type.Object({ name: Name, ...LinkFields, accepts: Type.Optional(Accepts) }, { additionalProperties: false });
export type CreateLinkBody = Static<typeof CreateLinkBody>;

export const UpdateLinkBody = Type.Object(
  {
    name: Type.Optional(Name),
    ...LinkFields,
    // null takes a setting off the link (blank does the same for the texts and the amount).
    metadata: Type.Optional(
      Type.Union([Metadata, Type.Null()], { description: 'key/value pairs (strings or numbers); in multipart, a JSON string; null: none' }),
    ),
    paymentLimit: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000 }), Type.Null()], {
        description: 'settled payments the link takes, then it is inactive; null: no limit',
      }),
    ),
    redirectUrl: Type.Optional(Type.Union([Url, Type.Null()], { description: 'null: none (the success message is shown)' })),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type UpdateLinkBody = Static<typeof UpdateLinkBody>;

export const PaymentLinkSchema = Type.Object(
  {
    id: Uuid(),
    slug: Type.String(),
    url: Type.String({ description: "the payer's page" }),
    name: Type.String(),
    description: Nullable(Type.String()),
    amount: Nullable(Type.String({ description: 'in `currency`; null: the payer chooses' })),
    currency: Type.String(),
    active: Type.Boolean({ description: 'false once deactivated or once paymentLimit settled payments were taken' }),
    network: Type.String(),
    type: Type.Literal('payment'),
    createdChannel: Type.String(),
    configurations: LinkConfigurations,
    imageUrl: Nullable(Type.String()),
    metadata: Nullable(Type.Object({}, { additionalProperties: true })),
    paymentLimit: Nullable(Type.Integer()),
    payments: Type.Integer({ description: 'settled sessions so far' }),
    redirectUrl: Nullable(Type.String()),
    successMessage: Nullable(Type.String()),
    inactiveMessage: Nullable(Type.String()),
    accepts: Type.Array(
      Type.Object({ walletId: Uuid(), blockchain: Type.String(), network: Type.String(), assetId: Uuid(), symbol: Type.String() }),
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'PaymentLink' },
);
export type PaymentLinkView = Static<typeof PaymentLinkSchema>;

export const CheckoutSchema = Type.Object(
  {
    id: Uuid(),
    paymentLinkId: Uuid(),
    url: Type.String({ description: "the session's page" }),
    status: Type.Union(CHECKOUT_STATUSES.map((s) => Type.Literal(s))),
    partial: Type.Boolean({ description: 'paid in time but short of the amount (beyond the tolerance)' }),
    overpaid: Type.Boolean({ description: 'more than the amount arrived' }),
    paidLate: Type.Boolean({ description: 'a payment arrived after expiresAt (within the monitoring window)' }),
    amount: Type.String({ description: 'due, in the asset' }),
    amountPaid: Type.String({ description: 'seen so far (pending or confirmed), in time or late' }),
    amountConfirmed: Type.String(),
    amountDue: Type.String({ description: 'what is still missing of `amount` (0 when paid)' }),
    currency: Type.String({ description: "the asset's symbol" }),
    asset: Type.Object({ id: Uuid(), symbol: Type.String(), decimals: Type.Integer(), address: Type.String() }),
    blockchain: Type.Object({ slug: Type.String(), name: Type.String() }),
    network: Type.String(),
    walletId: Uuid(),
    address: Type.String({ description: 'the dedicated child address to pay' }),
    addressId: Uuid(),
    paymentUri: Nullable(Type.String({ description: "the chain's payment URI (EIP-681, Solana Pay, Tron); the QR code's content" })),
    paymentReference: Nullable(Type.String({ description: "Solana Pay's reference key" })),
    expiresAt: Timestamp,
    monitorUntil: Timestamp,
    reference: Nullable(Type.String()),
    email: Nullable(Type.String()),
    name: Nullable(Type.String()),
    redirectUrl: Nullable(Type.String()),
    metadata: Nullable(Type.Object({}, { additionalProperties: true })),
    createdChannel: Type.String(),
    settledAt: Nullable(Timestamp),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Checkout' },
);
export type CheckoutView = Static<typeof CheckoutSchema>;

/** What a payer (or the merchant, for them) fills in when a session starts. */
export const CreateCheckoutBody = Type.Object(
  {
    walletId: Type.Optional(Uuid('one of the wallets the link accepts; may be left out when it accepts one')),
    asset: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'symbol or id; may be left out when one fits' })),
    amount: Type.Optional(Amount),
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    email: Type.Optional(Type.String({ maxLength: 254, format: 'email' })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    redirectUrl: Type.Optional(Url),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateCheckoutBody = Static<typeof CreateCheckoutBody>;

export const LinkParams = Type.Object({ id: Uuid('payment link id') });
export const CheckoutParams = Type.Object({ id: Uuid('checkout id') });
export const ListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });
