/**
 * The rules a contract write obeys besides simulation: the wallet's contract-write setting
 * (off, or an allow-list of contracts), and, for a call that moves the wallet's funds, the
 * withdrawal rules (beneficiary whitelist, balance reservation; withdrawals/moves.ts).
 *
 * A call moves the wallet's funds when it carries native value, or when it calls a token
 * of the chain's catalogue with a selector that moves or lets move the caller's tokens
 * (transfer, transferAndCall, approve, increaseAllowance or Tether's increaseApproval) or pulls from one of the
 * wallet's own addresses (transferFrom). The selector of the encoded calldata decides,
 * never the ABI's function names: an ABI may give a colliding name to `transfer`.
 */
import type { EncodedContractCall, TokenCall } from '../../chains/types.js';
import type { DbConn } from '../../db/pool.js';
import { capability, lostDestination } from '../../chains/registry.js';
import { BusinessRuleError, ValidationError } from '../../lib/errors.js';
import type { OwnerSpends, Spend } from '../withdrawals/service.js';
import type { Actor, ContractServiceDeps, Move } from './types.js';
import { addressKey } from '../../chains/address-key.js';
import { tokenAt } from '../catalogue/service.js';

export interface CallMoves {
  moves: Move[][];
  owners: OwnerSpends[];
}

/** 422 CONTRACT_WRITES_DISABLED or CONTRACT_NOT_ALLOWED by the wallet's `configurations.contractWrites`. */
export function checkPolicy(deps: ContractServiceDeps, actor: Actor, encoded: EncodedContractCall[]): void {
  requireContractsAllowed(
    deps,
    actor.wallet,
    encoded.map((e, i) => ({ address: e.to, field: `calls.${i}.address` })),
  );
}

/**
 * checkPolicy again in the transaction that accepts the calls, on the wallet as read there
 * under its standing's lock, shared and held to the COMMIT (wallets/service.ts standing),
 * which a change of the setting takes exclusive: writes switched off or a contract left off
 * the allow-list, answered while the request read the chain, refuses it (nothing written,
 * no signature handed out), whichever API process answered the change.
 */
export async function requirePolicyStanding(
  deps: ContractServiceDeps,
  tx: DbConn,
  actor: Actor,
  encoded: EncodedContractCall[],
): Promise<void> {
  const { row } = await deps.wallets.standing(tx, actor.wallet.id);
  checkPolicy(deps, { ...actor, wallet: row ?? actor.wallet }, encoded);
}

/**
 * What the wallet's `configurations.contractWrites` says of contracts it would act on (a
 * call's, a typed-data signature's verifying contract): 422 CONTRACT_WRITES_DISABLED when
 * switched off, CONTRACT_NOT_ALLOWED for one not on its allow-list (when it has one).
 */
export function requireContractsAllowed(
  deps: Pick<ContractServiceDeps, 'wallets'>,
  wallet: Actor['wallet'],
  contracts: { address: string; field: string }[],
): void {
  const policy = deps.wallets.present(wallet).configurations.contractWrites;
  if (!policy.isActive) {
    throw new BusinessRuleError(
      'CONTRACT_WRITES_DISABLED',
      'Contract writes are switched off for this wallet (configurations.contractWrites.isActive)',
    );
  }
  if (policy.allowedContracts.length === 0) return;
  const allowed = new Set(policy.allowedContracts.map(addressKey));
  const refused = contracts.find((c) => !allowed.has(addressKey(c.address)));
  if (!refused) return;
  throw new BusinessRuleError(
    'CONTRACT_NOT_ALLOWED',
    `${refused.address} is not in this wallet's contract allow-list (configurations.contractWrites.allowedContracts)`,
    [{ field: refused.field, message: 'not an allowed contract' }],
  );
}

/**
 * What each call moves and what every paying address spends (network fee and value for the
 * actor, tokens for their owners). `fees` is each call's fee as the family quoted it.
 */
export async function movesOf(
  deps: ContractServiceDeps,
  actor: Actor,
  encoded: EncodedContractCall[],
  values: bigint[],
  fees: bigint[],
): Promise<CallMoves> {
  const { chain } = actor;
  const nativeRow = chain.assets.find((a) => a.is_native);
  const owners = new Map<string, OwnerSpends>();
  const spend = (owner: string, s: Spend) => {
    const key = addressKey(owner);
    if (!owners.has(key)) owners.set(key, { owner, spends: [], consumes: [] });
    owners.get(key)!.spends.push(s);
    return owners.get(key)!;
  };
  const moves: Move[][] = [];
  for (const [i, e] of encoded.entries()) {
    const field = `calls.${i}`;
    const mine: Move[] = [];
    const value = values[i]!;
    if (value > 0n && !nativeRow) {
      throw new ValidationError(`${field}.value: this chain has no native asset in the catalogue`, [
        { field: `${field}.value`, message: 'native value is not supported here' },
      ]);
    }
    // The actor always pays the call's network fee, and its value if any.
    const native = nativeRow ? deps.catalogue.asset(nativeRow.id)! : null;
    if (native) spend(actor.address, { asset: native, amount: value, to: e.to, fee: fees[i]!, beneficiary: value > 0n, field });
    if (value > 0n)
      mine.push({ owner: actor.address, assetId: native!.row.id, amount: value, kind: 'transfer', beneficiary: e.to, token: null });

    const found = tokenCall(actor, e, i);
    if (found) {
      const { call } = found;
      const token = deps.catalogue.asset(found.assetId)!;
      const move = (owner: string, amount: bigint, to: string, kind: Move['kind']) => {
        if (kind === 'transfer') refuseLost(actor, to, field);
        mine.push({ owner, assetId: token.row.id, amount, kind, beneficiary: to, token: token.row.address });
        return spend(owner, { asset: token, amount, to, fee: 0n, beneficiary: true, field });
      };
      if (call.kind === 'transfer' && call.amount > 0n) {
        move(actor.address, call.amount, call.to, 'transfer');
      } else if ((call.kind === 'approve' || call.kind === 'increaseAllowance') && call.amount > 0n) {
        // A spender may pull its allowance at any time: granting one spends it as far as
        // every later check is concerned (withdrawals/funds.ts). Revoking (0) moves nothing.
        move(actor.address, call.amount, call.spender, 'allowance');
      } else if (call.kind === 'transferFrom' && call.amount > 0n) {
        const from = await walletAddress(deps, actor, call.from);
        // Pulling someone else's tokens (their allowance to us) moves nothing of this wallet.
        if (from) {
          const o = move(from, call.amount, call.to, 'transfer');
          o.consumes!.push({ spender: addressKey(actor.address), assetId: token.row.id, amount: call.amount });
        }
      }
    }
    moves.push(mine);
  }
  return { moves, owners: [...owners.values()] };
}

/**
 * A token transfer of the wallet's funds to the family's zero (burn, system) address: 400, as
 * for withdrawals. Tokens built on OpenZeppelin revert such a transfer in simulation already;
 * others (Tether's USDT on Ethereum and Tron) would burn the tokens.
 */
/**
 * A token transfer's recipient where the tokens are lost, refused as a withdrawal's destination
 * is (withdrawals/validate.ts): the zero address, a precompiled contract, a catalogued token's
 * own contract (it takes what is sent to it and cannot give it back).
 */
function refuseLost(actor: Actor, to: string, field: string): void {
  const token = tokenAt(actor.chain, to);
  const lost = lostDestination(actor.chain.config, to) ?? (token ? `is the contract of ${token.symbol}; funds sent there are lost` : null);
  if (!lost) return;
  throw new ValidationError(`${field}: the recipient ${lost}`, [
    { field, message: `the recipient ${lost.replace(/; funds sent there are lost$/, '')}` },
  ]);
}

/**
 * The token call a call makes when it calls a catalogue token with a recognised selector;
 * a recognised selector without its arguments is a 400 (checked before simulation, since
 * the token executes the selector whatever the ABI called it).
 */
export function tokenCall(
  actor: Actor,
  e: EncodedContractCall,
  i: number,
): { assetId: string; call: Exclude<TokenCall, { kind: 'malformed' }> } | null {
  const row = tokenAt(actor.chain, e.to);
  const call = row ? capability(actor.chain.adapter, 'contracts').describeTokenCall(e.data) : null;
  if (!row || !call) return null;
  if (call.kind === 'malformed') {
    throw new ValidationError(`calls.${i}: the calldata has the selector of ${call.signature} but not its arguments`, [
      { field: `calls.${i}`, message: `not a well-formed ${call.signature} call` },
    ]);
  }
  return { assetId: row.id, call };
}

/** The address in the form the wallet stores it, when the wallet holds its key (the master or an internal child). */
async function walletAddress(deps: ContractServiceDeps, actor: Actor, address: string): Promise<string | null> {
  if (addressKey(address) === addressKey(actor.wallet.address)) return actor.wallet.address;
  const row = await deps.addresses.findByAddress(actor.wallet.id, address);
  return row && row.type === 'INTERNAL' && row.derivation_index !== null ? row.address : null;
}
