/**
 * Signing on a Solana chain through HTTP, against the validator stand-in: messages signed as
 * Solana wallets sign them (ed25519 over the bytes, base58), verified with @noble/curves
 * against the master's and a child's address; a message that is a transaction of the signer
 * refused (422 MESSAGE_NAMES_SIGNER) so that message signing can never move money; typed data
 * (EIP-712) and smart-contract calls refused with 422, writing nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import {
  address as kitAddress,
  appendTransactionMessageInstruction,
  compileTransaction,
  createNoopSigner,
  createSolanaRpc,
  createTransactionMessage,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { bytesToHex, stringToBytes } from 'viem';
import { childOf, outsideAccount, startSolanaWorld, writtenRows, type SolanaWorld } from './misc-world.js';

let w: SolanaWorld;

beforeAll(async () => {
  w = await startSolanaWorld('solana-signing', 990_401);
}, 60_000);

afterAll(async () => {
  await w?.stop();
});

const verify = (signature: string, message: Uint8Array, address: string) =>
  ed25519.verify(base58.decode(signature), message, base58.decode(address));

describe('message signing on Solana (ed25519 over the message bytes)', () => {
  it("the master's signature of a text verifies with ed25519 against the master's address", async () => {
    const message = 'Pay 12.50 USDC to order #1042 — merci';
    const res = await w.h.api('POST', `/v1/wallets/${w.wallet.id}/signing/message`, { key: w.wallet.apiKey, body: { message } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const t = res.body.data;
    expect(t).toMatchObject({ type: 'SIGNED', status: 'SUCCESS', confirmed: true, senderAddress: w.wallet.address });
    expect(t.response).toMatchObject({
      kind: 'solana:signMessage',
      encoding: 'text',
      message,
      digest: bytesToHex(stringToBytes(message)),
    });
    const { signature, publicKey } = t.signedTransaction as { signature: string; publicKey: string };
    expect(publicKey).toBe(w.wallet.address);
    expect(base58.decode(signature)).toHaveLength(64);
    expect(verify(signature, new TextEncoder().encode(message), w.wallet.address)).toBe(true);
    // Another text, or another key, does not verify.
    expect(verify(signature, new TextEncoder().encode(`${message}.`), w.wallet.address)).toBe(false);
    expect(verify(signature, new TextEncoder().encode(message), outsideAccount().address)).toBe(false);
    // The row is listed with the wallet's transactions.
    const listed = await w.h.api('GET', `/v1/wallets/${w.wallet.id}/transactions/${t.id}`, { key: w.wallet.apiKey });
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.data.signedTransaction).toEqual({ signature, publicKey });
  });

  it("a child's signature of bytes (0x hex) verifies against the child's address", async () => {
    const child = await childOf(w);
    const hex = '0x00ff48656c6c6f20536f6c616e61';
    const res = await w.h.api('POST', `/v1/wallets/${w.wallet.id}/addresses/${child.id}/signing/message`, {
      key: w.wallet.apiKey,
      body: { message: hex },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const t = res.body.data;
    expect(t).toMatchObject({ type: 'SIGNED', senderAddress: child.address });
    expect(t.response).toMatchObject({ kind: 'solana:signMessage', encoding: 'bytes', message: hex });
    const { signature, publicKey } = t.signedTransaction as { signature: string; publicKey: string };
    expect(publicKey).toBe(child.address);
    expect(verify(signature, Buffer.from(hex.slice(2), 'hex'), child.address)).toBe(true);
    expect(verify(signature, Buffer.from(hex.slice(2), 'hex'), w.wallet.address)).toBe(false);
  });

  it('refuses the bytes of a transaction the master would pay for (422 MESSAGE_NAMES_SIGNER): nothing signed, nothing written, no SOL moves', async () => {
    await w.sol.control.fund(w.wallet.address, 1_000_000_000n);
    const rpc = createSolanaRpc(w.sol.url);
    const { value: latest } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
    const master = createNoopSigner(kitAddress(w.wallet.address));
    const thief = outsideAccount().address;
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(master, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
      (m) =>
        appendTransactionMessageInstruction(
          getTransferSolInstruction({ source: master, destination: kitAddress(thief), amount: 500_000_000n }),
          m,
        ),
    );
    const bytes = new Uint8Array(compileTransaction(message).messageBytes);
    const before = await writtenRows(w);
    const res = await w.h.api('POST', `/v1/wallets/${w.wallet.id}/signing/message`, {
      key: w.wallet.apiKey,
      body: { message: bytesToHex(bytes) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body).toMatchObject({ statusCode: 422, error: 'MESSAGE_NAMES_SIGNER' });
    expect(JSON.stringify(res.body)).not.toMatch(/signature/i);
    expect(await writtenRows(w)).toEqual(before);
    expect((await w.adapter.getBalances([{ owner: thief, token: null }]))[0]).toBe(0n);
  });

  it('answers 400 for an empty message or odd-length hex, writing nothing', async () => {
    const before = await writtenRows(w);
    for (const message of ['', '0x', '0xabc']) {
      const res = await w.h.api('POST', `/v1/wallets/${w.wallet.id}/signing/message`, { key: w.wallet.apiKey, body: { message } });
      expect(res.status, `${message}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
    }
    expect(await writtenRows(w)).toEqual(before);
  });
});

describe('what Solana does not sign or call', () => {
  it('typed data (EIP-712) answers 422 TYPED_DATA_NOT_SUPPORTED and writes nothing', async () => {
    const before = await writtenRows(w);
    const res = await w.h.api('POST', `/v1/wallets/${w.wallet.id}/signing/typed-data`, {
      key: w.wallet.apiKey,
      body: {
        domain: { name: 'Example', version: '1', chainId: 1, verifyingContract: '0x0000000000000000000000000000000000000001' },
        types: { Mail: [{ name: 'contents', type: 'string' }] },
        message: { contents: 'hello' },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body).toMatchObject({ statusCode: 422, error: 'TYPED_DATA_NOT_SUPPORTED' });
    expect(res.body.message).toMatch(/Typed data \(EIP-712\) signing is not available on .*Solana.*sign a message instead/);
    expect(await writtenRows(w)).toEqual(before);
  });

  it('contract read, write, write/sign and network-fee answer 422 NOT_SUPPORTED from the master and a child, writing nothing', async () => {
    const child = await childOf(w);
    const call = {
      address: w.usdc,
      method: 'transfer',
      parameters: [outsideAccount().address, '1'],
      abi: [
        {
          type: 'function',
          name: 'transfer',
          stateMutability: 'nonpayable',
          inputs: [
            { name: 'to', type: 'address' },
            { name: 'amount', type: 'uint256' },
          ],
          outputs: [{ name: '', type: 'bool' }],
        },
      ],
    };
    const before = await writtenRows(w);
    for (const base of [`/v1/wallets/${w.wallet.id}`, `/v1/wallets/${w.wallet.id}/addresses/${child.id}`]) {
      for (const op of ['read', 'write', 'write/sign', 'network-fee']) {
        const res = await w.h.api('POST', `${base}/contracts/${op}`, { key: w.wallet.apiKey, body: call });
        expect(res.status, `${op}: ${JSON.stringify(res.body)}`).toBe(422);
        expect(res.body).toMatchObject({ statusCode: 422, error: 'NOT_SUPPORTED' });
        expect(res.body.message).toMatch(/Smart-contract calls are not available on .*Solana/);
      }
    }
    expect(await writtenRows(w)).toEqual(before);
  });
});
