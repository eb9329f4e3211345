/**
 * A recovery on an EVM chain this installation does not configure, named by `rpcUrl` (issue
 * 27, 2). The URL is checked like a webhook target (lib/ssrf.ts: its form, HTTPS on
 * mainnet, and at every connection the addresses its host resolves to), used for this one
 * request and never stored (it may carry a provider's key): the transfer is signed, recorded
 * (a SALVAGE Transaction on the wallet's chain, the foreign chain id in its metadata),
 * broadcast and followed to its receipt within the request. With no durable way back to that
 * chain, nothing is funded there: the sender pays its own fee (a 422 says how much it needs).
 * An endpoint of a chain this installation configures is recovered through that chain instead.
 */
import type { ChainAdapter, TxIntent } from '../../chains/types.js';
import type { DbConn } from '../../db/pool.js';
import { nativeValueOf } from '../../chains/intents.js';
import { ChainRejectedError } from '../../chains/errors.js';
import { capability, isZeroAddress, sharesKeys } from '../../chains/registry.js';
import { BusinessRuleError, ConflictError, ValidationError } from '../../lib/errors.js';
import { shortReference, uuidv7 } from '../../lib/ids.js';
import { formatAmount, parseAmount } from '../../lib/money.js';
import type { WebhookTargetPolicy } from '../../lib/ssrf.js';
import type { ChainHandle } from '../catalogue/service.js';
import type { ModuleDeps } from '../deps.js';
import type { Counted } from '../transactions/service.js';
import type { WalletRow } from '../wallets/service.js';
import type { SalvageBody, SalvageFeeBody } from './schemas.js';
import type { Recovered } from './policy.js';
import type { Salvager } from './types.js';
import { tokenDecimals } from './decimals.js';
import { SALVAGE_EVENTS } from './steps.js';
import {
  claimForeignSender as tryClaim,
  foreignSameNonce,
  pendingForeign,
  releaseForeignSender as release,
  renewForeignSender as renew,
} from './store.js';
import type { AmlScreening } from '../aml/service.js';

export interface ForeignDeps {
  /** The installation's rule for outside targets (webhook URLs), applied to RPC URLs too. */
  targets: WebhookTargetPolicy;
}

/** How long the request follows the transfer for its receipt. */
const RECEIPT_WAIT_MS = 30_000;
/**
 * How long a sender's claim on a foreign chain lasts if its holder never releases it (a crash
 * between the nonce read and the broadcast): past the longest the node's three calls can take
 * (the chain client's timeout and retries).
 */
const CLAIM_TTL_MS = 5 * 60_000;

export type ForeignChain = { kind: 'configured'; chain: ChainHandle } | { kind: 'foreign'; adapter: ChainAdapter; own: ChainHandle };

/** The chain behind `rpcUrl`: a configured one of the wallet's network with its chain id, or a foreign one. */
export async function openForeign(deps: ModuleDeps & ForeignDeps, wallet: WalletRow, body: SalvageFeeBody): Promise<ForeignChain> {
  if (body.crossNetwork === true) {
    throw new ValidationError('crossNetwork cannot be used with rpcUrl: the RPC URL names the chain', [
      { field: 'crossNetwork', message: 'not with rpcUrl' },
    ]);
  }
  const own = deps.wallets.chainOf(wallet);
  const url = await deps.targets.check(body.rpcUrl!, own.row.network, 'rpcUrl');
  // 422 NOT_SUPPORTED where the wallet's family cannot reach a chain by URL (the capability's one place).
  const foreign = capability(own.adapter, 'foreignChains');
  const adapter = await foreign.open(url.toString(), deps.targets.lookup as never).catch((err: unknown) => {
    // The URL is the client's: one that does not answer as a chain is a 422, not the 503 of a configured chain's outage.
    throw new BusinessRuleError('RPC_URL_UNREACHABLE', `rpcUrl did not answer as a chain: ${(err as Error).message.slice(0, 200)}`, [
      { field: 'rpcUrl', message: 'no chain answered there' },
    ]);
  });
  const configured = deps.catalogue
    .chains()
    .find((c) => c.config.chainId === adapter.config.chainId && c.row.network === own.row.network && sharesKeys(c.config, own.config));
  if (configured) {
    adapter.close();
    return { kind: 'configured', chain: configured };
  }
  return { kind: 'foreign', adapter, own };
}

interface ForeignPlan {
  adapter: ChainAdapter;
  sender: Salvager;
  recipient: string;
  token: string | null;
  decimals: number;
  amount: bigint;
  tokenBalance: bigint | null;
  nativeBalance: bigint;
  intent: TxIntent;
  fee: bigint;
  network: Record<string, string>;
}

async function plan(adapter: ChainAdapter, body: SalvageFeeBody, senderOf: (address: string) => Promise<Salvager>): Promise<ForeignPlan> {
  const bad = (field: string, message: string) => new ValidationError(`${field} ${message}`, [{ field, message }]);
  const from = adapter.normalizeAddress(body.senderAddress);
  if (!from) throw bad('senderAddress', 'is not an address of the chain');
  const recipient = adapter.normalizeAddress(body.recipientAddress);
  if (!recipient || isZeroAddress(adapter.config, recipient)) throw bad('recipientAddress', 'is not an address funds can be sent to');
  const sender = await senderOf(from);
  let token = body.tokenAddress === undefined ? null : adapter.normalizeAddress(body.tokenAddress);
  if (body.tokenAddress !== undefined && token === null) throw bad('tokenAddress', 'is not an address of the chain');
  if (token !== null && isZeroAddress(adapter.config, token)) token = null;
  const decimals = token === null ? adapter.config.blockchain.nativeDecimals : await tokenDecimals(adapter, token);
  if (decimals === null) throw new BusinessRuleError('NOT_A_TOKEN', `${token} does not answer as a token on that chain`);
  const amount = parseAmount(body.amount, decimals, 'amount');
  if (amount <= 0n) throw bad('amount', 'must be greater than 0');
  const [held, nativeBalance] = await adapter.getBalances([
    { owner: sender.address, token },
    { owner: sender.address, token: null },
  ]);
  if (amount > held!)
    throw new BusinessRuleError('INSUFFICIENT_BALANCE', `The sender holds ${formatAmount(held!, decimals)}, less than ${body.amount}`);
  const intent: TxIntent =
    token === null
      ? { kind: 'native', from: sender.address, to: recipient, amount }
      : { kind: 'token', from: sender.address, token, to: recipient, amount };
  const quote = await adapter.sender.quote(intent, {}, { fresh: true }).catch((err: unknown) => {
    if (err instanceof ChainRejectedError && !err.retryable)
      throw new BusinessRuleError('TRANSFER_WOULD_FAIL', `The chain refuses this transfer: ${err.message}`);
    throw err;
  });
  return {
    adapter,
    sender,
    recipient,
    token,
    decimals,
    amount,
    tokenBalance: token === null ? null : held!,
    nativeBalance: nativeBalance!,
    intent,
    fee: quote.fee,
    network: { ...quote.network },
  };
}

/** The client's node failing mid-request is the client's URL's problem: a 422, not a configured chain's 503. */
async function clientNode<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if ((err as { code?: string }).code !== 'CHAIN_UNAVAILABLE') throw err;
    throw new BusinessRuleError('RPC_URL_UNREACHABLE', `rpcUrl failed during the request: ${(err as Error).message.slice(0, 200)}`, [
      { field: 'rpcUrl', message: 'the node failed' },
    ]);
  }
}

/** network-fee on a foreign chain. */
export async function foreignFee(
  f: Extract<ForeignChain, { kind: 'foreign' }>,
  body: SalvageFeeBody,
  senderOf: (address: string) => Promise<Salvager>,
): Promise<{ balance: string; fee: string; tokenBalance: string | null }> {
  try {
    const p = await clientNode(() => plan(f.adapter, body, senderOf));
    const native = f.adapter.config.blockchain.nativeDecimals;
    return {
      balance: formatAmount(p.nativeBalance, native),
      fee: formatAmount(p.fee, native),
      tokenBalance: p.tokenBalance === null ? null : formatAmount(p.tokenBalance, p.decimals),
    };
  } finally {
    f.adapter.close();
  }
}

/** The recovery on a foreign chain: signed, recorded, broadcast and followed within the request; its Transaction id. */
export async function foreignRecover(
  deps: ModuleDeps,
  wallet: WalletRow,
  f: Extract<ForeignChain, { kind: 'foreign' }>,
  body: SalvageBody,
  senderOf: (address: string) => Promise<Salvager>,
  /** The outside recipient's AML screening (null: the wallet's own), kept on the Transaction. */
  amlScreening: AmlScreening | null,
  /** Transaction policies (policy.ts), in the transaction that records the recovery: throws a refusal. */
  decide: (tx: DbConn, r: Recovered) => Promise<Counted>,
): Promise<string> {
  const { adapter, own } = f;
  try {
    const p = await clientNode(() => plan(adapter, body, senderOf));
    const coin = (v: bigint) => `${formatAmount(v, adapter.config.blockchain.nativeDecimals)} ${adapter.config.blockchain.symbol}`;
    const value = nativeValueOf(p.intent);
    if (p.nativeBalance < value + p.fee) {
      throw new BusinessRuleError(
        'INSUFFICIENT_BALANCE',
        `On a chain named by rpcUrl the sender pays its own fee: it holds ${coin(p.nativeBalance)}, the transfer and its fee need ${coin(value + p.fee)}`,
      );
    }
    const sender = adapter.sender;
    const end = async (
      id: string,
      ok: boolean,
      reason: string | null,
      mined: Parameters<ModuleDeps['transactions']['settleLeg']>[2]['mined'],
    ) =>
      deps.db.transaction().execute(async (tx) => {
        const moved = await deps.transactions.settleLeg(
          tx,
          id,
          ok
            ? { status: 'SUCCESS', stage: 'mined', reason, mined }
            : { status: 'FAILED', stage: mined ? 'failed' : 'not-sent', reason, mined },
        );
        if (moved) await deps.webhooks.emitForTransaction(tx, id, ok ? SALVAGE_EVENTS.ok : SALVAGE_EVENTS.failed);
      });
    // No tracker follows a foreign chain and its node alone counts the sender's nonces: two
    // recoveries of one sender that read the count together would sign two transfers with one
    // nonce (the node keeps one; the other fails, or replaces the first and leaves it PENDING
    // for ever). So one at a time, from the nonce read to the broadcast, under a claim the
    // twin is told about (409) rather than queued on. A claim row, not a lock held in a
    // transaction: that would keep a pool connection for as long as the client's node takes,
    // while the recovery needs more connections to record itself.
    const claim = uuidv7();
    const chainId = adapter.config.chainId;
    if (!(await tryClaim(deps.db, chainId, p.sender.address, claim, CLAIM_TTL_MS)))
      throw new ConflictError(
        'SALVAGE_IN_PROGRESS',
        'Another recovery from this address is in flight on that chain; send this one once it ends',
      );
    // Earlier recoveries of the sender there left PENDING (not mined within their request, or
    // their process died before the broadcast): what the node now says of them, under the claim.
    let sentId: string | null = null;
    const earlier = (claimed: boolean) =>
      settleEarlier(deps, { wallet, own, adapter, sender: p.sender.address, except: sentId, claimed }, end);
    const signAndSend = async () => {
      await earlier(true);
      // Foreign chains are EVM's (the foreignChains capability): the node's pending count is the nonce.
      const nonce = sender.ordering === 'nonce' ? await clientNode(() => sender.nonceOf(p.sender.address, 'pending')) : null;
      const network = await clientNode(() => sender.prepare(p.intent, p.network));
      // The node's answers may have outlasted the claim (a slow node the client named): a
      // twin that took it over reads the same nonce, so this one signs nothing.
      const stillOurs = () => renew(deps.db, chainId, p.sender.address, claim, CLAIM_TTL_MS);
      if (!(await stillOurs()))
        throw new ConflictError(
          'SALVAGE_IN_PROGRESS',
          'Another recovery from this address took over on that chain; send this one once it ends',
        );
      // Asked again just before signing (service.ts asked before the node was read): a
      // reference the wallet holds is refused with the key unused. A twin committing after
      // this is refused by create, its signed bytes dropped unsent.
      const reference = body.reference ?? shortReference();
      await deps.transactions.requireReferenceFree(deps.db, wallet.id, body.reference);
      const signed = await deps.signer.withKey(wallet.id, p.sender.index, p.sender.address, (key) =>
        sender.sign(p.intent, nonce, network, key),
      );
      const id = (sentId = uuidv7());
      // Decided and recorded with its hash, nonce and signed bytes before it is broadcast (a
      // crash after leaves the hash to look up, never an unknown transfer, and the next
      // recovery of the sender on that chain settles it: settleEarlier); a refusal drops the
      // signed bytes, never sent. The hash in the recording transaction itself: written after
      // its COMMIT, a crash between left a PENDING row with nothing to look up.
      await deps.db.transaction().execute(async (tx) => {
        const counted = await decide(tx, { sender: p.sender, recipient: p.recipient, assetId: null, amount: p.amount });
        await deps.transactions.create(
          tx,
          {
            id,
            wallet_id: wallet.id,
            address_id: p.sender.addressId,
            chain_id: own.id,
            reference,
            type: 'SALVAGE',
            status: 'PENDING',
            stage: 'created',
            confirmed: false,
            amount: p.amount.toString(),
            amount_paid: p.amount.toString(),
            amount_decimals: p.decimals,
            sender_address: p.sender.address,
            recipient_address: p.recipient,
            token_address: p.token,
            network: own.row.network,
            created_channel: 'API',
            aml_screening: amlScreening ?? {},
            metadata: {
              ...(body.metadata ?? {}),
              salvage: { crossNetwork: true, chainId: adapter.config.chainId, rpcHost: new URL(body.rpcUrl!).host },
            },
          },
          counted,
        );
        await deps.transactions.recordSigned(tx, id, { hash: signed.hash, nonce, raw: signed.raw });
      });
      if (!(await stillOurs())) {
        await end(id, false, 'the claim on the sender expired before the broadcast (the node was too slow); nothing was sent', null);
        return { id, hash: null };
      }
      // Only the node's own refusal means the transfer was not taken. A broadcast that got no
      // answer (a reset, a timeout) may have reached the node: sent once more (a node that has
      // the bytes answers with their hash), and if that gets no answer either, followed to its
      // receipt like a sent one (left PENDING with its hash if none comes: settleEarlier).
      for (let attempt = 0; ; attempt++) {
        try {
          await adapter.broadcast(signed.raw);
          break;
        } catch (err) {
          if (err instanceof ChainRejectedError) {
            await end(id, false, `the chain's node refused the transfer: ${err.message.slice(0, 300)}`, null);
            return { id, hash: null };
          }
          if (attempt > 0) {
            deps.logger.warn(
              { salvageId: id, err: (err as Error).message },
              'foreign-chain recovery broadcast unanswered; followed as sent',
            );
            break;
          }
        }
      }
      return { id, hash: signed.hash };
    };
    let sent: Awaited<ReturnType<typeof signAndSend>>;
    try {
      sent = await signAndSend();
    } finally {
      // Best effort: a claim left behind expires (CLAIM_TTL_MS).
      await release(deps.db, chainId, p.sender.address, claim).catch((err: unknown) =>
        deps.logger.warn({ err: (err as Error).message, chainId }, 'foreign-chain recovery claim not released; it expires'),
      );
    }
    const { id, hash } = sent;
    if (hash === null) return id;
    const deadline = Date.now() + RECEIPT_WAIT_MS;
    while (Date.now() < deadline) {
      const r = await adapter.getReceipt(hash).catch(() => null);
      if (r) {
        const mined = { hash, block: r.block, ...adapter.fees.ofReceipt(r) };
        await end(
          id,
          r.status === 'success',
          r.status === 'success' ? null : 'the recovery transfer reverted on chain (the network fee was paid)',
          mined,
        );
        // Mined with a nonce an earlier one may have been signed with (never broadcast): that
        // one can no longer land. The claim is let go by now: only what the node mined is judged.
        await earlier(false);
        return id;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    deps.logger.warn({ salvageId: id, hash }, 'foreign-chain recovery not mined within the request; it stays PENDING');
    return id;
  } finally {
    adapter.close();
  }
}

/**
 * Whether another recorded recovery of the sender on this chain, signed with `t`'s nonce, is
 * mined: then `t` can never be. A missing receipt of `t` beside a mined nonce count past it is
 * no proof on its own: the node answering the receipt look-up need not be the one (or at the
 * block) that answered the count (a load balancer's backend a block behind, a node still
 * indexing its transactions or keeping no index that far back), and a landed recovery ended
 * FAILED, "nothing was sent", is one the client pays again. A nonce taken by a transfer the
 * service did not sign leaves the recovery PENDING.
 */
async function nonceTakenByTwin(
  deps: ModuleDeps,
  r: { wallet: WalletRow; own: ChainHandle; adapter: ChainAdapter; sender: string },
  t: { id: string; nonce: string; hash: string },
): Promise<boolean> {
  const twins = await foreignSameNonce(deps.db, r.wallet.id, r.own.id, r.sender, r.adapter.config.chainId, t);
  for (const hash of twins) if (await r.adapter.getReceipt(hash)) return true;
  return false;
}

type End = (
  id: string,
  ok: boolean,
  reason: string | null,
  mined: Parameters<ModuleDeps['transactions']['settleLeg']>[2]['mined'],
) => Promise<void>;

/**
 * The wallet's earlier recoveries from `sender` on this foreign chain still PENDING, settled
 * from what the node says now: nothing follows a foreign chain (its URL is not kept), so a
 * recovery not mined within its request, or whose process died between recording it and
 * broadcasting it, is looked at again by the next one there. Mined: SUCCESS or FAILED as its
 * receipt says. No receipt of its own while another recorded recovery of the sender there,
 * signed with its nonce, is mined (nonceTakenByTwin; looked for only once the sender's mined
 * count is past that nonce, read first): FAILED, it can never be mined. A nonce used by a
 * transfer the service did not sign is no proof (the node may just not answer its receipt). Without a hash (recorded by an earlier version, whose process died before
 * writing it, so before any broadcast): FAILED, judged only under the sender's claim. Anything
 * else stays PENDING. Best effort: the node failing here does not fail the request.
 */
async function settleEarlier(
  deps: ModuleDeps,
  r: { wallet: WalletRow; own: ChainHandle; adapter: ChainAdapter; sender: string; except: string | null; claimed: boolean },
  end: End,
): Promise<void> {
  try {
    const rows = await pendingForeign(deps.db, r.wallet.id, r.own.id, r.sender, r.adapter.config.chainId, r.except);
    if (rows.length === 0) return;
    // Foreign chains are EVM's: its mined count is the lowest nonce not used yet.
    const s = r.adapter.sender;
    const used = s.ordering === 'nonce' ? await s.nonceOf(r.sender, 'latest') : 0n;
    for (const t of rows) {
      if (t.hash === null) {
        if (r.claimed) await end(t.id, false, 'the request recording it ended before its transfer was broadcast; nothing was sent', null);
        continue;
      }
      const receipt = await r.adapter.getReceipt(t.hash);
      if (receipt) {
        const mined = { hash: t.hash, block: receipt.block, ...r.adapter.fees.ofReceipt(receipt) };
        const ok = receipt.status === 'success';
        await end(t.id, ok, ok ? null : 'the recovery transfer reverted on chain (the network fee was paid)', mined);
      } else if (
        t.nonce !== null &&
        BigInt(t.nonce) < used &&
        (await nonceTakenByTwin(deps, r, { id: t.id, nonce: t.nonce, hash: t.hash }))
      ) {
        await end(
          t.id,
          false,
          `never mined: its nonce ${t.nonce} was used by another recovery of the sender on that chain (its request ended before the broadcast); nothing was sent`,
          null,
        );
      }
    }
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message, chainId: r.adapter.config.chainId }, 'earlier foreign-chain recoveries not looked at');
  }
}
