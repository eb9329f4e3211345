// Pure parts of the stand-in: java-tron's usage arithmetic, the block merkle tree, TaPoS
// lookup, signatures and the ledger journal (savepoints, history, reorg).
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { merkleRoot, refBlockOf, type Block } from './chain.js';
import { Ledger, newAccount } from './ledger.js';
import { increase, recovered } from './resources.js';
import { addressOfPrivateKey, recoverSigner, signTxID } from './transactions.js';

const sha = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();

describe('ResourceProcessor.increase', () => {
  it("decays usage linearly over 28800 slots, with java-tron's rounding", () => {
    // ceil(268e6 / 28800) = 9306; half a window later round(9306 * 0.5) = 4653; 4653 * 28800 / 1e6 = 134.0064.
    expect(recovered(268, 0, 14_400)).toBe(134);
    expect(recovered(268, 0, 28_800)).toBe(0);
    expect(recovered(268, 100, 100)).toBe(268);
    // Adding usage in the same slot: (ceil(300e6/28800) + ceil(268e6/28800)) * 28800 / 1e6 = 19723 * 0.0288 = 568.02.
    expect(increase(300, 268, 5, 5)).toBe(568);
  });
});

describe('block merkle root', () => {
  it('pairs leaves left to right and carries an odd one up unhashed', () => {
    const [a, b, c] = [randomBytes(32), randomBytes(32), randomBytes(32)];
    expect(merkleRoot([])).toBe('00'.repeat(32));
    expect(merkleRoot([a])).toBe(a.toString('hex'));
    expect(merkleRoot([a, b])).toBe(sha(a, b).toString('hex'));
    expect(merkleRoot([a, b, c])).toBe(sha(sha(a, b), c).toString('hex'));
  });
});

describe('TaPoS reference lookup', () => {
  it('finds the latest block whose number ends in the two reference bytes', () => {
    const blocks = Array.from({ length: 70_000 }, (_, n) => ({ number: n }) as Block);
    expect(refBlockOf(blocks, '0000')?.number).toBe(65_536);
    expect(refBlockOf(blocks, (69_999 & 0xffff).toString(16).padStart(4, '0'))?.number).toBe(69_999);
    expect(refBlockOf(blocks.slice(0, 10), '0011')).toBeUndefined();
    expect(refBlockOf(blocks, 'zz')).toBeUndefined();
  });
});

describe('signatures', () => {
  it('recovers the signer of a txID as tronweb signs it', () => {
    const key = randomBytes(32).toString('hex');
    const txid = randomBytes(32).toString('hex');
    const sig = signTxID(txid, key);
    expect(sig).toMatch(/^[0-9a-f]{128}1[bc]$/);
    expect(recoverSigner(Buffer.from(txid, 'hex'), Buffer.from(sig, 'hex'))).toBe(addressOfPrivateKey(key));
    const bad = Buffer.from(sig, 'hex');
    bad[64] = 40;
    expect(() => recoverSigner(Buffer.from(txid, 'hex'), bad)).toThrow(/Header byte out of range/);
  });
});

describe('ledger journal', () => {
  const A = '41' + '11'.repeat(20);
  const B = '41' + '22'.repeat(20);

  it('rolls back to a savepoint, answers as of a block, and reverts sealed blocks', () => {
    const l = new Ledger();
    l.putAccount({ ...newAccount(A, 0), balance: 100n });
    l.seal(1);
    l.putAccount({ ...(l.account(A) as ReturnType<typeof newAccount>), balance: 70n });
    l.putAccount({ ...newAccount(B, 0), balance: 30n });
    l.seal(2);
    const sp = l.savepoint();
    l.putAccount({ ...(l.account(A) as ReturnType<typeof newAccount>), balance: 1n });
    l.rollbackTo(sp);
    expect(l.account(A)?.balance).toBe(70n);
    l.putAccount({ ...(l.account(A) as ReturnType<typeof newAccount>), balance: 60n });
    expect(l.at(1).account(A)?.balance).toBe(100n);
    expect(l.at(1).account(B)).toBeUndefined();
    expect(l.at(2).account(A)?.balance).toBe(70n);
    l.revertTo(1);
    expect(l.account(A)?.balance).toBe(100n);
    expect(l.account(B)).toBeUndefined();
    expect(new Set(l.takeDirty())).toEqual(new Set([A, B]));
    const copy = Ledger.fromJSON(JSON.parse(JSON.stringify(l.toJSON())));
    expect(copy.account(A)?.balance).toBe(100n);
  });
});
