import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, ok } from '../../lib/schema.js';
import { TransactionSchema } from '../transactions/schemas.js';
import { WalletParams } from '../wallets/schemas.js';
import { STAKE_SUMMARY, STAKING_READ_HELP, StakeBody, StakingActionBody, StakingSchema } from './schemas.js';
import type { StakingAction, StakingService } from './service.js';

const HELP =
  "Extension (the described service's staking operations). The master address of a wallet on a chain whose family stakes (Tron's Stake 2.0); other chains answer 422 NOT_SUPPORTED. Returns a PENDING Transaction; once mined and read back from the chain it ends SUCCESS with";

export const stakingRoutes: FastifyPluginAsyncTypebox<{ staking: StakingService }> = async (app, { staking }) => {
  const tags = ['Staking'];
  const tx = Envelope(Type.Ref(TransactionSchema));

  app.get(
    '/v1/wallets/:walletId/staking',
    {
      schema: {
        tags,
        summary: "The master address's stake: per resource, unstakes with their unlock dates, what can be withdrawn",
        description: STAKING_READ_HELP,
        params: WalletParams,
        response: { 200: Envelope(StakingSchema) },
      },
    },
    async (req) => ok(await staking.positions(req.auth, req.params.walletId), 'Staking positions retrieved successfully'),
  );

  const operations: {
    action: StakingAction;
    path: string;
    summary: string;
    body: typeof StakeBody | typeof StakingActionBody;
    events: string;
  }[] = [
    {
      action: 'stake',
      path: 'stake',
      summary: STAKE_SUMMARY,
      body: StakeBody,
      events: '`staking.success` (type STAKING; `staking.failed` otherwise). The TRX staked is held like a withdrawal until then.',
    },
    {
      action: 'unstake',
      path: 'unstake',
      summary: "Start unstaking: the amount unlocks after the chain's period (14 days on Tron)",
      body: StakeBody,
      events:
        '`unstaking.success` (type UNSTAKING; `metadata.staking.unlocksAt` is the unlock date, `withdrawn` what had already unlocked and the chain paid out with it; `unstaking.failed` otherwise). Only what the master holds staked (not what it lends) can be unstaked: 422 INSUFFICIENT_STAKE. While as many unstakes wait for their unlock as the chain allows (32 on Tron): 422 UNSTAKE_LIMIT_REACHED.',
    },
    {
      action: 'restake',
      path: 'restake',
      summary: 'Cancel every pending unstake: the amounts go back into their stake',
      body: StakingActionBody,
      events:
        '`restaking.success` (type RESTAKING; `amount` is what went back into the stake, `metadata.staking.restaked` per resource, `withdrawn` what had already unlocked and was paid out; `restaking.failed` otherwise). Nothing pending: 422 NOTHING_TO_RESTAKE.',
    },
    {
      action: 'withdraw',
      path: 'withdraw',
      summary: 'Withdraw the unstaked amounts that have unlocked',
      body: StakingActionBody,
      events:
        '`unstaking.withdraw.success` (type UNSTAKING_WITHDRAW; `amount` is what the chain paid out; `unstaking.withdraw.failed` otherwise). Nothing unlocked yet: 422 NOTHING_TO_WITHDRAW naming the next unlock date.',
    },
  ];
  for (const o of operations) {
    app.post(
      `/v1/wallets/:walletId/staking/${o.path}`,
      {
        schema: { tags, summary: o.summary, description: `${HELP} ${o.events}`, params: WalletParams, body: o.body, response: { 200: tx } },
      },
      async (req) =>
        ok(
          await staking.operate(req.auth, req.params.walletId, o.action, req.body),
          `Staking operation (${o.action}) initiated successfully`,
        ),
    );
  }
};
