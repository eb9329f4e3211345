// Puts a devnet chain into the shape the service expects: Multicall3 at its canonical address
// and the test stablecoins deployed and minted to the faucet. Safe to run on every start.
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  getAddress,
  getContractAddress,
  http,
  parseEther,
  type Abi,
  type Address,
  type Chain,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { loadArtifact } from './compile.js';

export const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';

/** anvil's default dev account 0: public knowledge, never use outside a devnet. */
export const ANVIL_DEFAULT_PRIVATE_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

export interface DevnetTokenSpec {
  symbol: string;
  name: string;
  decimals: number;
}

export interface DevnetAsset extends DevnetTokenSpec {
  address: Address;
}

export interface ProvisionDevnetChainOptions {
  rpcUrl: string;
  chainId: number;
  tokens: DevnetTokenSpec[];
  faucetPrivateKey: Hex;
  /** Whole tokens minted to the faucet per token; default 1,000,000,000. */
  mintPerToken?: bigint;
}

export interface ProvisionedDevnetChain {
  assets: DevnetAsset[];
  multicall3: Address;
  faucet: { address: Address; privateKey: Hex };
}

const DEFAULT_MINT = 1_000_000_000n;
// Explicit, so the mint can be sent before its token's deployment is mined (interval mining)
// without a gas estimate against a contract that does not exist yet. A first mint costs ~70k.
const MINT_GAS = 150_000n;
const FAUCET_MIN_NATIVE = parseEther('1');
const FAUCET_TOPUP_NATIVE = parseEther('10000');

/** A viem chain for a devnet, with Multicall3 where `provisionDevnetChain` installs it. */
export function devnetChain(chainId: number, rpcUrl: string): Chain {
  return defineChain({
    id: chainId,
    name: `devnet-${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    contracts: { multicall3: { address: MULTICALL3_ADDRESS } },
  });
}

/**
 * Token i lives at CREATE(faucet, nonce i): the faucet's first transactions on a fresh chain
 * are the deployments, in list order. A chain whose state file was lost therefore gets its
 * tokens back at the same addresses, and addresses written into credentials stay valid.
 */
export function expectedTokenAddresses(faucet: Address, count: number): Address[] {
  return Array.from({ length: count }, (_, i) => getContractAddress({ from: faucet, nonce: BigInt(i) }));
}

export async function provisionDevnetChain(opts: ProvisionDevnetChainOptions): Promise<ProvisionedDevnetChain> {
  const chain = devnetChain(opts.chainId, opts.rpcUrl);
  const transport = http(opts.rpcUrl);
  // Local node: poll receipts often instead of viem's 4 s default.
  const pollingInterval = 100;
  const pub = createPublicClient({ chain, transport, pollingInterval });
  const test = createTestClient({ chain, transport, mode: 'anvil', pollingInterval });
  const account = privateKeyToAccount(opts.faucetPrivateKey);
  const wallet = createWalletClient({ chain, transport, account, pollingInterval });

  const actualChainId = await pub.getChainId();
  if (actualChainId !== opts.chainId) {
    throw new Error(`devnet: ${opts.rpcUrl} is chain ${actualChainId}, expected ${opts.chainId}`);
  }
  const [token, multicall] = await Promise.all([loadArtifact('TestToken'), loadArtifact('Multicall3')]);

  // Reinstalled every time rather than checked: it is one cheap call, and it replaces code
  // left behind by an older build of our Multicall3.
  await test.setCode({ address: MULTICALL3_ADDRESS, bytecode: multicall.deployedBytecode });

  // The default dev account is pre-funded, but any other faucet key would start empty.
  if ((await pub.getBalance({ address: account.address })) < FAUCET_MIN_NATIVE) {
    await test.setBalance({ address: account.address, value: FAUCET_TOPUP_NATIVE });
  }

  const abi = token.abi;
  const expected = expectedTokenAddresses(account.address, opts.tokens.length);
  let nextNonce = await pub.getTransactionCount({ address: account.address, blockTag: 'pending' });
  const mintUnits = opts.mintPerToken ?? DEFAULT_MINT;
  const sent: Hex[] = [];
  const needsMint: { address: Address; units: bigint }[] = [];

  for (const [i, spec] of opts.tokens.entries()) {
    const address = expected[i] as Address;
    const units = mintUnits * 10n ** BigInt(spec.decimals);
    const code = await pub.getCode({ address });
    if (code && code !== '0x') {
      await assertSameToken(pub, abi, address, spec);
      const supply = (await pub.readContract({ address, abi, functionName: 'totalSupply' })) as bigint;
      // Zero supply means a previous run died between deploying and minting.
      if (supply === 0n) needsMint.push({ address, units });
      continue;
    }
    if (nextNonce !== i) {
      throw new Error(
        `devnet: cannot place ${spec.symbol} at its deterministic address ${address}: the faucet ` +
          `${account.address} has already sent ${nextNonce} transactions on chain ${opts.chainId} ` +
          `(tokens must be its first ${opts.tokens.length}). Delete the chain's state file to reset the devnet.`,
      );
    }
    sent.push(
      await wallet.deployContract({ abi, bytecode: token.bytecode, args: [spec.name, spec.symbol, spec.decimals], nonce: nextNonce }),
    );
    nextNonce += 1;
    needsMint.push({ address, units });
  }

  // Mints go after all deployments so token nonces stay 0..n-1 whatever the list length.
  for (const m of needsMint) {
    sent.push(
      await wallet.writeContract({
        address: m.address,
        abi,
        functionName: 'mint',
        args: [account.address, m.units],
        nonce: nextNonce,
        gas: MINT_GAS,
      }),
    );
    nextNonce += 1;
  }
  for (const hash of sent) {
    const receipt = await pub.waitForTransactionReceipt({ hash, timeout: 60_000 });
    if (receipt.status !== 'success') throw new Error(`devnet: provisioning transaction ${hash} reverted`);
  }

  return {
    assets: opts.tokens.map((spec, i) => ({ ...spec, address: getAddress(expected[i] as Address) })),
    multicall3: MULTICALL3_ADDRESS,
    faucet: { address: account.address, privateKey: opts.faucetPrivateKey },
  };
}

type PublicClientLike = ReturnType<typeof createPublicClient>;

// A state file made with a different token list would otherwise hand out addresses whose
// symbol or decimals silently disagree with the configuration.
async function assertSameToken(pub: PublicClientLike, abi: Abi, address: Address, spec: DevnetTokenSpec): Promise<void> {
  const [symbol, decimals] = await Promise.all([
    pub.readContract({ address, abi, functionName: 'symbol' }) as Promise<string>,
    pub.readContract({ address, abi, functionName: 'decimals' }) as Promise<number>,
  ]);
  if (symbol !== spec.symbol || Number(decimals) !== spec.decimals) {
    throw new Error(
      `devnet: ${address} holds ${symbol} with ${decimals} decimals, but the configuration wants ` +
        `${spec.symbol} with ${spec.decimals}. The state file was made with another token list; delete it to reset the devnet.`,
    );
  }
}
