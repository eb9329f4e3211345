/**
 * TEST DOUBLE, part of the abacus family: its side of the outbound lifecycle, an 'expiry'
 * sender (no nonces: a deadline in the network data, `validUntil`). The fee is flat (FEE),
 * so nothing is bid: a client's fee cap is refused, a limit is kept as given and changes
 * nothing. Only native payments: the family has no tokens and no contracts.
 */
import { ChainRejectedError } from '../../../src/chains/errors.js';
import { ValidationError } from '../../../src/lib/errors.js';
import type {
  ChildFeeFunding,
  ExpirySender,
  FeeQuote,
  NetworkData,
  QuoteOptions,
  Receipt,
  SignedTransaction,
  SigningKey,
  TxIntent,
} from '../../../src/chains/types.js';
import { FEE, encode, sha256, type AbacusChain, type AbacusPayload } from './chain.js';
import { receiptOf } from './receipt.js';

/** Blocks a transaction stays valid after the head it was prepared at. */
export const EXPIRY_BLOCKS = 20n;

function payment(intent: TxIntent): { from: string; to: string; value: bigint } {
  if (intent.kind !== 'native') throw new ChainRejectedError('invalid', `abacus carries native payments only, not a ${intent.kind} intent`);
  if (intent.memo !== undefined) throw new ChainRejectedError('invalid', 'abacus transactions carry no memo');
  return { from: intent.from, to: intent.to, value: intent.amount };
}

export class AbacusSender implements ExpirySender {
  readonly ordering = 'expiry' as const;

  constructor(private readonly chain: AbacusChain) {}

  async quote(intent: TxIntent, given: NetworkData = {}, _opts: QuoteOptions = {}): Promise<FeeQuote> {
    payment(intent);
    return { network: { ...given }, fixed: { ...given }, fee: FEE };
  }

  quoteAll(items: { intent: TxIntent; given?: NetworkData }[]): Promise<FeeQuote[]> {
    return Promise.all(items.map((i) => this.quote(i.intent, i.given)));
  }

  requote(quote: FeeQuote, given: NetworkData): FeeQuote {
    return { network: { ...quote.network, ...given }, fixed: { ...quote.fixed, ...given }, fee: FEE };
  }

  fixedNetwork(given: { limit?: bigint; feeCap?: bigint }): NetworkData {
    if (given.feeCap !== undefined) {
      throw new ValidationError('gasPrice: the abacus fee is flat, nothing is bid', [
        { field: 'gasPrice', message: 'not supported on abacus' },
      ]);
    }
    if (given.limit !== undefined && given.limit < 1n) throw new ValidationError('gasLimit must be at least 1');
    return given.limit === undefined ? {} : { limit: given.limit.toString() };
  }

  /** A fresh deadline every time (a rebuild prepares the expired row's data again). */
  async prepare(intent: TxIntent, given: NetworkData): Promise<NetworkData> {
    payment(intent);
    return { ...given, validUntil: (this.chain.head().number + EXPIRY_BLOCKS).toString() };
  }

  sign(intent: TxIntent, nonce: bigint | null, network: NetworkData, key: SigningKey): SignedTransaction {
    if (nonce !== null) throw new Error('an abacus transaction takes no nonce');
    if (network.validUntil === undefined) throw new Error('network data is not prepared (validUntil)');
    const { from, to, value } = payment(intent);
    const payload: AbacusPayload = { chainId: this.chain.chainId, from, to, value: value.toString(), validUntil: network.validUntil };
    return encode(payload, key.signDigest(sha256(JSON.stringify(payload))));
  }

  costOf(value: bigint): bigint {
    return value + FEE;
  }

  /** Any balance may be left behind. */
  accountFloor(): Promise<bigint> {
    return Promise.resolve(0n);
  }

  /** The sender pays its own flat fee: the master sends a child what it lacks of it. */
  childFeeFunding(p: { nativeBalance: bigint; value: bigint }): ChildFeeFunding {
    const needed = p.value + FEE;
    return needed > p.nativeBalance ? { kind: 'transfer', amount: needed - p.nativeBalance } : { kind: 'none' };
  }

  async planChildFunding(p: { nativeBalance: bigint; value: bigint }): Promise<ChildFeeFunding> {
    return this.childFeeFunding(p);
  }

  fundedNetwork(quote: FeeQuote): NetworkData {
    return quote.fixed;
  }

  async findLanded(hashes: string[]): Promise<{ index: number; receipt: Receipt } | null> {
    for (const [index, hash] of hashes.entries()) {
      const found = this.chain.receipt(hash);
      if (found) return { index, receipt: receiptOf(found) };
    }
    return null;
  }

  async hasExpired(network: NetworkData): Promise<boolean> {
    return network.validUntil !== undefined && this.chain.head().number >= BigInt(network.validUntil);
  }
}
