/**
 * The Tron node stand-in: java-tron's /wallet and /walletsolidity HTTP API over an anvil
 * chain that runs the TRC-20 bytecode, with Tron's transaction, resource and block rules
 * modelled (docs/tron.md, "The Tron node stand-in"). Devnet and tests only.
 */
import path from 'node:path';
import { encodeDeployData, encodeFunctionData, type Abi } from 'viem';
import { startAnvil, type AnvilHandle } from '../anvil.js';
import { loadArtifact } from '../compile.js';
import { MULTICALL3_ADDRESS, ANVIL_DEFAULT_PRIVATE_KEY } from '../chain.js';
import { fromEvm, toBase58, toEvm, type Hex41 } from './address.js';
import { makeControl, controlRoutes, type StandInControl, type StandInToken } from './control.js';
import { Evm } from './evm.js';
import { startServer, type Handler } from './http.js';
import { Ledger, newAccount } from './ledger.js';
import { TronNode, type NodeLogger } from './node.js';
import { DEFAULT_SOLIDIFY_LAG, MAINNET_LIKE_PARAMS, ORIGIN_ENERGY_LIMIT, SUN_PER_TRX, type TronChainParams } from './params.js';
import { Store } from './persist.js';
import { queryRoutes } from './routes-query.js';
import { solidityTxRoutes, txRoutes } from './routes-tx.js';
import { addressOfPrivateKey, sha256 } from './transactions.js';
import { toTronAbi, type ContractRecord } from './vm.js';

export type { StandInControl, StandInToken } from './control.js';
export type { TronChainParams } from './params.js';

export interface TronStandInOptions {
  /** Data directory (chain, ledger, EVM state); omit for a throwaway chain. */
  dir?: string;
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  /** Block interval; 0 = blocks only on demand (control.produceBlocks / POST /standin/mine). Default 3000. */
  blockTimeMs?: number;
  logger?: NodeLogger;
  /** TRC-20 tokens deployed at the first start (TestToken bytecode), minted to the faucet. */
  tokens: { symbol: string; decimals: number; name?: string }[];
  /** Chain parameters; default mainnet's current values. */
  params?: Partial<TronChainParams>;
  solidifyLag?: number;
  /** Faucet key; default anvil's well-known dev key 0 (devnet only). */
  faucetPrivateKey?: string;
  /** TRX the faucet holds at genesis, in sun; default 1,000,000,000 TRX. */
  faucetSun?: bigint;
  /** Whole tokens minted to the faucet per token; default 1,000,000,000. */
  mintPerToken?: bigint;
}

export interface TronStandIn {
  /** Full-node base URL: serves /wallet/* and /walletsolidity/* (new TronWeb({ fullHost: url })). */
  url: string;
  tokens: StandInToken[];
  faucet: { address: string; hex: string; privateKey: string };
  /** Multicall3 at the same bytecode as on EVM devnets (TRX balances through getEthBalance). */
  multicall: { address: string; hex: string };
  control: StandInControl;
  params: TronChainParams;
  /**
   * AML lists: the sanctions oracle (contracts/DevnetSanctionsList.sol, owned by the faucet)
   * and whether the tokens keep issuers' blacklists (contracts/TestToken.sol). Null / false
   * on a chain whose state predates them.
   */
  sanctionsOracle: { address: string; hex: string } | null;
  blacklists: boolean;
  stop(): Promise<void>;
}

const silent: NodeLogger = { info() {}, warn() {} };
/** Chain id anvil runs with: Tron mainnet's (0x2b6653dc), so CHAINID in contracts reads like mainnet. */
const EVM_CHAIN_ID = 728_126_428;

export async function startTronStandIn(opts: TronStandInOptions): Promise<TronStandIn> {
  const log = opts.logger ?? silent;
  const params: TronChainParams = { ...MAINNET_LIKE_PARAMS, ...opts.params };
  const faucetKey = (opts.faucetPrivateKey ?? ANVIL_DEFAULT_PRIVATE_KEY).replace(/^0x/, '');
  const faucetHex = addressOfPrivateKey(faucetKey);
  // A fixed witness key: block signatures stay reproducible across runs.
  const witnessKey = sha256(Buffer.from('tron-standin-witness')).toString('hex');
  const store = opts.dir ? new Store(opts.dir) : undefined;

  const anvil: AnvilHandle = await startAnvil({
    chainId: EVM_CHAIN_ID,
    port: 0,
    ...(opts.dir ? { pidFile: path.join(opts.dir, 'anvil.pid') } : {}),
    logger: {
      info: (...a) => log.info({ anvil: a[0] }, String(a[1] ?? 'anvil')),
      warn: (...a) => log.warn({ anvil: a[0] }, String(a[1] ?? 'anvil')),
    },
  });
  let node: TronNode;
  let tokens: StandInToken[];
  let lists: ListsMeta = {};
  try {
    const evm = new Evm(anvil.rpcUrl);
    await evm.init();
    if (store?.exists()) {
      const loaded = store.load();
      await evm.load(loaded.evmState);
      await evm.init();
      node = new TronNode(evm, params, opts.solidifyLag ?? DEFAULT_SOLIDIFY_LAG, witnessKey, loaded, log);
      tokens = loaded.meta.tokens as StandInToken[];
      lists = { sanctionsOracle: loaded.meta.sanctionsOracle as ListsMeta['sanctionsOracle'], blacklists: loaded.meta.blacklists === true };
      assertSameTokens(tokens, opts.tokens, opts.dir as string);
      node.ledger.markAllDirty();
      log.info({ head: node.head().number, dir: opts.dir }, 'tron stand-in: state loaded');
    } else {
      const fresh = await provision(evm, opts, faucetHex, witnessKey);
      tokens = fresh.tokens;
      lists = fresh.lists;
      node = new TronNode(evm, params, opts.solidifyLag ?? DEFAULT_SOLIDIFY_LAG, witnessKey, fresh.state, log);
    }
    await node.mirrorBalances();
    if (store) node.onChange = () => save(store, node, tokens, lists);
    // Block 1 right away on a fresh chain: clients need a recent block to reference.
    if (node.head().number === 0) await node.produceBlocks(1);
  } catch (err) {
    await anvil.stop();
    throw err;
  }

  let timer: NodeJS.Timeout | undefined;
  let paused = (opts.blockTimeMs ?? 3_000) <= 0;
  const interval = opts.blockTimeMs ?? 3_000;
  const schedule = () => {
    if (paused || interval <= 0) return;
    timer = setTimeout(
      () => {
        node.produceBlocks(1).then(schedule, (err) => {
          log.warn({ err: (err as Error).message }, 'tron stand-in: block production failed');
          schedule();
        });
      },
      interval - (node.now() % interval),
    );
  };
  const producer = {
    pause: () => {
      paused = true;
      clearTimeout(timer);
    },
    resume: () => {
      if (!paused || interval <= 0) return;
      paused = false;
      schedule();
    },
    producing: () => !paused && interval > 0,
  };
  const control = makeControl(node, { hex: faucetHex, privateKey: faucetKey }, tokens, producer);

  const routes = new Map<string, Handler>();
  for (const [p, h] of [...queryRoutes(node, false), ...txRoutes(node)]) routes.set(`/wallet/${p}`, h);
  for (const [p, h] of [...queryRoutes(node, true), ...solidityTxRoutes(node)]) routes.set(`/walletsolidity/${p}`, h);
  const multicallHex = fromEvm(MULTICALL3_ADDRESS);
  for (const [p, h] of controlRoutes(node, control, () => ({
    tokens,
    faucet: toBase58(faucetHex),
    multicall: toBase58(multicallHex),
    blockTimeMs: interval,
  }))) {
    routes.set(p, h);
  }
  let server;
  try {
    server = await startServer(routes, {
      host: opts.host ?? '127.0.0.1',
      port: opts.port ?? 0,
      onError: (err, p) => log.warn({ err: err instanceof Error ? err.message : String(err), path: p }, 'tron stand-in: request failed'),
    });
  } catch (err) {
    await anvil.stop();
    throw err;
  }
  schedule();
  log.info({ url: server.url, head: node.head().number, blockTimeMs: interval }, 'tron stand-in: started');

  let stopping: Promise<void> | undefined;
  return {
    url: server.url,
    tokens,
    faucet: { address: toBase58(faucetHex), hex: faucetHex, privateKey: faucetKey },
    multicall: { address: toBase58(multicallHex), hex: multicallHex },
    control,
    params,
    sanctionsOracle: lists.sanctionsOracle ?? null,
    blacklists: lists.blacklists === true,
    stop: () =>
      (stopping ??= (async () => {
        producer.pause();
        await server.close();
        // Whatever is in flight finishes first; then the last state is written.
        try {
          if (store) await node.exclusive(() => save(store, node, tokens, lists));
        } catch (err) {
          log.warn({ err: (err as Error).message }, 'tron stand-in: could not save the state on stop');
        }
        await anvil.stop();
        log.info({}, 'tron stand-in: stopped');
      })()),
  };
}

/** What a chain's state says of its AML lists (absent in states that predate them). */
interface ListsMeta {
  sanctionsOracle?: { address: string; hex: string } | undefined;
  blacklists?: boolean;
}

async function save(store: Store, node: TronNode, tokens: StandInToken[], lists: ListsMeta): Promise<void> {
  const head = await node.evm.head();
  await store.save(node, { head, dump: () => node.evm.dump() }, { tokens, ...lists });
}

/** First start: genesis balance for the faucet, the tokens and Multicall3 on the EVM, block 0. */
async function provision(evm: Evm, opts: TronStandInOptions, faucetHex: Hex41, witnessKey: string) {
  const ledger = new Ledger();
  const createdAt = Math.floor(Date.now() / 1000) * 1000;
  ledger.putAccount({ ...newAccount(faucetHex, createdAt), balance: opts.faucetSun ?? 1_000_000_000n * BigInt(SUN_PER_TRX) });
  const [token, multicall, oracle] = await Promise.all([
    loadArtifact('TestToken'),
    loadArtifact('Multicall3'),
    loadArtifact('DevnetSanctionsList'),
  ]);
  await evm.setCode(MULTICALL3_ADDRESS, multicall.deployedBytecode);
  const contracts = new Map<string, ContractRecord>();
  const multicallHex = fromEvm(MULTICALL3_ADDRESS);
  contracts.set(multicallHex, contractRecord(multicallHex, faucetHex, 'Multicall3', multicall.deployedBytecode, multicall.abi));
  ledger.putAccount(newAccount(multicallHex, createdAt, 'Contract'));
  const faucetEvm = toEvm(faucetHex);
  const tokens: StandInToken[] = [];
  const mintWhole = opts.mintPerToken ?? 1_000_000_000n;
  for (const spec of opts.tokens) {
    const name = spec.name ?? `${spec.symbol} (Tron stand-in)`;
    const deploy = encodeDeployData({ abi: token.abi, bytecode: token.bytecode, args: [name, spec.symbol, spec.decimals] });
    const out = await evm.execute(faucetEvm, undefined, deploy, 10_000_000);
    if (out.result !== 'SUCCESS' || !out.contractAddress)
      throw new Error(`tron stand-in: deploying ${spec.symbol} failed: ${out.error ?? out.result}`);
    const hex = fromEvm(out.contractAddress);
    const mint = encodeFunctionData({
      abi: token.abi as Abi,
      functionName: 'mint',
      args: [faucetEvm, mintWhole * 10n ** BigInt(spec.decimals)],
    });
    const minted = await evm.execute(faucetEvm, toEvm(hex), mint, 1_000_000);
    if (minted.result !== 'SUCCESS') throw new Error(`tron stand-in: minting ${spec.symbol} failed: ${minted.error ?? minted.result}`);
    contracts.set(hex, contractRecord(hex, faucetHex, spec.symbol, token.bytecode, token.abi));
    ledger.putAccount(newAccount(hex, createdAt, 'Contract'));
    tokens.push({ symbol: spec.symbol, decimals: spec.decimals, address: toBase58(hex), hex });
  }
  // The sanctions oracle, deployed by the faucet (its owner), as on the EVM devnets.
  const deployed = await evm.execute(faucetEvm, undefined, oracle.bytecode, 10_000_000);
  if (deployed.result !== 'SUCCESS' || !deployed.contractAddress)
    throw new Error(`tron stand-in: deploying the sanctions oracle failed: ${deployed.error ?? deployed.result}`);
  const oracleHex = fromEvm(deployed.contractAddress);
  contracts.set(oracleHex, contractRecord(oracleHex, faucetHex, 'DevnetSanctionsList', oracle.bytecode, oracle.abi));
  ledger.putAccount(newAccount(oracleHex, createdAt, 'Contract'));
  const lists: ListsMeta = { sanctionsOracle: { address: toBase58(oracleHex), hex: oracleHex }, blacklists: true };
  const genesis = TronNode.genesisBlock(witnessKey, await evm.head());
  ledger.seal(0);
  return { tokens, lists, state: { blocks: [genesis], ledger, contracts, pending: [], timeOffsetMs: 0 } };
}

function contractRecord(address: Hex41, origin: Hex41, name: string, bytecode: string, abi: Abi): ContractRecord {
  return {
    address,
    origin,
    name,
    bytecode: bytecode.replace(/^0x/, ''),
    abi: toTronAbi(abi as unknown as Record<string, unknown>[]),
    // 100: callers pay all of the energy, as with USDT on mainnet.
    consumeUserResourcePercent: 100,
    originEnergyLimit: ORIGIN_ENERGY_LIMIT,
  };
}

function assertSameTokens(have: StandInToken[], want: TronStandInOptions['tokens'], dir: string): void {
  const same = have.length === want.length && want.every((w, i) => have[i]?.symbol === w.symbol && have[i]?.decimals === w.decimals);
  if (!same) {
    throw new Error(
      `tron stand-in: ${dir} was created with tokens ${have.map((t) => `${t.symbol}/${t.decimals}`).join(', ')}, ` +
        `but ${want.map((t) => `${t.symbol}/${t.decimals}`).join(', ')} were asked for; delete the directory to start a fresh chain`,
    );
  }
}
