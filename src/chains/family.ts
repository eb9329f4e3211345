/**
 * What a chain family registers (chains/<family>/index.ts exports one ChainFamily, and
 * chains/families.ts lists them): everything shared code asks of a family by name, so that
 * a new family is its own folder plus one line in that list.
 *
 * - `codec` and `derivation`: its addresses and keys (chains/types.ts);
 * - `config`: what configuration needs (config/chains.ts, FamilyConfig: defaults, the
 *   chains-file options only its chains take, its catalogue entries), handed to loadConfig
 *   by the composition root, since config/ imports nothing above lib/;
 * - `adapter`: the ChainAdapter of a configured chain of the family (chains/registry.ts).
 *
 * A family's local stand-in for the embedded default (src/devnet/<family>/) is registered on
 * devnet/'s side (devnet/stand-ins.ts): production code never reaches devnet/.
 */
import type { ChainConfig, FamilyConfig } from '../config/index.js';
import type { AddressCodec, ChainAdapter, KeyDerivation } from './types.js';

export interface ChainFamily {
  readonly name: string;
  readonly codec: AddressCodec;
  /** The derivation at the family's standard account path. */
  readonly derivation: KeyDerivation;
  /**
   * The derivation at another account path (a catalogue entry's or a chains file's
   * derivationPath); throws where the family's layout is fixed.
   */
  derivationAt(accountPath: string): KeyDerivation;
  /** The all-zero address in canonical form: no key controls it, funds sent there are lost. */
  readonly zeroAddress: string;
  /**
   * Why funds sent to this (canonical) address are lost although it is not the zero address
   * (a precompiled contract, a burn address), or null; absent: only the zero address is.
   */
  lostAt?(address: string): string | null;
  /** What an address of the family looks like, for a client whose address was refused. */
  readonly addressForm: string;
  readonly config: FamilyConfig;
  /** The adapter of a configured chain of the family (its token addresses checked by the codec first). */
  adapter(chain: ChainConfig): ChainAdapter;
}

/**
 * Token addresses of a chain are checked through the family codec when its adapter is
 * built (the chains file checked only their form: config/ knows no codec), so a typo in a
 * checksum stops the start instead of reading balances of a contract nobody meant. `form`
 * names the expected form in the message.
 */
export function assertTokenAddresses(chain: ChainConfig, codec: AddressCodec, form: string): void {
  for (const asset of chain.assets) {
    if (!asset.isNative && codec.normalize(asset.address) !== asset.address) {
      throw new Error(`${asset.symbol} of ${chain.blockchain.name}: ${asset.address} is not ${form}`);
    }
  }
}
