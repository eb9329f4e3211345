import {
  BaseError,
  createPublicClient,
  erc20Abi,
  ExecutionRevertedError,
  http,
  RawContractError,
  webSocket,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import type { ChainConfig } from '../../config/index.js';
import { AppError, UpstreamError } from '../../lib/errors.js';
import { ChainRejectedError } from '../errors.js';
import { evmCodec } from './codec.js';
import type {
  BalanceQuery,
  BlockRef,
  ChainAdapter,
  ContractCallInput,
  Contracts,
  EncodedContractCall,
  ForeignChains,
  PaymentRequests,
  PersonalMessages,
  PriceFeedRound,
  PriceFeeds,
  Receipt,
  ScanResult,
  ScreeningReads,
  SwapProvider,
  TransferEvent,
  TypedDataSigning,
} from '../types.js';
import { evmPaymentRequests } from './payment-uri.js';
import { createSwapProvider } from './swap-v2.js';
import { getBlockRef, scanRange, transfersOfTransaction } from './scan.js';
import { EvmBalances } from './balances.js';
import { jsonRpcPoster, type JsonRpcPoster } from './json-rpc-http.js';
import * as send from './send.js';
import { EvmSender } from './sender.js';
import * as contracts from './contracts.js';
import { prepareTypedData } from './typed-data.js';
import { grantsOf } from './grants.js';
import * as priceFeed from './price-feed.js';
import { prepareMessage } from './message.js';
import { describeTokenCall } from './token-calls.js';
import { evmFees, type FeeEstimate } from './fees.js';
import { EvmScreening } from './screening.js';
import { foreignEvmChain } from './foreign.js';

export class EvmAdapter implements ChainAdapter {
  readonly config: ChainConfig;
  readonly client: PublicClient;
  /** Same node, JSON-RPC batching on: a block range is fetched in a few round trips. */
  readonly scanClient: PublicClient;

  /**
   * Gas estimates: JSON-RPC batching on, so the estimates that concurrent withdrawal
   * requests ask for in the same moment go to the node in one HTTP request (each still its
   * own eth_estimateGas, with its own answer or refusal).
   */
  readonly #estimateClient: PublicClient;

  /** Balance reads' own keep-alive HTTP connections (see multicall-balances.ts); null over WebSocket. */
  readonly #balanceRpc: JsonRpcPoster | null;

  /** `fetchFn`: how the node is reached (a foreign chain's checked connections, foreign.ts); default fetch. */
  constructor(config: ChainConfig, opts: { fetchFn?: typeof fetch } = {}) {
    this.config = config;
    this.sender = new EvmSender(this, { chainId: config.chainId });
    const ws = /^wss?:/.test(config.rpcUrl);
    const fetchFn = opts.fetchFn ? { fetchFn: opts.fetchFn } : {};
    this.#balanceRpc = ws || opts.fetchFn ? null : jsonRpcPoster(config.rpcUrl, { timeoutMs: 15_000 });
    this.client = this.makeClient(ws ? webSocket(config.rpcUrl) : http(config.rpcUrl, { timeout: 15_000, retryCount: 2, ...fetchFn }));
    this.#balances = new EvmBalances(config, this.client, this.#balanceRpc, (err) => rpcError(config, err));
    this.scanClient = ws
      ? this.client
      : this.makeClient(http(config.rpcUrl, { timeout: 30_000, retryCount: 2, batch: { batchSize: 100, wait: 0 }, ...fetchFn }));
    this.#estimateClient = ws
      ? this.client
      : this.makeClient(http(config.rpcUrl, { timeout: 15_000, retryCount: 2, batch: { batchSize: 100, wait: 0 }, ...fetchFn }));
    const swaps = createSwapProvider(this.client, config.swapRouter);
    this.capabilities = {
      contracts: {
        encodeContractCall: (call, field) => this.encodeContractCall(call, field),
        readContract: (call, from, field) => this.readContract(call, from, field),
        simulateContractCall: (call, from, field) => this.simulateContractCall(call, from, field),
        describeTokenCall,
        getAllowances: (queries) => this.getAllowances(queries),
      },
      typedData: { prepareTypedData, grantsOf: (payload) => grantsOf(payload, config.chainId) },
      messages: { prepareMessage },
      priceFeeds: { readPriceFeed: (feed) => this.readPriceFeed(feed) },
      ...(swaps ? { swaps } : {}),
      paymentRequests: evmPaymentRequests(config.chainId),
      foreignChains: {
        open: async (url, lookup) => {
          const foreign = await foreignEvmChain(url, lookup, config);
          return new EvmAdapter(foreign.config, { fetchFn: foreign.fetchFn });
        },
      },
      screening: new EvmScreening(
        async (to, data) => (await this.client.call({ to: to as Address, data: data as Hex })).data ?? '0x',
        config.multicall3,
        (err) => err instanceof BaseError && err.walk((e) => e instanceof ExecutionRevertedError || e instanceof RawContractError) !== null,
      ),
    };
  }

  private makeClient(transport: ReturnType<typeof http> | ReturnType<typeof webSocket>): PublicClient {
    const config = this.config;
    return createPublicClient({
      transport,
      chain: {
        id: config.chainId,
        name: config.blockchain.name,
        nativeCurrency: { name: config.blockchain.symbol, symbol: config.blockchain.symbol, decimals: config.blockchain.nativeDecimals },
        rpcUrls: { default: { http: [config.rpcUrl] } },
        ...(config.multicall3 ? { contracts: { multicall3: { address: config.multicall3 as Address } } } : {}),
      },
    });
  }

  /** The family's side of the outbound lifecycle; its node calls go through this adapter (errors mapped). */
  readonly sender: EvmSender;

  /** Gas used and its price (fees.ts). */
  readonly fees = evmFees;

  /**
   * Contracts, EIP-712, EIP-191 messages, Chainlink price feeds and AML screening's list reads
   * (token blacklists, the sanctions oracle: screening.ts) on every EVM chain; swaps (a Uniswap
   * V2 style router, swap-v2.ts) where the chains file names a router; other EVM chains reached
   * at a client's RPC URL for an asset recovery (foreign.ts).
   */
  readonly capabilities: {
    contracts: Contracts;
    typedData: TypedDataSigning;
    messages: PersonalMessages;
    priceFeeds: PriceFeeds;
    swaps?: SwapProvider;
    screening: ScreeningReads;
    paymentRequests: PaymentRequests;
    foreignChains: ForeignChains<ChainAdapter>;
  };

  normalizeAddress(address: string): string | null {
    // A mixed-case address must carry a valid EIP-55 checksum (a typo guard); all-lower and
    // all-upper case forms carry none and are accepted (the family's codec, codec.ts).
    return evmCodec.normalize(address);
  }

  /** Balance reads: shared multicalls for the catalogue's tokens, a call of its own for any other (balances.ts). */
  readonly #balances: EvmBalances;

  async getBalances(queries: BalanceQuery[]): Promise<bigint[]> {
    return this.#balances.read(queries);
  }

  async getBlockNumber(): Promise<bigint> {
    try {
      return await this.client.getBlockNumber({ cacheTime: 0 });
    } catch (err) {
      throw rpcError(this.config, err);
    }
  }

  /** Depth counting: the block `confirmations` deep (the head's block counting 1) is final. */
  async finalizedHead(head: bigint): Promise<bigint> {
    return head - BigInt(Math.max(1, this.config.confirmations)) + 1n;
  }

  getBlock(number: bigint): Promise<BlockRef | null> {
    return this.rpc(() => getBlockRef(this.scanClient, number));
  }

  scan(from: bigint, to: bigint, tokens: string[], isWatched: (address: string) => boolean): Promise<ScanResult> {
    return this.rpc(() => scanRange(this.scanClient, from, to, tokens, isWatched));
  }

  transfersOfTransaction(hash: string, tokens: string[], isWatched: (address: string) => boolean): Promise<TransferEvent[]> {
    return this.rpc(() => transfersOfTransaction(this.scanClient, hash, tokens, isWatched));
  }

  getNonce(address: string, blockTag: 'pending' | 'latest'): Promise<number> {
    return this.rpc(() => send.getNonce(this.client, address, blockTag));
  }

  estimateFees(): Promise<FeeEstimate> {
    return this.rpc(() => send.estimateFees(this.client));
  }

  estimateGas(tx: { from: string; to: string; value: bigint; data?: string }): Promise<bigint> {
    return this.rpc(() => send.estimateGas(this.#estimateClient, tx));
  }

  broadcast(raw: string): Promise<string> {
    return this.rpc(() => send.broadcastRaw(this.client, raw));
  }

  getReceipt(hash: string): Promise<Receipt | null> {
    return this.rpc(() => send.getReceipt(this.client, hash));
  }

  encodeTokenTransfer(to: string, amount: bigint): string {
    return send.encodeTokenTransfer(to, amount);
  }

  readTokenDecimals(token: string): Promise<number | null> {
    return this.rpc(() => priceFeed.readTokenDecimals(this.client, token));
  }

  readPriceFeed(feed: string): Promise<PriceFeedRound | null> {
    return this.rpc(() => priceFeed.readPriceFeed(this.client, feed));
  }

  /** Runs an RPC call, turning transport failures into a retryable domain error. */
  private async rpc<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (err instanceof UpstreamError || err instanceof ChainRejectedError) throw err;
      throw rpcError(this.config, err);
    }
  }

  close(): void {
    this.#balanceRpc?.close();
    const transport = this.client.transport as { getRpcClient?: () => Promise<{ close(): void }> };
    void transport
      .getRpcClient?.()
      .then((c) => c.close())
      .catch(() => undefined);
  }

  // ---- contracts and typed data ----------------------------------------------------

  encodeContractCall(call: ContractCallInput, field: string): EncodedContractCall {
    const { to, data, functionName, signature, stateMutability } = contracts.resolveCall(call, field);
    return { to, data, functionName, signature, stateMutability };
  }

  readContract(call: ContractCallInput, from: string, field: string): Promise<string> {
    return this.contractRpc(() => contracts.readCall(this.client, call, from, field));
  }

  simulateContractCall(call: ContractCallInput, from: string, field: string): Promise<{ gas: bigint }> {
    return this.contractRpc(() => contracts.simulateCall(this.client, call, from, field));
  }

  getAllowances(queries: { owner: string; token: string; spender: string }[]): Promise<bigint[]> {
    return this.rpc(() =>
      Promise.all(
        queries.map((q) =>
          this.client.readContract({
            address: q.token as Address,
            abi: erc20Abi,
            functionName: 'allowance',
            args: [q.owner as Address, q.spender as Address],
          }),
        ),
      ),
    );
  }

  /** Like `rpc`, but the client's mistakes and reverts (AppErrors: 400, 422) pass through as they are. */
  private async contractRpc<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw rpcError(this.config, err);
    }
  }
}

function rpcError(config: ChainConfig, err: unknown): UpstreamError {
  const short = (err as { shortMessage?: string }).shortMessage ?? (err as Error).message;
  return new UpstreamError('CHAIN_UNAVAILABLE', `${config.blockchain.name} (${config.network}) RPC failed: ${short}`, err);
}
