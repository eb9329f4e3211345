/**
 * The Solana family's side of the outbound lifecycle (chains/types.ts, Sender), ordering
 * 'expiry': no nonce; a transaction names a recent blockhash and can land only in a block
 * whose height is at most that blockhash's lastValidBlockHeight. One not seen by then is
 * rebuilt, but only once the *finalized* block height is past it: then no fork can still
 * include it (a confirmed block could be dropped with its fork).
 *
 * The master pays every fee (intent.feePayer; the owner of the moved funds, a child, signs as
 * owner only), so a child never needs SOL (childFeeFunding answers 'none').
 *
 * The fee of a transaction: 5,000 lamports per signature, plus the priority fee
 * ceil(compute-unit price x compute-unit limit / 10^6), plus the rent of the recipient's
 * token account when the transfer creates it (paid by the fee payer, shown in the fee).
 * The compute-unit limit is the simulation's units with a margin; the price is a recent
 * prioritization fee of the accounts the transfer writes, at most the operator's cap.
 *
 * Network data (decimal strings): `units`, `microLamports`, `signatures`, `rent` (lamports of
 * a created token account), `createAccount` ('1'/'0'), `fee` (lamports); once prepared also
 * `message` (the compiled message, base64), `blockhash`, `lastValidBlockHeight`, `blockhashSlot`
 * (the slot of the bank that blockhash was read from).
 */
import { base58 } from '@scure/base';
import type { Address } from '@solana/kit';
import { ValidationError } from '../../lib/errors.js';
import { ChainRejectedError } from '../errors.js';
import type {
  ChildFeeFunding,
  FeeQuote,
  NetworkData,
  QuoteOptions,
  Receipt,
  ExpirySender,
  SignedTransaction,
  SigningKey,
  TxIntent,
} from '../types.js';
import { associatedTokenAccount, TOKEN_2022_PROGRAM, type SolanaBalances } from './balances.js';
import { checkIntent, checkSolRecipient, checkTransferFee, readTokenRecipients, tokenRecipients } from './recipients.js';
import { splPaymentsOf } from './transfers.js';
import { u64, type SolanaNode } from './rpc.js';
import { findLanded, hasExpired } from './landing.js';
import { accountKeysOf, compileTransfer, signersOf, wireTransaction, type SolanaTransferPlan } from './tx.js';
import { PACKET_BYTES, wireSize } from './batch.js';

export const LAMPORTS_PER_SIGNATURE = 5_000n;
/** Compute units = simulated x this / 100: state moves between the quote and the block. */
export const UNITS_MARGIN_PERCENT = 120n;
/** A transaction's compute budget cannot exceed this (the runtime's cap). */
const MAX_UNITS = 1_400_000n;
/** Bytes of an SPL token account (rent of a created one). */
const TOKEN_ACCOUNT_BYTES = 165n;
/** Any 32 bytes: simulateTransaction replaces it (replaceRecentBlockhash). */
const PLACEHOLDER_BLOCKHASH = base58.encode(new Uint8Array(32).fill(1));

export interface SolanaSenderOptions {
  /** The most a transfer bids per compute unit (micro-lamports); default 1,000,000 (1 lamport a unit). */
  maxMicroLamports?: bigint;
  /**
   * A transfer of the sender's whole token balance (QuoteOptions.wholeBalance: a sweep) also
   * closes the emptied token account, its rent to the fee payer (chains file `sweepCloseAccounts`).
   */
  closeAccounts?: boolean;
}

export class SolanaSender implements ExpirySender {
  readonly ordering = 'expiry' as const;
  /** The rent-exempt minimum by account size in bytes (a cluster constant), read once. */
  readonly #rent = new Map<bigint, Promise<bigint>>();

  constructor(
    private readonly node: SolanaNode,
    private readonly balances: SolanaBalances,
    private readonly opts: SolanaSenderOptions = {},
  ) {}

  quote(intent: TxIntent, given: NetworkData = {}, opts: QuoteOptions = {}): Promise<FeeQuote> {
    // A sweep closes the child's emptied token account where the operator allows it, a recovery always (#plan checks it empties).
    const close =
      opts.wholeBalance === true && (this.opts.closeAccounts === true || opts.reclaim === true) && splPaymentsOf(intent)?.length === 1;
    return this.#quote(intent, close ? { ...given, closeSource: '1' } : given);
  }

  quoteAll(items: { intent: TxIntent; given?: NetworkData }[]): Promise<FeeQuote[]> {
    return Promise.all(items.map((i) => this.#quote(i.intent, i.given ?? {})));
  }

  async #quote(intent: TxIntent, given: NetworkData): Promise<FeeQuote> {
    const plan = await this.#plan(intent, given, { blockhash: PLACEHOLDER_BLOCKHASH, lastValidBlockHeight: 0n });
    const network = await this.#priced(plan, given);
    const fixed: NetworkData = {
      ...(given.units !== undefined ? { units: given.units } : {}),
      ...(network.closeSource !== undefined ? { closeSource: network.closeSource } : {}),
    };
    return { network, fixed, fee: BigInt(network.fee!), limit: { estimate: BigInt(network.simulated!), limit: BigInt(network.units!) } };
  }

  /** The transfer the intent asks for, with what the chain says now (the recipients' accounts, the mint: recipients.ts). */
  async #plan(intent: TxIntent, given: NetworkData, lifetime: SolanaTransferPlan['lifetime']): Promise<SolanaTransferPlan> {
    const feePayer = checkIntent(intent);
    const list = splPaymentsOf(intent);
    const spl = list?.[0] ?? null;
    const mintAddress = intent.kind === 'token' ? intent.token : null;
    const sol = intent.kind === 'native' ? intent.amount : 0n;
    const rpc = await this.node.rpc();
    if (!spl) await checkSolRecipient(rpc, intent.to, sol, () => this.#rentOf(0n));
    const mint = mintAddress ? { address: mintAddress, ...(await this.balances.mintsOf([mintAddress])).get(mintAddress)! } : null;
    const recipients = mint ? await readTokenRecipients(rpc, this.balances, mint.address, list ?? []) : null;
    if (mint?.program === TOKEN_2022_PROGRAM) await checkTransferFee(rpc, mint.address, feePayer, list!);
    const transfers = recipients ? tokenRecipients(recipients) : [];
    const createRecipientAccount = transfers[0]?.createRecipientAccount ?? false;
    return {
      feePayer,
      owner: intent.from,
      ...(await this.#closing(spl, intent, given)),
      recipient: spl ? spl.to : intent.to,
      amount: spl ? spl.amount : sol,
      mint,
      createRecipientAccount,
      ...(transfers.length > 1 ? { transfers } : {}),
      computeUnits: Number(MAX_UNITS),
      microLamportsPerUnit: 0n,
      lifetime,
    };
  }

  /**
   * Whether to close the sender's token account after the transfer (asked by `closeSource`):
   * only when the transfer empties it as the chain stands now (processed), so a deposit that
   * arrived since the quote leaves the account open and the transfer valid.
   */
  async #closing(spl: { amount: bigint } | null, intent: TxIntent, given: NetworkData): Promise<{ closeSourceAccount: boolean }> {
    if (given.closeSource !== '1' || !spl || intent.kind !== 'token') return { closeSourceAccount: false };
    const account = await this.balances.tokenAccount(intent.from, intent.token);
    const rpc = await this.node.rpc();
    const { value } = await rpc
      .getTokenAccountBalance(account as Address, { commitment: 'processed' })
      .send()
      .catch(() => ({ value: null }));
    return { closeSourceAccount: value !== null && u64(value.amount) === spl.amount };
  }

  /**
   * Units (simulated, with the margin, unless given), price and fee of a plan. `ceiling` (when
   * prepared): a SOL transfer from its own fee payer that would leave it between nothing and
   * its rent-exempt minimum (the runtime refuses that) bids the difference as priority fee,
   * within the ceiling: a "send everything" accepted at one price is signed at a lower one.
   */
  async #priced(plan: SolanaTransferPlan, given: NetworkData, ceiling?: bigint): Promise<NetworkData> {
    const rpc = await this.node.rpc();
    const written = [plan.feePayer, plan.owner, plan.recipient].filter((a, i, all) => all.indexOf(a) === i);
    const recent = await rpc.getRecentPrioritizationFees(written as Address[]).send();
    const cap = this.opts.maxMicroLamports ?? 1_000_000n;
    let microLamports = big(given.microLamports) ?? min(percentile75(recent.map((r) => u64(r.prioritizationFee))), cap);
    const signatures = plan.feePayer === plan.owner ? 1n : 2n;
    // A SOL transfer from its fee payer: what the payer keeps depends on the fee it is signed
    // with, so a simulation at another fee (the small one below) could leave it under its
    // rent-exempt minimum where the signed one empties it, or the reverse. Its units are
    // simulated moving nothing (a system transfer's units do not depend on the amount), and
    // the transfer itself at its own limit and price below.
    const selfPaid = plan.mint === null && plan.owner === plan.feePayer;
    // Simulated with the instructions that are signed: a price instruction uses compute units
    // too (its value does not change how many, so 1 keeps the simulation's fee small).
    const probe = await this.#simulate({
      ...plan,
      ...(selfPaid ? { amount: 0n } : {}),
      microLamportsPerUnit: microLamports > 0n || selfPaid ? 1n : 0n,
    });
    const { units: simulated, createdBytes } = probe;
    const units = big(given.units) ?? min((simulated * UNITS_MARGIN_PERCENT + 99n) / 100n, MAX_UNITS);
    if (selfPaid) {
      if (ceiling !== undefined) microLamports = await this.#emptying(plan, signatures, units, microLamports, ceiling);
      await this.#simulate({ ...plan, computeUnits: Number(units), microLamportsPerUnit: microLamports });
    }
    // The rent of every token account the transaction creates (a multi-transfer may create
    // several), at each one's size as the simulation made it: a Token-2022 account carries
    // extensions (170 bytes at least, with ImmutableOwner), an SPL Token one is 165 bytes.
    const created = BigInt(createdBytes.length);
    let rent = 0n;
    for (const bytes of createdBytes) rent += await this.#rentOf(bytes);
    const fee = signatures * LAMPORTS_PER_SIGNATURE + (microLamports * units + 999_999n) / 1_000_000n + rent;
    return {
      units: units.toString(),
      simulated: simulated.toString(),
      microLamports: microLamports.toString(),
      signatures: signatures.toString(),
      rent: rent.toString(),
      createAccount: plan.createRecipientAccount ? '1' : '0',
      ...(plan.transfers ? { created: created.toString() } : {}),
      ...(plan.closeSourceAccount ? { closeSource: '1' } : {}),
      fee: fee.toString(),
    };
  }

  /**
   * The price at which a SOL transfer from its fee payer leaves it nothing rather than less than
   * its rent-exempt minimum (read at `processed`), when that fee is within `ceiling`;
   * otherwise `microLamports` as given (the simulation then says why it cannot be sent).
   */
  async #emptying(plan: SolanaTransferPlan, signatures: bigint, units: bigint, microLamports: bigint, ceiling: bigint): Promise<bigint> {
    const rpc = await this.node.rpc();
    const { value: balance } = await rpc.getBalance(plan.owner as Address, { commitment: 'processed' }).send();
    const fixedPart = signatures * LAMPORTS_PER_SIGNATURE;
    const fee = fixedPart + (microLamports * units + 999_999n) / 1_000_000n;
    const left = u64(balance) - plan.amount - fee;
    if (left <= 0n || left >= (await this.#rentOf(0n))) return microLamports;
    const target = u64(balance) - plan.amount;
    if (target > ceiling) return microLamports;
    const price = ((target - fixedPart) * 1_000_000n) / units;
    return fixedPart + (price * units + 999_999n) / 1_000_000n === target ? price : microLamports;
  }

  /** `network` priced within `ceiling`: the priority fee lowered to fit, or a refusal ('reverted') when the rest alone is above it. */
  async #withinCeiling(
    plan: SolanaTransferPlan,
    given: NetworkData,
    network: NetworkData,
    ceiling: bigint | undefined,
  ): Promise<NetworkData> {
    if (ceiling === undefined || BigInt(network.fee!) <= ceiling) return network;
    const units = BigInt(network.units!);
    const fixedPart = BigInt(network.signatures!) * LAMPORTS_PER_SIGNATURE + BigInt(network.rent!);
    if (fixedPart > ceiling) {
      throw new ChainRejectedError(
        'reverted',
        `the transfer now costs at least ${fixedPart} lamports (signatures${BigInt(network.rent!) > 0n ? ' and the rent of a token account to create' : ''}), more than the ${ceiling} reserved for it when it was accepted`,
      );
    }
    const microLamports = ((ceiling - fixedPart) * 1_000_000n) / units;
    return this.#priced(plan, { ...given, units: units.toString(), microLamports: microLamports.toString() }, ceiling);
  }

  /**
   * The compute units the transfer uses now, and the size of each token account it creates;
   * a failure is ChainRejectedError ('insufficient-funds' or 'reverted').
   */
  async #simulate(plan: SolanaTransferPlan): Promise<{ units: bigint; createdBytes: bigint[] }> {
    const compiled = await compileTransfer(plan);
    const creates = (plan.transfers ?? [plan]).filter((t) => t.createRecipientAccount);
    const createdAccounts = plan.mint
      ? await Promise.all(creates.map((t) => associatedTokenAccount(t.recipient, plan.mint!.address, plan.mint!.program)))
      : [];
    // A packed batch sized when it was accepted can outgrow the packet by the time it is
    // prepared (a recipient closed its token account, which must now be created): it can never
    // be sent as is, so it is refused as failing, and the pipeline voids it (each withdrawal
    // FAILED with withdraw.failed, retried one by one) instead of retrying it forever.
    const size = wireSize(compiled);
    if (size > PACKET_BYTES) {
      throw new ChainRejectedError(
        'reverted',
        `the transaction is ${size} bytes, more than a packet's ${PACKET_BYTES}: its transfers no longer fit one transaction`,
      );
    }
    const wire = Buffer.from(
      wireTransaction(
        compiled.messageBytes,
        compiled.signers.map(() => new Uint8Array(64)),
      ),
    ).toString('base64');
    const rpc = await this.node.rpc();
    const { value } = await rpc
      .simulateTransaction(wire as never, {
        encoding: 'base64',
        sigVerify: false,
        replaceRecentBlockhash: true,
        commitment: 'confirmed',
        ...(createdAccounts.length ? { accounts: { addresses: createdAccounts as Address[], encoding: 'base64' as const } } : {}),
      })
      .send();
    if (value.err !== null) {
      const detail = JSON.stringify(value.err, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
      const poor = /InsufficientFunds|custom program error: 0x1\b|"Custom":"?1"?[,}\]]/.test(`${detail} ${(value.logs ?? []).join(' ')}`);
      throw new ChainRejectedError(poor ? 'insufficient-funds' : 'reverted', 'the Solana node says the transfer would fail', {
        nodeMessage: detail,
      });
    }
    const after = (value as { accounts?: ({ data: [string, string] | string[] } | null)[] | null }).accounts ?? [];
    // A node that answers no account state: an SPL Token account's size (the smallest).
    const createdBytes = createdAccounts.map((_a, i) => {
      const data = after[i]?.data;
      return data ? BigInt(Buffer.from(String(data[0]), 'base64').length) : TOKEN_ACCOUNT_BYTES;
    });
    return { units: u64(value.unitsConsumed ?? 0n), createdBytes };
  }

  #rentOf(bytes: bigint): Promise<bigint> {
    let rent = this.#rent.get(bytes);
    if (!rent) {
      rent = (async () => u64(await (await this.node.rpc()).getMinimumBalanceForRentExemption(bytes).send()))();
      // A failed read is not kept: the next caller asks again.
      rent.catch(() => this.#rent.get(bytes) === rent && this.#rent.delete(bytes));
      this.#rent.set(bytes, rent);
    }
    return rent;
  }

  requote(quote: FeeQuote, given: NetworkData): FeeQuote {
    const units = big(given.units);
    if (units === null) return quote;
    const n = quote.network;
    const fee =
      BigInt(n.signatures!) * LAMPORTS_PER_SIGNATURE + (BigInt(n.microLamports!) * units + 999_999n) / 1_000_000n + BigInt(n.rent!);
    return { network: { ...n, units: units.toString(), fee: fee.toString() }, fixed: { ...quote.fixed, units: units.toString() }, fee };
  }

  /** `limit` is the compute-unit limit (the API's gasLimit on Solana); fee caps have no meaning here. */
  fixedNetwork(given: { limit?: bigint; feeCap?: bigint }): NetworkData {
    if (given.feeCap !== undefined) {
      throw new ValidationError('gasPrice and fee caps have no meaning on Solana (the fee is per signature plus a priority fee)', [
        { field: 'gasPrice', message: 'not supported on Solana' },
      ]);
    }
    if (given.limit !== undefined && (given.limit < 1_000n || given.limit > MAX_UNITS)) {
      throw new ValidationError(`gasLimit (compute units on Solana) must be between 1000 and ${MAX_UNITS}`, [
        { field: 'gasLimit', message: `between 1000 and ${MAX_UNITS} compute units` },
      ]);
    }
    return given.limit !== undefined ? { units: given.limit.toString() } : {};
  }

  /**
   * Always a fresh blockhash (a rebuild after expiry prepares the old data again); the fee
   * priced anew unless fixed, within `feeCeiling` (what the payout reserved): the priority fee
   * is bid down to fit; a fee that cannot fit (a token account to create that did not need
   * creating when it was accepted: its rent) is refused as failing, so the payout fails with
   * the reason instead of costing more than was held (a retry reserves the new cost).
   */
  async prepare(intent: TxIntent, given: NetworkData, opts: { feeCeiling?: bigint } = {}): Promise<NetworkData> {
    const rpc = await this.node.rpc();
    const { context, value: lifetime } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
    const plan = await this.#plan(intent, given, {
      blockhash: lifetime.blockhash,
      lastValidBlockHeight: u64(lifetime.lastValidBlockHeight),
    });
    const network = await this.#withinCeiling(plan, given, await this.#priced(plan, given, opts.feeCeiling), opts.feeCeiling);
    const compiled = await compileTransfer({
      ...plan,
      computeUnits: Number(network.units),
      microLamportsPerUnit: BigInt(network.microLamports!),
    });
    return {
      ...network,
      message: Buffer.from(compiled.messageBytes).toString('base64'),
      blockhash: lifetime.blockhash,
      lastValidBlockHeight: u64(lifetime.lastValidBlockHeight).toString(),
      // The bank the blockhash is the last of: the transaction can land only in a later slot,
      // so a node whose ledger starts after it cannot say it did not (landing.ts hasExpired).
      blockhashSlot: u64(context.slot).toString(),
    };
  }

  /**
   * Signs the prepared message: as the fee payer with `payerKey` (the master's key, lent when
   * the intent names another fee payer) and as the owner with `key`. Only a message whose
   * signers are exactly the intent's and that names its recipient (or mint) is signed.
   */
  sign(intent: TxIntent, nonce: bigint | null, network: NetworkData, key: SigningKey, payerKey?: SigningKey): SignedTransaction {
    if (nonce !== null) throw new Error('a Solana transaction takes no nonce');
    if (!network.message) throw new Error('network data is not prepared (message)');
    const feePayer = checkIntent(intent);
    const message = Buffer.from(network.message, 'base64');
    const signers = signersOf(message);
    const expected = feePayer === intent.from ? [feePayer] : [feePayer, intent.from];
    if (signers.join() !== expected.join()) throw new Error('the prepared message is signed by others than the intent names');
    const named = intent.kind === 'token' ? intent.token : intent.to;
    if (!accountKeysOf(message).includes(named)) throw new Error('the prepared message does not name the intent');
    if (feePayer !== intent.from && !payerKey) throw new Error("the fee payer's key is needed");
    const signatures = signers.map((s) => {
      const k = s === intent.from ? key : payerKey!;
      if (!k.signMessage) throw new Error('a Solana transaction is signed with ed25519 keys');
      return k.signMessage(message);
    });
    return { raw: Buffer.from(wireTransaction(message, signatures)).toString('base64'), hash: base58.encode(signatures[0]!) };
  }

  costOf(value: bigint, network: NetworkData): bigint {
    return value + (big(network.fee) ?? 0n);
  }

  /** A system account is emptied or stays rent-exempt (the runtime refuses anything in between). */
  accountFloor(): Promise<bigint> {
    return this.#rentOf(0n);
  }

  /** The master signs every child's transaction as fee payer: nothing to send the child first. */
  childFeeFunding(): ChildFeeFunding {
    return { kind: 'none' };
  }

  async planChildFunding(): Promise<ChildFeeFunding> {
    return this.childFeeFunding();
  }

  /** The master pays a child's fees: nothing is paid in advance, so what the quote fixed is enough. */
  fundedNetwork(quote: FeeQuote): NetworkData {
    return quote.fixed;
  }

  /** See landing.ts: one getSignatureStatuses for all versions, each counted once confirmed. */
  findLanded(hashes: string[]): Promise<{ index: number; receipt: Receipt } | null> {
    return findLanded(this.node, hashes);
  }

  /** See landing.ts: past its blockhash's last valid height, and no status at a node at or past that point. */
  hasExpired(network: NetworkData, hash: string): Promise<boolean> {
    return hasExpired(this.node, network, hash);
  }
}

/** The 75th percentile of recent prices (0 when none): enough to land in a busy block without paying the top bidder. */
function percentile75(values: bigint[]): bigint {
  if (values.length === 0) return 0n;
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * 3) / 4))]!;
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);
const big = (v: string | undefined): bigint | null => (v === undefined ? null : BigInt(v));
