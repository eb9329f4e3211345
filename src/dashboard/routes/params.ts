/** Path parameters: a malformed id is as unknown as a missing one (404), as in the API. */
import type { FastifyRequest } from 'fastify';
import { NotFoundError } from '../../lib/errors.js';
import { UUID_PATTERN } from '../../lib/ids.js';

const UUID = new RegExp(UUID_PATTERN);

function param(req: FastifyRequest, name: string, what: string): string {
  const value = (req.params as Record<string, string | undefined>)[name];
  if (!value || !UUID.test(value)) throw new NotFoundError(what);
  return value;
}

export const walletIdParam = (req: FastifyRequest) => param(req, 'walletId', 'Wallet');
export const transactionIdParam = (req: FastifyRequest) => param(req, 'transactionId', 'Transaction');
export const assetIdParam = (req: FastifyRequest) => param(req, 'assetId', 'Asset');
export const apiKeyIdParam = (req: FastifyRequest) => param(req, 'keyId', 'API key');
export const paymentLinkIdParam = (req: FastifyRequest) => param(req, 'linkId', 'Payment link');
