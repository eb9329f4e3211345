/**
 * The hand-written Transfer log decoder of the scan (src/chains/evm/scan.ts) against viem's
 * strict decoder, which it replaced: on random logs of every shape a node can return, both
 * accept the same logs and read the same from, to and value.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeEventLog, getAddress, parseAbiItem, toEventSelector, type Hex, type RpcLog } from 'viem';
import { decodeTransferLog } from '../../src/chains/evm/scan.js';

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
const TOPIC0 = toEventSelector(TRANSFER);

const hex = (bytes: number): Hex => `0x${randomBytes(bytes).toString('hex')}`;

/** An address word: usually clean (12 zero bytes), sometimes with dirty upper bytes or mixed case. */
function addressWord(): Hex {
  const r = randomInt(10);
  if (r === 0) return hex(32);
  const word = `0x${'00'.repeat(12)}${randomBytes(20).toString('hex')}` as Hex;
  return r === 1 ? (`0x${word.slice(2).toUpperCase()}` as Hex) : word;
}

function valueData(): Hex {
  switch (randomInt(8)) {
    case 0:
      return '0x';
    case 1:
      return hex(31);
    case 2:
      return hex(33);
    case 3:
      return hex(64); // extra words after the value
    case 4:
      return `0x${'ff'.repeat(32)}`; // max uint256
    case 5:
      return `0x${'00'.repeat(32)}`;
    default:
      return hex(32);
  }
}

function randomLog(): RpcLog {
  const shape = randomInt(10);
  const topics: Hex[] = [shape === 0 ? hex(32) : shape === 1 ? (TOPIC0.toUpperCase().replace('0X', '0x') as Hex) : TOPIC0];
  const extra = [2, 2, 2, 2, 2, 2, 0, 1, 3, 4][randomInt(10)]!;
  for (let i = 0; i < extra; i++) topics.push(addressWord());
  return {
    address: hex(20),
    topics: topics as RpcLog['topics'],
    data: valueData(),
    blockHash: hex(32),
    blockNumber: `0x${randomInt(1, 2 ** 40).toString(16)}`,
    transactionHash: hex(32),
    transactionIndex: '0x0',
    logIndex: `0x${randomInt(0, 5000).toString(16)}`,
    removed: false,
  } as RpcLog;
}

function viemDecode(log: RpcLog) {
  try {
    return decodeEventLog({ abi: [TRANSFER], data: log.data, topics: log.topics as [Hex, ...Hex[]], strict: true }).args;
  } catch {
    return null;
  }
}

describe('Transfer log decoding by hand', () => {
  it('accepts and reads exactly what viem strict decoding does, on 20,000 random logs', () => {
    let accepted = 0;
    for (let i = 0; i < 20_000; i++) {
      const log = randomLog();
      const mine = decodeTransferLog(log);
      const theirs = viemDecode(log);
      expect(mine === null, JSON.stringify(log)).toBe(theirs === null);
      if (!mine || !theirs) continue;
      accepted++;
      expect(getAddress(mine.from)).toBe(theirs.from);
      expect(getAddress(mine.to)).toBe(theirs.to);
      expect(mine.amount).toBe(theirs.value);
      expect(mine.token).toBe(log.address.toLowerCase());
      expect(mine.txHash).toBe(log.transactionHash);
      expect(mine.block.hash).toBe(log.blockHash);
      expect(mine.block.number).toBe(BigInt(log.blockNumber!));
      expect(mine.logIndex).toBe(Number(log.logIndex));
    }
    // The generator makes well-formed transfers most of the time: both paths were exercised.
    expect(accepted).toBeGreaterThan(5_000);
    expect(accepted).toBeLessThan(20_000);
  });

  it('skips removed and pending logs', () => {
    const log = { ...randomLog(), topics: [TOPIC0, addressWord(), addressWord()], data: hex(32) } as RpcLog;
    expect(decodeTransferLog(log)).not.toBeNull();
    expect(decodeTransferLog({ ...log, removed: true })).toBeNull();
    expect(decodeTransferLog({ ...log, blockHash: null } as unknown as RpcLog)).toBeNull();
  });
});
