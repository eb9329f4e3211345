/**
 * Issue-31 benchmark: withdrawals that match no approval rule are accepted at no less than 90%
 * of the rate without policies, measured in the same run.
 *
 * One service, one devnet, two businesses:
 * - "without policies": its requests skip the policy code entirely (the service's precheck and
 *   the accepting transaction's session are bypassed for this business), i.e. the path as it
 *   was before policies existed;
 * - "with policies": five rules that every request is evaluated against and none holds for
 *   approval: an approval rule above 1,000 USDC, a BLOCK above 500 USDC to non-beneficiaries,
 *   a velocity SUM per wallet (its window locked and read in every accepting transaction), a
 *   velocity COUNT per destination, and a final ALLOW of USDC, which decides.
 * Per run, N withdrawals (default 500, BENCH_POLICY_WITHDRAWALS) are posted at once to a fresh
 * wallet of each business, in alternating order (run 1 without first, run 2 with first, ...),
 * over HTTP from a worker thread (bench/withdrawals.ts postAll); accepted/s = accepted / (last
 * answer - first send). The worker does not run: acceptance is what is measured.
 *
 *   tsx bench/policies.ts            (BENCH_RUNS, default 3)
 */
import { createPublicClient, createWalletClient, erc20Abi, http, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devnetChain } from '../src/devnet/chain.js';
import { PolicySession } from '../src/modules/policies/service.js';
import type { AuthContext } from '../src/modules/apikeys/service.js';
import { fmt, median } from './stats.js';
import { benchChainSpec, startExtraWorld, type ExtraWorld } from './webhooks.js';
import { bodiesFor, postAll } from './withdrawals.js';

const runs = Number(process.env.BENCH_RUNS ?? 3);
const count = Number(process.env.BENCH_POLICY_WITHDRAWALS ?? 500);
const log = (s: string) => process.stdout.write(`${s}\n`);

interface Variant {
  name: 'without policies' | 'with policies';
  businessId: string;
}

async function main(): Promise<void> {
  const world = await startExtraWorld({ spec: benchChainSpec(1), blockTime: 1 });
  try {
    const { services } = world;
    const usdc = services.catalogue
      .findChain(world.chain.config.blockchain.slug, world.chain.config.network)!
      .assets.find((a) => a.symbol === 'USDC')!;
    const viemChain = devnetChain(world.chain.config.chainId, world.chain.config.rpcUrl);
    const pub = createPublicClient({ chain: viemChain, transport: http(world.chain.config.rpcUrl) });
    const faucet = createWalletClient({
      chain: viemChain,
      transport: http(world.chain.config.rpcUrl),
      account: privateKeyToAccount(world.chain.faucet.privateKey as Hex),
    });

    const without: Variant = { name: 'without policies', businessId: world.businessId };
    const withRules: Variant = { name: 'with policies', businessId: (await services.businesses.create('Bench Policies')).business.id };
    // The business without policies takes the path as it was before them: no policy code runs.
    const policies = services.policies;
    const session = policies.session.bind(policies);
    const precheck = policies.precheck.bind(policies);
    policies.session = (tx, businessId, candidates, lock) =>
      businessId === without.businessId ? Promise.resolve(PolicySession.NONE) : session(tx, businessId, candidates, lock);
    policies.precheck = (businessId, candidates, strict) =>
      businessId === without.businessId ? Promise.resolve(null) : precheck(businessId, candidates, strict);

    const operator: AuthContext = { keyId: 'cli:operator', businessId: withRules.businessId, walletId: null, operator: true };
    const rules = [
      {
        name: 'large payouts need an approver',
        priority: 10,
        conditions: { types: ['WITHDRAW', 'BATCH_ITEM'], amount: { min: '1000', currency: 'ASSET' } },
        action: 'REQUIRE_APPROVAL',
        approval: { approvers: { roles: ['approver'] }, quorum: 2, ttlSeconds: 3600 },
      },
      {
        name: 'no large payouts to strangers',
        priority: 20,
        conditions: { amount: { min: '500', currency: 'ASSET' }, destination: 'NON_BENEFICIARY' },
        action: 'BLOCK',
      },
      {
        name: 'wallet velocity',
        priority: 30,
        conditions: { velocity: { measure: 'SUM', scope: 'WALLET', windowSeconds: 86_400, limit: '1000000000', currency: 'ASSET' } },
        action: 'BLOCK',
      },
      {
        name: 'destination velocity',
        priority: 40,
        conditions: { velocity: { measure: 'COUNT', scope: 'DESTINATION', windowSeconds: 3600, limit: '100' } },
        action: 'BLOCK',
      },
      { name: 'USDC allowed', priority: 50, conditions: { assets: ['USDC'] }, action: 'ALLOW' },
    ] as const;
    for (const r of rules) await policies.create(operator, structuredClone(r) as never);

    const fund = async (to: string) => {
      await world.rpc('anvil_setBalance', [to, '0x56BC75E2D63100000']);
      const hash = await faucet.writeContract({
        address: usdc.address as Address,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [to as Address, 10_000n * BigInt(count) * 2n],
      });
      await pub.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    };
    const walletOf = async (v: Variant, tag: string) => {
      const { wallet, apiKey } = await services.wallets.createForBusiness(v.businessId, {
        blockchain: world.chain.config.blockchain.slug,
        network: world.chain.config.network,
        name: `bench ${v.name} ${tag}`,
      });
      await fund(wallet.address);
      // One request first, as a client's first call: the key is then one this instance saw
      // authenticate lately, which the failed-auth budget never sheds (http/auth.ts).
      const res = await fetch(`${world.baseUrl}/v1/wallets/${wallet.id}`, { headers: { 'x-api-key': apiKey } });
      if (res.status !== 200) throw new Error(`GET wallet: ${res.status}`);
      return { id: wallet.id, apiKey };
    };
    const measure = async (v: Variant, tag: string) => {
      const wallet = await walletOf(v, tag);
      const posted = await postAll(world as ExtraWorld, wallet, bodiesFor(usdc.id, count, `${v.name.replace(/ /g, '-')}-${tag}`));
      if (posted.accepted !== count) throw new Error(`${v.name}: ${posted.accepted}/${count} accepted (${JSON.stringify(posted.refused)})`);
      return posted.accepted / (posted.acceptMs / 1000);
    };

    log(
      `policies (issue 31): ${count} USDC withdrawals posted at once per wallet, ${runs} runs, PostgreSQL fsync=${world.pgSettings.fsync}`,
    );
    // Warm-up of both paths (connections, plans, JIT): not measured.
    await measure(without, 'warm');
    await measure(withRules, 'warm');
    const rates: Record<Variant['name'], number[]> = { 'without policies': [], 'with policies': [] };
    const ratios: number[] = [];
    for (let run = 1; run <= runs; run++) {
      const order = run % 2 ? [without, withRules] : [withRules, without];
      const got: Partial<Record<Variant['name'], number>> = {};
      for (const v of order) got[v.name] = await measure(v, `r${run}`);
      rates['without policies'].push(got['without policies']!);
      rates['with policies'].push(got['with policies']!);
      ratios.push(got['with policies']! / got['without policies']!);
      log(
        `  run ${run}: without ${fmt(got['without policies']!, 0)}/s, with ${fmt(got['with policies']!, 0)}/s, ratio ${fmt(ratios.at(-1)!, 3)}`,
      );
    }
    const m = median(ratios);
    log(
      `median accepted/s without policies ${fmt(median(rates['without policies']), 0)}, with policies ${fmt(median(rates['with policies']), 0)}`,
    );
    log(`median ratio with/without ${fmt(m, 3)} (target >= 0.90): ${m >= 0.9 ? 'PASS' : 'FAIL'}`);
    process.exitCode = m >= 0.9 ? 0 : 1;
  } finally {
    await world.stop();
  }
}

await main();
