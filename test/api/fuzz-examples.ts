/**
 * One known-good request per operation that takes a body or a query: the fuzz test sends
 * them as they are and with one nasty value in them, so bad text reaches every service
 * (and its SQL) rather than stopping at the schema. A stale example only costs depth: the
 * fuzz test also checks that most routes answered 200 at least once.
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { FRESH, OUTSIDE, type Examples } from '../support/fuzz-requests.js';

const importedKey = generatePrivateKey();
const IMPORTED = { privateKey: importedKey, address: privateKeyToAccount(importedKey).address };

export interface ExampleWorld {
  slug: string;
  network: string;
  symbols: string[];
  master: string;
  token: string;
  nativeAssetId: string;
  tokenAssetId: string;
  depositId: string;
  withdrawalId: string;
}

const ERC20 = [
  {
    type: 'function',
    name: 'balanceOf',
    stateMutability: 'view',
    inputs: [{ name: 'owner', type: 'address' }],
    outputs: [{ type: 'uint256' }],
  },
  {
    type: 'function',
    name: 'approve',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'spender', type: 'address' },
      { name: 'value', type: 'uint256' },
    ],
    outputs: [{ type: 'bool' }],
  },
];

export function fuzzExamples(w: ExampleWorld): Examples {
  const metadata = { customer: 'c-1', tags: ['a', 'b'], nested: { level: 1, note: 'n' } };
  const withdrawal = { assetId: w.nativeAssetId, address: OUTSIDE, amount: '0.000001', reference: `ref-${FRESH}`, note: 'note', metadata };
  const batch = { assets: [{ id: w.nativeAssetId, address: OUTSIDE, amount: '0.000001', reference: `b-${FRESH}`, note: 'n', metadata }] };
  const read = { calls: [{ address: w.token, method: 'balanceOf', parameters: [w.master], abi: ERC20 }] };
  const write = { calls: [{ address: w.token, method: 'approve', parameters: [OUTSIDE, '1'], abi: ERC20 }] };
  const rule = {
    name: 'sweep to treasury',
    isActive: true,
    order: 'CHEAPEST',
    slippageTolerance: '0.5',
    source: { assets: [w.symbols[0]], blockchain: w.slug, minAmount: '1' },
    destination: { asset: w.symbols[0], address: OUTSIDE, blockchain: w.slug },
  };
  const txQuery = { page: '1', limit: '10', reference: 'ref-1', assets: w.symbols.join(','), status: 'PENDING', order: 'ASC' };
  const typed = {
    domain: { name: 'Mail', version: '1', chainId: 1, verifyingContract: w.token },
    types: {
      Mail: [
        { name: 'from', type: 'address' },
        { name: 'contents', type: 'string' },
        { name: 'amount', type: 'uint256' },
      ],
    },
    primaryType: 'Mail',
    message: { from: w.master, contents: 'hello', amount: '10' },
  };
  return {
    'POST /v1/wallets': [{ body: { blockchain: w.slug, network: w.network, name: 'fuzz wallet', description: 'made by the fuzz test' } }],
    'GET /v1/wallets': [{ query: { page: '1', limit: '5' } }],
    'PATCH /v1/wallets/{walletId}': [
      {
        body: {
          name: 'renamed',
          description: 'd',
          webhookUrl: 'http://127.0.0.1:9/hook',
          configurations: {
            autoSweeping: { isActive: true, threshold: 0 },
            addresses: { isActive: true, prefunding: { isActive: false, rules: [{ a: 'b' }] } },
          },
        },
      },
    ],
    'GET /v1/wallets/{walletId}/addresses': [{ query: { type: 'INTERNAL', isActive: 'true', page: '1' } }],
    'POST /v1/wallets/{walletId}/addresses': [
      { body: { name: 'child', metadata, disableAutoSweep: false } },
      { body: { name: 'with key', showPrivateKey: true, enableGaslessWithdraw: false } },
    ],
    'GET /v1/wallets/{walletId}/addresses/{addressId}': [{ query: { showPrivateKey: 'true' } }],
    'PATCH /v1/wallets/{walletId}/addresses/{addressId}': [
      { body: { name: 'renamed', metadata, isActive: true, configurations: { disableAutoSweep: true } } },
      { body: { disableAutoSweep: true, enableGaslessWithdraw: false, showPrivateKey: true } },
    ],
    'POST /v1/wallets/{walletId}/addresses/whitelist': [
      { body: { address: OUTSIDE, name: 'outside', metadata, disableAutoSweep: true, enableGaslessWithdraw: false } },
      // An imported key (generated for this run) with its address.
      { body: { address: IMPORTED.address, privateKey: IMPORTED.privateKey, showPrivateKey: true } },
    ],
    'PATCH /v1/wallets/{walletId}/assets/{assetId}': [{ body: { isActive: true } }],
    'POST /v1/wallets/{walletId}/assets': [{ body: { assetId: w.tokenAssetId } }],
    'GET /v1/assets': [{ query: { network: w.network, symbol: w.symbols[0]!, page: '1', limit: '10' } }],
    'GET /v1/assets/rates': [{ query: { assets: w.symbols.join(','), currency: 'USD' } }],
    'GET /v1/rates': [{ query: { assets: w.symbols.join(','), currency: 'USD' } }],
    'GET /v1/wallets/{walletId}/balances': [
      { body: { address: w.master, asset_id: w.tokenAssetId } },
      { query: { address: w.master.toLowerCase() } },
    ],
    'GET /v1/wallets/{walletId}/balance': [{ query: { assetId: w.tokenAssetId } }, { query: {} }],
    'GET /v1/wallets/{walletId}/addresses/{addressId}/balance': [{ query: { assetId: w.tokenAssetId } }, { query: {} }],
    'POST /v1/wallets/{walletId}/transactions/webhooks/resend': [{ body: { id: w.depositId } }],
    'GET /v1/wallets/{walletId}/webhooks': [{ query: { page: '1', limit: '3' } }],
    'GET /v1/wallets/{walletId}/webhook-logs': [{ query: { page: '1', limit: '3' } }],
    'POST /v1/wallets/{walletId}/webhooks/trigger': [{ body: { event: 'deposit.success' } }],
    'GET /v1/events': [{ query: { types: 'deposit.success,withdraw.success', limit: '10' } }, { query: {} }],
    'GET /v1/events/stream': [{ query: { types: 'deposit.success' } }],
    'GET /v1/wallets/{walletId}/addresses/{addressId}/transactions': [{ query: txQuery }],
    'GET /v1/wallets/{walletId}/transactions': [
      { query: txQuery },
      { query: { startDate: '2020-01-01T00:00:00.000Z', endDate: '2099-01-01T00:00:00Z' } },
    ],
    'POST /v1/wallets/{walletId}/rescan/blocks': [{ body: { transactionHash: `0x${'ab'.repeat(32)}` } }, { body: { blockNumber: 1 } }],
    'POST /v1/wallets/{walletId}/deposit-finder': [{ body: { blockNumber: '1' } }],
    'POST /v1/wallets/{walletId}/transactions/sweep/assets': [{ body: { transactionId: w.depositId } }],
    'POST /v1/wallets/{walletId}/sweep/assets': [{ body: { transactionId: w.depositId } }],
    'POST /v1/wallets/{walletId}/withdraw': [{ body: withdrawal }, { body: batch }, { body: { ...withdrawal, gasLimit: '60000' } }],
    'POST /v1/wallets/{walletId}/addresses/{addressId}/withdraw': [{ body: withdrawal }],
    'POST /v1/wallets/{walletId}/addresses/{addressId}/withdraw/sign': [{ body: withdrawal }],
    'POST /v1/wallets/{walletId}/withdraw/network-fee': [{ body: withdrawal }, { body: batch }],
    'POST /v1/wallets/{walletId}/addresses/{addressId}/withdraw/network-fee': [{ body: withdrawal }],
    'POST /v1/wallets/{walletId}/transactions/cancel': [{ body: { id: w.withdrawalId } }],
    'POST /v1/wallets/{walletId}/transactions/retry': [{ body: { id: w.withdrawalId } }],
    'POST /v1/wallets/{walletId}/contracts/read': [{ body: read }, { body: read.calls[0] }],
    'POST /v1/wallets/{walletId}/contracts/write': [{ body: write }],
    'POST /v1/wallets/{walletId}/contracts/network-fee': [{ body: write }],
    'POST /v1/wallets/{walletId}/addresses/{addressId}/contracts/read': [{ body: read }],
    'POST /v1/wallets/{walletId}/addresses/{addressId}/contracts/write': [{ body: write }],
    'POST /v1/wallets/{walletId}/addresses/{addressId}/contracts/network-fee': [{ body: write }],
    'POST /v1/wallets/{walletId}/addresses/{addressId}/contracts/write/sign': [{ body: write }],
    'POST /v1/wallets/{walletId}/signing/typed-data': [{ body: typed }],
    'POST /v1/wallets/{walletId}/sign/typed-data': [{ body: typed }],
    'POST /v1/wallets/{walletId}/signing/message': [{ body: { message: 'hello' } }, { body: { message: '0x68656c6c6f' } }],
    'POST /v1/wallets/{walletId}/sign/message': [{ body: { message: 'hello' } }],
    'POST /v1/wallets/{walletId}/addresses/{addressId}/signing/message': [{ body: { message: 'hello' } }],
    'POST /v1/wallets/{walletId}/addresses/{addressId}/sign/message': [{ body: { message: 'hello' } }],
    'POST /v1/wallets/{walletId}/withdraw/sign': [{ body: withdrawal }],
    'POST /v1/wallets/{walletId}/withdraw/sign-only': [{ body: withdrawal }],
    'POST /v1/wallets/{walletId}/addresses/{addressId}/withdraw/sign-only': [{ body: withdrawal }],
    'POST /v1/wallets/{walletId}/contracts/write/sign': [{ body: write }, { body: write.calls[0] }],
    'PATCH /v1/wallets/{walletId}/auto-settlements': [{ body: { isActive: true, name: 'settle' } }],
    'POST /v1/wallets/{walletId}/auto-settlements/rules': [{ body: rule }],
    'PATCH /v1/wallets/{walletId}/auto-settlements/rules/{id}': [{ body: { name: 'renamed', isActive: true, slippageTolerance: '1' } }],
    'PATCH /v1/wallets/{walletId}/addresses/{addressId}/auto-settlements': [{ body: { isActive: true } }],
    'POST /v1/wallets/{walletId}/addresses/{addressId}/auto-settlements/rules': [{ body: rule }],
    'PATCH /v1/wallets/{walletId}/addresses/{addressId}/auto-settlements/rules/{id}': [{ body: { name: 'renamed', isActive: false } }],
    'POST /v1/wallets/{walletId}/beneficiaries': [
      { body: { name: 'payee', address: OUTSIDE, settlementFrequency: 'DAILY', isWhitelisted: false, isSettlement: true } },
    ],
    'GET /v1/wallets/{walletId}/beneficiaries': [{ query: { isActive: 'true', includeDeleted: 'true', limit: '2' } }],
    'PATCH /v1/wallets/{walletId}/beneficiaries/{id}': [{ body: { name: 'renamed', settlementFrequency: 'WEEKLY', isActive: true } }],
    'GET /v1/wallets/{walletId}/beneficiaries/{id}/settlements': [{ query: { page: '1' } }],
  };
}
