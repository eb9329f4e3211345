import { describe, expect, it } from 'vitest';
import { ChainRejectedError } from '../errors.js';
import { isTronTransient, tronMessageText, tronRejection, tronRejectionReason } from './errors.js';

describe('tronRejection (java-tron broadcast codes onto the seam reasons)', () => {
  // The node's words as java-tron writes them (the stand-in copies them, docs/tron.md).
  const cases: [string, string, string | null][] = [
    ['TRANSACTION_EXPIRATION_ERROR', 'Transaction expired', 'expired'],
    ['DUP_TRANSACTION_ERROR', 'Dup transaction.', null],
    ['SIGERROR', 'Validate signature error: ab12 is signed by TXyz but it is not contained of permission.', 'invalid'],
    ['TAPOS_ERROR', 'Tapos check error.', 'invalid'],
    ['TOO_BIG_TRANSACTION_ERROR', 'Transaction size is too big.', 'invalid'],
    ['BANDWITH_ERROR', 'Account resource insufficient error.', 'insufficient-funds'],
    [
      'CONTRACT_VALIDATE_ERROR',
      'Contract validate error : Validate TransferContract error, balance is not sufficient.',
      'insufficient-funds',
    ],
    ['CONTRACT_VALIDATE_ERROR', 'Contract validate error : Cannot transfer TRX to yourself.', 'refused'],
    ['CONTRACT_EXE_ERROR', 'REVERT opcode executed', 'reverted'],
    ['OTHER_ERROR', 'class java.lang.Exception : something', 'refused'],
  ];

  it.each(cases)('%s: %s', (code, message, reason) => {
    const err = tronRejection(code, message, 'ab'.repeat(32));
    if (reason === null) {
      expect(err).toBeNull();
      expect(tronRejectionReason(code, message)).toBe('known');
      return;
    }
    expect(err).toBeInstanceOf(ChainRejectedError);
    expect(err!.reason).toBe(reason);
    expect(err!.code).toBe('CHAIN_REJECTED');
    expect(err!.nodeMessage).toBe(message);
    expect(err!.message).toContain(code);
    expect(tronRejectionReason(code, message)).toBe(reason);
  });

  it('only funds are retryable; node trouble is no refusal of the transaction', () => {
    expect(tronRejection('BANDWITH_ERROR', '')!.retryable).toBe(true);
    expect(tronRejection('SIGERROR', '')!.retryable).toBe(false);
    for (const code of ['SERVER_BUSY', 'NO_CONNECTION', 'NOT_ENOUGH_EFFECTIVE_CONNECTION', 'BLOCK_UNSOLIDIFIED'])
      expect(isTronTransient(code)).toBe(true);
    expect(isTronTransient('SIGERROR')).toBe(false);
  });

  it('reads a message written as hex (broadcasttransaction) or as text (broadcasthex)', () => {
    expect(tronMessageText(Buffer.from('Dup transaction.').toString('hex'))).toBe('Dup transaction.');
    expect(tronMessageText('Tapos check error.')).toBe('Tapos check error.');
    expect(tronMessageText('00ff')).toBe('00ff'); // not text: kept
    expect(tronMessageText(undefined)).toBe('');
  });
});
