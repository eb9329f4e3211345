import { describe, expect, it } from 'vitest';
import { base58 } from '@scure/base';
import { evmPaymentRequests } from './evm/payment-uri.js';
import { solanaPaymentRequests } from './solana/payment-uri.js';
import { tronPaymentRequests } from './tron/payment-uri.js';

const request = { recipient: 'R', token: 'T', amount: 12_500_000n, decimals: 6 };

describe("each family's payment URI", () => {
  it("EVM: EIP-681 on the adapter's chain id, a token transfer in base units, or a native value", () => {
    const evm = evmPaymentRequests(31337);
    expect(evm.uri({ ...request, recipient: '0xabc', token: '0xdef' })).toBe(
      'ethereum:0xdef@31337/transfer?address=0xabc&uint256=12500000',
    );
    expect(evm.uri({ ...request, recipient: '0xabc', token: null, amount: 10n ** 18n, decimals: 18 })).toBe(
      'ethereum:0xabc@31337?value=1000000000000000000',
    );
  });

  it("Tron: the BIP-21 form, the amount in the token's units", () => {
    expect(tronPaymentRequests.uri({ ...request, recipient: 'TAddr', token: 'TToken' })).toBe('tron:TAddr?amount=12.5&token=TToken');
  });

  it('Solana: a Solana Pay transfer request with a fresh 32-byte reference key', () => {
    const solana = solanaPaymentRequests;
    const reference = solana.newReference!();
    expect(base58.decode(reference)).toHaveLength(32);
    expect(solana.newReference!()).not.toBe(reference);
    expect(solana.uri({ ...request, recipient: 'Sol1', token: 'Mint1', reference, label: 'Coffee & beans' })).toBe(
      `solana:Sol1?amount=12.5&spl-token=Mint1&reference=${reference}&label=Coffee%20%26%20beans`,
    );
    expect(solana.uri({ ...request, recipient: 'Sol1', token: null, amount: 1n, decimals: 9 })).toBe('solana:Sol1?amount=0.000000001');
  });
});
