/** Argument conversion and typed-data checks without a chain: properties over many inputs. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { encodeFunctionData, erc20Abi, hashTypedData, type Address } from 'viem';
import { resolveCall } from '../../src/chains/evm/contracts.js';
import { prepareTypedData } from '../../src/chains/evm/typed-data.js';
import { ValidationError } from '../../src/lib/errors.js';
import { ABI } from './support.js';

const TOKEN = '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC';
const TO = '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB';
const MAX = 2n ** 256n - 1n;

function transfer(value: unknown) {
  return resolveCall({ address: TOKEN, method: 'transfer', parameters: [TO, value], abi: [ABI.transfer] }, 'calls.0');
}

describe('uint arguments', () => {
  it('any uint256 as a decimal string encodes exactly as viem encodes the bigint', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: MAX }), (n) => {
        const expected = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [TO as Address, n] });
        expect(transfer(n.toString()).data).toBe(expected);
      }),
    );
  });

  it('anything that is not a plain integer in range is a ValidationError naming the parameter', () => {
    const bad = fc.oneof(
      fc.bigInt({ min: MAX + 1n, max: MAX * 4n }).map((n) => n.toString()),
      fc.bigInt({ min: -MAX, max: -1n }).map((n) => n.toString()),
      fc.double({ noInteger: true, noNaN: true }),
      fc.string().filter((s) => !/^-?\d+$|^0x[0-9a-fA-F]{1,64}$/.test(s)),
      fc.constantFrom('1e3', '1.0', ' 1', '0x', '', '+1', 1e21, -1, true, null, [], {}),
    );
    fc.assert(
      fc.property(bad, (v) => {
        try {
          transfer(v);
        } catch (err) {
          expect(err).toBeInstanceOf(ValidationError);
          expect((err as ValidationError).details?.[0]?.field).toBe('calls.0.parameters.1');
          return;
        }
        throw new Error(`accepted ${JSON.stringify(v)}`);
      }),
    );
  });
});

describe('typed data', () => {
  const input = (value: unknown) => ({
    domain: { name: 'P', version: '1', chainId: 1, verifyingContract: TOKEN },
    types: { P: [{ name: 'v', type: 'int128' }] },
    message: { v: value },
  });

  it('any int128 hashes as viem hashes the bigint; out of range is refused', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 127n), max: 2n ** 127n - 1n }), (n) => {
        const { digest, primaryType } = prepareTypedData(input(n.toString()));
        expect(primaryType).toBe('P');
        expect(digest).toBe(hashTypedData({ ...input(n), primaryType: 'P' } as never));
      }),
    );
    for (const v of [(2n ** 127n).toString(), (-(2n ** 127n) - 1n).toString(), '1.5', 1.5]) {
      expect(() => prepareTypedData(input(v))).toThrow(ValidationError);
    }
  });
});
