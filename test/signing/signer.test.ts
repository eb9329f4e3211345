/** LocalSigner.signTypedData on its own: the key, the address guard and the digest cross-check. */
import { describe, expect, it } from 'vitest';
import { recoverTypedDataAddress, type TypedDataDefinition } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { prepareTypedData } from '../../src/chains/evm/typed-data.js';
import { localSigner } from '../support/signer.js';
import { prepareMessage } from '../../src/chains/evm/message.js';

const MNEMONIC = 'test test test test test test test test test test test junk';
const input = {
  domain: { name: 'Permit', version: '1', chainId: 31337, verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC' },
  types: {
    Permit: [
      { name: 'owner', type: 'address' },
      { name: 'value', type: 'uint256' },
    ],
  },
  message: { owner: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', value: '1000000' },
};

describe('LocalSigner.signTypedData', () => {
  const signer = localSigner(async () => MNEMONIC);
  const payload = prepareTypedData(input);

  it('signs with the key of the index, as viem does, and the parts match the signature', async () => {
    for (const index of [0, 3]) {
      const sig = await signer.signTypedData('w', index, payload);
      const account = mnemonicToAccount(MNEMONIC, { addressIndex: index });
      const definition = {
        ...input,
        primaryType: 'Permit',
        message: { ...input.message, value: 1_000_000n },
      } as unknown as TypedDataDefinition;
      expect(sig.signature).toBe(await account.signTypedData(definition));
      expect(await recoverTypedDataAddress({ ...definition, signature: sig.signature as `0x${string}` })).toBe(account.address);
      expect(sig.signature).toBe(`${sig.r}${sig.s.slice(2)}${sig.v.toString(16)}`);
    }
  });

  it('refuses a key that is not the expected signer, and a payload changed after validation', async () => {
    const other = mnemonicToAccount(MNEMONIC, { addressIndex: 1 }).address;
    await expect(signer.signTypedData('w', 0, payload, other)).rejects.toThrow('is not the signer');
    const tampered = { ...payload, message: { ...payload.message, value: 2_000_000n } };
    await expect(signer.signTypedData('w', 0, tampered)).rejects.toThrow('digest mismatch');
  });
});

describe('LocalSigner.signMessage (EIP-191)', () => {
  const signer = localSigner(async () => MNEMONIC);

  it("signs text and bytes with the key of the index exactly as viem's signMessage, and checks the digest", async () => {
    for (const index of [0, 2]) {
      const account = mnemonicToAccount(MNEMONIC, { addressIndex: index });
      const text = await signer.signMessage('w', index, prepareMessage('hello'), account.address);
      expect(text.signature).toBe(await account.signMessage({ message: 'hello' }));
      const bytes = await signer.signMessage('w', index, prepareMessage('0x68656c6c6f'));
      expect(bytes.signature).toBe(text.signature);
    }
    const payload = prepareMessage('pay 1 USDC');
    await expect(signer.signMessage('w', 0, { ...payload, message: 'pay 1000 USDC' })).rejects.toThrow('digest mismatch');
    await expect(signer.signMessage('w', 0, payload, mnemonicToAccount(MNEMONIC, { addressIndex: 1 }).address)).rejects.toThrow(
      'is not the signer',
    );
  });
});
