import { describe, expect, it } from 'vitest';
import {
  AMENDMENTS,
  canCreate,
  canMove,
  flowOf,
  isFinal,
  isState,
  sendEnd,
  STAGES,
  stateIn,
  TRANSITIONS,
  TYPES,
  type StateKey,
  type TransactionState,
} from './lifecycle.js';

const s = (key: StateKey): TransactionState => {
  const [status, stage] = key.split('/') as [TransactionState['status'], string];
  return stateIn(status, stage) as TransactionState;
};

describe('transaction states', () => {
  it('every state a transition or an amendment names exists', () => {
    const named = [...Object.values(TRANSITIONS).flatMap((t) => [...t.from, ...t.to]), ...Object.values(AMENDMENTS).flatMap((a) => a.in)];
    for (const key of named) expect(isState(...(key.split('/') as [string, string])), key).toBe(true);
  });

  it('the stages of each status are those the CHECK and the writers use, and a stage unknown to its status is refused', () => {
    expect(Object.keys(STAGES).sort()).toEqual(['CANCELLED', 'FAILED', 'PENDING', 'PENDING_APPROVAL', 'SUCCESS']);
    expect(isState('PENDING', 'confirmed')).toBe(false); // a deposit at depth is SUCCESS
    expect(isState('FAILED', 'mined')).toBe(false); // a mined send with a reverted receipt is stage 'failed'
    expect(isState('SETTLED', 'mined')).toBe(false);
    expect(() => stateIn('CANCELLED', 'failed')).toThrow('no transaction state CANCELLED/failed');
  });

  it('each transaction type has one flow; unknown types have none and can do nothing', () => {
    expect(flowOf('DEPOSIT')).toBe('deposit');
    expect(flowOf('WITHDRAW')).toBe('withdrawal');
    for (const t of ['CUSTOM_SMART_CONTRACT', 'SWAP', 'AUTO_SETTLEMENT', 'SALVAGE', 'STAKING', 'UNSTAKING_WITHDRAW'])
      expect(flowOf(t)).toBe('send');
    expect(flowOf('SIGNED')).toBe('signature');
    expect(flowOf('BRIDGE')).toBeUndefined();
    expect(canCreate('BRIDGE', s('PENDING/created'))).toBe(false);
    const types = Object.values(TYPES).flat();
    expect(new Set(types).size).toBe(types.length);
  });
});

describe('deposits', () => {
  it('are found pending at their block, or confirmed at once when already deep enough (a backfill)', () => {
    expect(canCreate('DEPOSIT', s('PENDING/mined'))).toBe(true);
    expect(canCreate('DEPOSIT', s('SUCCESS/confirmed'))).toBe(true);
    expect(canCreate('DEPOSIT', s('PENDING/created'))).toBe(false);
  });

  it('confirm, fail on a reorg, and come back when re-mined elsewhere', () => {
    expect(canMove('DEPOSIT', s('PENDING/mined'), s('SUCCESS/confirmed'))).toBe(true);
    expect(canMove('DEPOSIT', s('PENDING/mined'), s('FAILED/reorged'))).toBe(true);
    expect(canMove('DEPOSIT', s('FAILED/reorged'), s('PENDING/mined'))).toBe(true);
  });

  it('a confirmed deposit is final: credited once, never failed or reopened afterwards', () => {
    expect(canMove('DEPOSIT', s('SUCCESS/confirmed'), s('FAILED/reorged'))).toBe(false);
    expect(canMove('DEPOSIT', s('SUCCESS/confirmed'), s('PENDING/mined'))).toBe(false);
    expect(isFinal('DEPOSIT', s('SUCCESS/confirmed'))).toBe(true);
    expect(isFinal('DEPOSIT', s('FAILED/reorged'))).toBe(false);
    // Swept: bookkeeping on the confirmed deposit, not a move.
    expect(AMENDMENTS.depositSwept.in).toEqual(['SUCCESS/confirmed']);
  });
});

describe('withdrawals', () => {
  it('are created pending (or signed only, final at once)', () => {
    expect(canCreate('WITHDRAW', s('PENDING/created'))).toBe(true);
    expect(canCreate('WITHDRAW', s('SUCCESS/mined'))).toBe(false);
    expect(canCreate('SIGNED', s('SUCCESS/signed'))).toBe(true);
    expect(isFinal('SIGNED', s('SUCCESS/signed'))).toBe(true);
  });

  it('wait for approval with nothing signed, then go on, or end cancelled', () => {
    expect(canCreate('WITHDRAW', s('PENDING_APPROVAL/awaiting-approval'))).toBe(true);
    expect(canCreate('CUSTOM_SMART_CONTRACT', s('PENDING_APPROVAL/awaiting-approval'))).toBe(false);
    expect(canMove('WITHDRAW', s('PENDING_APPROVAL/awaiting-approval'), s('PENDING/created'))).toBe(true);
    expect(canMove('WITHDRAW', s('PENDING_APPROVAL/awaiting-approval'), s('CANCELLED/cancelled'))).toBe(true);
    // Never signed while it waits, never back to waiting once sent.
    expect(canMove('WITHDRAW', s('PENDING_APPROVAL/awaiting-approval'), s('PENDING/signed'))).toBe(false);
    expect(canMove('WITHDRAW', s('PENDING/created'), s('PENDING_APPROVAL/awaiting-approval'))).toBe(false);
  });

  it('sign, settle, and are signed again by a fee bump while pending', () => {
    expect(canMove('WITHDRAW', s('PENDING/created'), s('PENDING/signed'))).toBe(true);
    expect(canMove('WITHDRAW', s('PENDING/signed'), s('PENDING/signed'))).toBe(true);
    expect(canMove('WITHDRAW', s('PENDING/signed'), s('SUCCESS/mined'))).toBe(true);
    expect(canMove('WITHDRAW', s('PENDING/signed'), s('FAILED/dropped'))).toBe(true);
    expect(canMove('WITHDRAW', s('PENDING/created'), s('CANCELLED/cancelled'))).toBe(true);
  });

  it('a settled withdrawal is never signed again; a reorg reopens it, a retry reopens only a failed one', () => {
    expect(canMove('WITHDRAW', s('SUCCESS/mined'), s('PENDING/signed'))).toBe(false);
    expect(canMove('WITHDRAW', s('SUCCESS/mined'), s('PENDING/broadcast'))).toBe(true);
    expect(canMove('WITHDRAW', s('FAILED/failed'), s('PENDING/broadcast'))).toBe(true);
    expect(canMove('WITHDRAW', s('FAILED/dropped'), s('PENDING/created'))).toBe(true);
    expect(canMove('WITHDRAW', s('SUCCESS/mined'), s('PENDING/created'))).toBe(false);
    expect(canMove('WITHDRAW', s('CANCELLED/cancelled'), s('PENDING/created'))).toBe(false);
    expect(isFinal('WITHDRAW', s('FAILED/failed'))).toBe(false);
  });

  it('a mined cancellation is followed like a mined withdrawal: a reorg reopens it, and the original may then be mined', () => {
    expect(canMove('WITHDRAW', s('CANCELLED/cancelled'), s('CANCELLED/cancelled'))).toBe(true);
    expect(canMove('WITHDRAW', s('CANCELLED/cancelled'), s('PENDING/broadcast'))).toBe(true);
    expect(canMove('WITHDRAW', s('PENDING/broadcast'), s('SUCCESS/mined'))).toBe(true);
    expect(isFinal('WITHDRAW', s('CANCELLED/cancelled'))).toBe(false);
    // Never retried or signed anew: only the bytes already signed for its nonce can land.
    expect(canMove('WITHDRAW', s('CANCELLED/cancelled'), s('PENDING/signed'))).toBe(false);
    expect(canMove('WITHDRAW', s('CANCELLED/cancelled'), s('SUCCESS/mined'))).toBe(false);
  });
});

describe('contract writes and settlement legs', () => {
  it('settle once: no retry, no reopening, no cancellation', () => {
    for (const type of ['CUSTOM_SMART_CONTRACT', 'SWAP', 'AUTO_SETTLEMENT']) {
      expect(canMove(type, s('PENDING/signed'), s('SUCCESS/mined'))).toBe(true);
      expect(canMove(type, s('PENDING/created'), s('FAILED/not-sent'))).toBe(true);
      expect(canMove(type, s('FAILED/failed'), s('PENDING/created'))).toBe(false);
      expect(canMove(type, s('SUCCESS/mined'), s('PENDING/broadcast'))).toBe(false);
      expect(canMove(type, s('PENDING/signed'), s('CANCELLED/cancelled'))).toBe(false);
      for (const end of ['SUCCESS/mined', 'FAILED/failed', 'FAILED/dropped', 'FAILED/replaced', 'FAILED/not-sent'] as const)
        expect(isFinal(type, s(end)), `${type} ${end}`).toBe(true);
    }
  });
});

describe('sendEnd (the end of a sent transaction from its outbound row)', () => {
  it('is SUCCESS only when mined, FAILED with the stage the send ended in otherwise', () => {
    expect(sendEnd(true, 'mined')).toEqual({ status: 'SUCCESS', stage: 'mined' });
    expect(sendEnd(false, 'failed')).toEqual({ status: 'FAILED', stage: 'failed' });
    expect(sendEnd(false, 'dropped')).toEqual({ status: 'FAILED', stage: 'dropped' });
    expect(sendEnd(false, 'replaced')).toEqual({ status: 'FAILED', stage: 'replaced' });
  });

  it('refuses an end that is no state: a success not mined, or a failure at a stage that is not an end', () => {
    expect(() => sendEnd(true, 'failed')).toThrow('a successful send ends mined, not failed');
    expect(() => sendEnd(false, 'broadcast')).toThrow('no transaction state FAILED/broadcast');
    expect(() => sendEnd(false, 'mined')).toThrow('no transaction state FAILED/mined');
  });
});
