import { Type, type Static } from '@sinclair/typebox';
import { Nullable, PageQuery, Timestamp, Uuid } from '../../lib/schema.js';

export const FREQUENCIES = ['INSTANT', 'DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

export const Frequency = Type.Union(
  FREQUENCIES.map((f) => Type.Literal(f)),
  { description: 'INSTANT (after each deposit reaches the master address) or a UTC period: DAILY, WEEKLY (Monday), MONTHLY, YEARLY' },
);

export const BeneficiarySchema = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    address: Type.String(),
    isActive: Type.Boolean(),
    isDefault: Type.Boolean(),
    isSettlement: Type.Boolean(),
    isWhitelisted: Type.Boolean({
      description: 'when any beneficiary of the wallet is whitelisted, withdrawals go only to whitelisted ones',
    }),
    settlementFrequency: Nullable(Frequency),
    deletedAt: Nullable(Timestamp),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Beneficiary' },
);
export type BeneficiaryView = Static<typeof BeneficiarySchema>;

export const BeneficiaryParams = Type.Object({ walletId: Uuid('master wallet id'), id: Uuid('beneficiary id') });

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Address = Type.String({ minLength: 1, maxLength: 128, description: 'destination address (EIP-55 checksum checked when mixed case)' });

export const CreateBeneficiaryBody = Type.Object(
  {
    name: Name,
    address: Address,
    settlementFrequency: Type.Optional(Frequency),
    isWhitelisted: Type.Optional(Type.Boolean()),
    isSettlement: Type.Optional(
      Type.Boolean({ description: 'extension; defaults to true when settlementFrequency is given, which it then requires' }),
    ),
    isDefault: Type.Optional(Type.Boolean({ description: 'extension; the default wins among settlement beneficiaries' })),
  },
  { additionalProperties: false },
);
export type CreateBeneficiaryBody = Static<typeof CreateBeneficiaryBody>;

export const UpdateBeneficiaryBody = Type.Object(
  {
    name: Type.Optional(Name),
    isSettlement: Type.Optional(Type.Boolean()),
    settlementFrequency: Type.Optional(Frequency),
    isWhitelisted: Type.Optional(Type.Boolean()),
    isActive: Type.Optional(Type.Boolean()),
    isDefault: Type.Optional(Type.Boolean({ description: 'extension' })),
  },
  { additionalProperties: false },
);
export type UpdateBeneficiaryBody = Static<typeof UpdateBeneficiaryBody>;

export const ListBeneficiariesQuery = Type.Object(
  {
    ...PageQuery,
    isActive: Type.Optional(Type.Boolean()),
    isWhitelisted: Type.Optional(Type.Boolean()),
    isSettlement: Type.Optional(Type.Boolean()),
    includeDeleted: Type.Optional(Type.Boolean({ default: false, description: 'also list soft-deleted beneficiaries' })),
  },
  { additionalProperties: false },
);
export type ListBeneficiariesQuery = Static<typeof ListBeneficiariesQuery>;
