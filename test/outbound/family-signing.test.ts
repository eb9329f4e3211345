/**
 * The EVM family signs through a key the signer lends (Signer.withKey + EvmSender.sign):
 * the bytes must be exactly those the signer's own EIP-1559 path produced before the seam
 * (signatures are deterministic, RFC 6979), and a lent key must not outlive its turn.
 */
import { describe, expect, it } from 'vitest';
import { recoverTransactionAddress, type TransactionSerializedEIP1559 } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { EvmSender } from '../../src/chains/evm/sender.js';
import type { SigningKey, TxIntent } from '../../src/chains/types.js';
import { localSigner } from '../support/signer.js';

const MNEMONIC = 'test test test test test test test test test test test junk';
const unused = () => Promise.reject(new Error('no node in this test'));
const sender = new EvmSender({ getNonce: unused, estimateFees: unused, estimateGas: unused, getReceipt: unused }, { chainId: 31337 });
const to = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const network = { gasLimit: '50000', maxFeePerGas: '3000000000', maxPriorityFeePerGas: '1000000000' };

describe('signing through the seam', () => {
  it('gives the same bytes as the signer signing the EIP-1559 transaction itself, for a child and the master', async () => {
    const signer = localSigner(async () => MNEMONIC);
    for (const index of [0, 3]) {
      const from = mnemonicToAccount(MNEMONIC, { addressIndex: index }).address;
      const intent: TxIntent = { kind: 'call', from, to, value: 12_345n, data: '0xabcdef' };
      const viaSeam = await signer.withKey('w', index, from, (key) => sender.sign(intent, 7n, network, key));
      const direct = await signer.signTransaction('w', index, 31337, {
        from,
        to,
        value: 12_345n,
        data: '0xabcdef',
        nonce: 7,
        gas: 50_000n,
        maxFeePerGas: 3_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
      });
      expect(viaSeam).toEqual(direct);
      expect(await recoverTransactionAddress({ serializedTransaction: viaSeam.raw as TransactionSerializedEIP1559 })).toBe(from);
    }
  });

  it('refuses a key that is not the sender, and a lent key used after its turn', async () => {
    const signer = localSigner(async () => MNEMONIC);
    const other = mnemonicToAccount(MNEMONIC, { addressIndex: 1 }).address;
    await expect(signer.withKey('w', 2, other, () => 'signed')).rejects.toThrow(/is not the sender/);
    let kept: SigningKey | undefined;
    await signer.withKey('w', 2, undefined, (key) => (kept = key));
    expect(() => kept!.signDigest(new Uint8Array(32))).toThrow(/after its turn/);
  });

  it('refuses an unprepared transaction and a nonce beyond what a transaction can carry', async () => {
    const signer = localSigner(async () => MNEMONIC);
    const intent: TxIntent = { kind: 'native', from: mnemonicToAccount(MNEMONIC).address, to, amount: 1n };
    await expect(signer.withKey('w', 0, undefined, (key) => sender.sign(intent, 0n, { gasLimit: '21000' }, key))).rejects.toThrow(
      /not prepared/,
    );
    await expect(signer.withKey('w', 0, undefined, (key) => sender.sign(intent, 2n ** 64n, network, key))).rejects.toThrow(/out of range/);
  });
});
