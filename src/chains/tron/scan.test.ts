import { describe, expect, it } from 'vitest';
import { blockTransfers, tokenKeys, type TronBlockJson } from './scan.js';

// Block 0 as java-tron prints it (BlockUtil.newGenesisBlockCapsule): one TransferContract per
// genesis allocation, owner the ASCII bytes of "0x000000000000000000000", no `ret`; and
// gettransactioninfobyblocknum answers `{}` for num 0 (GetTransactionInfoByBlockNumServlet).
const owner = Buffer.from('0x000000000000000000000').toString('hex');
const to = `41${'ab'.repeat(20)}`;
const genesis: TronBlockJson = {
  blockID: `${'0'.repeat(16)}${'11'.repeat(24)}`,
  block_header: { raw_data: { parentHash: '33'.repeat(32) } },
  transactions: [
    {
      txID: '44'.repeat(32),
      raw_data: {
        contract: [
          {
            type: 'TransferContract',
            parameter: { value: { amount: 1_000_000_000_000, owner_address: owner, to_address: to } },
          },
        ],
      },
    },
  ],
};

describe('blockTransfers', () => {
  it('reads the genesis block, whose allocations have no TransactionInfo, as a block without transfers', () => {
    const tokens = tokenKeys(['TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t']);
    const infos = [] as never[]; // the adapter's reading of java-tron's `{}`
    const { ref, transfers } = blockTransfers(genesis, infos, tokens, () => true);
    expect(ref).toEqual({ number: 0n, hash: genesis.blockID, parentHash: '33'.repeat(32), timestamp: 0 });
    expect(transfers).toEqual([]);
  });
});
