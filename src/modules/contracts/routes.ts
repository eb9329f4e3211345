import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, ok } from '../../lib/schema.js';
import { WalletParams } from '../wallets/schemas.js';
import { AddressParams } from '../addresses/schemas.js';
import { withCalls } from './body.js';
import type { ContractService } from './service.js';
import { ContractCallsBody, NETWORK_FEE_HELP, NetworkFee, ReadResult, TransactionOrList } from './schemas.js';

const TAGS = ['Smart contracts'];
const ERRORS =
  '400: malformed ABI, unknown method, wrong parameters, `calls` together with a top-level call (nothing is written). 422 `CONTRACT_REVERTED` with the decoded revert reason, `NOT_A_CONTRACT`, `CONTRACT_CALL_FAILED`.';
const CHILD = ' Extension: acts as the child address (its key, its balance).';
const FORMS =
  'Body: `calls: [...]`, or one call as top-level `address`, `method`, `parameters`, `abi` (answered as a one-element `calls`).';
const RULES =
  "A call that moves the wallet's funds (native `value`; a catalogue token's transfer, transferFrom from a wallet address, approve, increaseAllowance, judged by selector) obeys the withdrawal rules. 422 `INSUFFICIENT_FUNDS_FOR_GAS`, `INSUFFICIENT_BALANCE`, `NOT_WHITELISTED`, `CONTRACT_WRITES_DISABLED`, `CONTRACT_NOT_ALLOWED`, `WALLET_INACTIVE`.";

export const contractsRoutes: FastifyPluginAsyncTypebox<{ service: ContractService }> = async (app, { service }) => {
  for (const scope of ['wallet', 'address'] as const) {
    const base = scope === 'wallet' ? '/v1/wallets/:walletId/contracts' : '/v1/wallets/:walletId/addresses/:addressId/contracts';
    const params = scope === 'wallet' ? WalletParams : AddressParams;
    const who = scope === 'wallet' ? 'the master address' : 'a child address';
    const child = scope === 'address' ? CHILD : '';
    const addressOf = (p: { walletId: string; addressId?: string }) => (scope === 'address' ? p.addressId : undefined);

    app.post(
      `${base}/read`,
      {
        schema: {
          tags: TAGS,
          summary: `Read contract data (eth_call from ${who})`,
          description: `\`data\` is the value as a string: integers in decimal, arrays, structs and several outputs as JSON. Several calls give an array in call order. ${FORMS}${child} ${ERRORS}`,
          params,
          body: ContractCallsBody,
          response: { 200: Envelope(ReadResult) },
        },
      },
      async (req) =>
        ok(
          await withCalls(req.body, (calls) => service.read(req.auth, req.params.walletId, addressOf(req.params), calls)),
          'Contract read successfully',
        ),
    );

    app.post(
      `${base}/write`,
      {
        schema: {
          tags: TAGS,
          summary: `Execute contract functions from ${who} and broadcast`,
          description: `Each call is simulated first; a revert is a 422 and nothing is written. Returns a PENDING CUSTOM_SMART_CONTRACT Transaction per call (an array for several, sent in call order); \`custom-smart-contract.success\` or \`.failed\` follows. ${RULES} ${FORMS}${child} ${ERRORS}`,
          params,
          body: ContractCallsBody,
          response: { 200: Envelope(TransactionOrList) },
        },
      },
      async (req) =>
        ok(
          await withCalls(req.body, (calls) => service.write(req.auth, req.params.walletId, addressOf(req.params), calls)),
          'Contract transaction submitted successfully',
        ),
    );

    app.post(
      `${base}/network-fee`,
      {
        schema: {
          tags: TAGS,
          summary: `Estimate the network fee of contract calls from ${who}`,
          description: `${NETWORK_FEE_HELP} ${FORMS}${child} ${ERRORS}`,
          params,
          body: ContractCallsBody,
          response: { 200: Envelope(NetworkFee) },
        },
      },
      async (req) =>
        ok(
          await withCalls(req.body, (calls) => service.networkFee(req.auth, req.params.walletId, addressOf(req.params), calls)),
          'Network fee estimated successfully',
        ),
    );

    app.post(
      `${base}/write/sign`,
      {
        schema: {
          tags: TAGS,
          summary: `Sign contract calls from ${who} without broadcasting`,
          description: `Returns a SIGNED Transaction per call whose \`signedTransaction\` is a raw EIP-1559 transaction (on Tron: the hex of the signed \`Transaction\` that \`/wallet/broadcasthex\` takes, valid until the node's expiration, about 60 s; no nonce). The wallet's contract-write setting, the whitelist and the balance check apply as for write (nothing is reserved). The nonce is the address's next one and is not reserved: if the service sends from this address before the raw transaction is broadcast, only one of them can be mined. ${FORMS} ${ERRORS}`,
          params,
          body: ContractCallsBody,
          response: { 200: Envelope(TransactionOrList) },
        },
      },
      async (req) =>
        ok(
          await withCalls(req.body, (calls) => service.writeSign(req.auth, req.params.walletId, addressOf(req.params), calls)),
          'Contract transaction signed successfully',
        ),
    );
  }
};
