/**
 * An unlisted token's decimals are read on chain, from a contract anyone can deploy (or, on a
 * chain named by rpcUrl, from the client's own node), and ERC-20's decimals() is not bounded
 * by the decoder: a uint8 in the ABI, any 32-byte word on the wire. A token answering
 * 1,000,000,000 made the amount parser build a billion-character string (a 500, and short of
 * V8's limit, hundreds of megabytes and a stalled event loop on the API replica); one answering
 * 100 passed every check and broke the Transaction's insert (amount_decimals holds 0 to 77,
 * what a uint256 amount can carry): a 500. More than 77 is no amount this service can count:
 * 422 NOT_A_TOKEN, nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { getAddress, parseAbi, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { loadArtifact } from '../../src/devnet/compile.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';

let h: Harness;
let eth: TestChain;
const wallet = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${wallet().id}`;
const fresh = () => privateKeyToAccount(generatePrivateKey()).address;
const blockchainId = () => h.services.catalogue.findChain('devnet-eth', 'testnet')!.row.blockchain_id;

/** A contract answering every call with one 32-byte word: decimals() says `value`. */
async function constantContract(value: number): Promise<Address> {
  const word = value.toString(16).padStart(8, '0');
  // runtime: PUSH4 value, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN (13 bytes)
  const code = `63${word}60005260206000f3`;
  // init: PUSH13 runtime, PUSH1 0, MSTORE, PUSH1 13, PUSH1 19, RETURN
  const init = `0x6c${code}600052600d6013f3` as Hex;
  const hash = await eth.wallet.sendTransaction({ data: init, chain: null });
  return getAddress((await eth.pub.waitForTransactionReceipt({ hash })).contractAddress!);
}

beforeAll(async () => {
  h = await startHarness({});
  eth = chainOf(h, 'devnet-eth');
}, 90_000);
afterAll(async () => {
  await h?.stop();
});

const salvages = async () =>
  Number(
    (
      await sql<{ n: string }>`SELECT count(*) AS n FROM transactions WHERE wallet_id = ${wallet().id} AND type = 'SALVAGE'`.execute(
        h.database.db,
      )
    ).rows[0]!.n,
  );

describe('an unlisted token whose decimals() answers more than an amount can carry', () => {
  it('a billion decimals: 422 NOT_A_TOKEN from network-fee and salvage, not a 500', async () => {
    const token = await constantContract(1_000_000_000);
    const body = {
      senderAddress: wallet().address,
      recipientAddress: fresh(),
      amount: '1',
      blockchainId: blockchainId(),
      tokenAddress: token,
    };
    const fee = await h.api('POST', `${base()}/salvage/network-fee`, { body });
    expect([fee.status, fee.body.error], JSON.stringify(fee.body)).toEqual([422, 'NOT_A_TOKEN']);
    const res = await h.api('POST', `${base()}/salvage`, { body });
    expect([res.status, res.body.error], JSON.stringify(res.body)).toEqual([422, 'NOT_A_TOKEN']);
    expect(await salvages()).toBe(0);
  });

  it('100 decimals (a real ERC-20 the master holds): 422 NOT_A_TOKEN, nothing written', async () => {
    const art = (await loadArtifact('TestToken'))!;
    const hash = await eth.wallet.deployContract({ abi: art.abi, bytecode: art.bytecode as Hex, args: ['Wide', 'WIDE', 100], chain: null });
    const token = getAddress((await eth.pub.waitForTransactionReceipt({ hash })).contractAddress!);
    await eth.pub.waitForTransactionReceipt({
      hash: await eth.wallet.writeContract({
        address: token,
        abi: parseAbi(['function mint(address to, uint256 amount)']),
        functionName: 'mint',
        args: [wallet().address as Address, 10n],
        chain: null,
      }),
    });
    const body = {
      senderAddress: wallet().address,
      recipientAddress: fresh(),
      amount: `0.${'0'.repeat(99)}1`,
      blockchainId: blockchainId(),
      tokenAddress: token,
    };
    const res = await h.api('POST', `${base()}/salvage`, { body });
    expect([res.status, res.body.error], JSON.stringify(res.body)).toEqual([422, 'NOT_A_TOKEN']);
    expect(await salvages()).toBe(0);
  });
});
