/**
 * Makes a child's transfer expire unmined on the Tron stand-in (paused by the caller), for the
 * tests of a rebuilt transfer (sweeps and recoveries with energy lent): blocks are made one at a
 * time until the lend has settled (the transfer is queued in that transaction), then none, so
 * the transfer stays unmined; the clock is moved past its expiration and the head solidified,
 * and the transfer is rebuilt. Returns the version that expired.
 */
import { expect } from 'vitest';
import type { TronStandIn } from '../../../src/devnet/tron/index.js';
import { info } from '../../../src/devnet/tron/testkit.js';
import { eventually } from '../../support/fixtures.js';

interface StepRow {
  purpose: string;
  stage: string;
  hash: string | null;
}

export async function expireTransferOnceLent(
  s: TronStandIn,
  rows: () => Promise<StepRow[]>,
  purposes: { lend: string; transfer: string },
): Promise<StepRow> {
  const transfers = async () => (await rows()).filter((r) => r.purpose === purposes.transfer);
  await eventually(
    async () => {
      if ((await rows()).some((r) => r.purpose === purposes.lend && r.stage === 'mined')) return true;
      await s.control.produceBlocks(1);
      await new Promise((r) => setTimeout(r, 100));
      return false;
    },
    (lent) => lent,
    60_000,
  );
  const [expired] = await eventually(transfers, (r) => r.length === 1 && r[0]!.stage === 'broadcast', 20_000);
  // Past its expiration: the next block drops it; once the solidified head is past it too, it is rebuilt.
  await s.control.advanceTime(61_000);
  await s.control.solidify();
  expect((await info(s, expired!.hash!)).blockNumber).toBeUndefined();
  await eventually(transfers, (r) => r.length === 2 && r[1]!.stage === 'broadcast', 30_000);
  return expired!;
}
