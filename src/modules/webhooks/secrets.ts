/**
 * Webhook signing secrets: one current `whsec_` secret per wallet for the Standard Webhooks
 * signature, shown once when created, rotatable with an overlap during which the old and
 * the new secret both sign (space-separated in `webhook-signature`). A wallet that never
 * had a secret is signed with its API key, as before secrets existed; its first secret
 * starts the same kind of overlap with the API key.
 *
 * Sealed by the key vault: table `webhook_secrets`, column `secret_ciphertext`, associated
 * data the row's id, plaintext the secret's 32 bytes.
 */
import type { Db } from '../../db/pool.js';
import type { Clock } from '../../lib/clock.js';
import type { KeyVault } from '../../keys/vault.js';
import { uuidv7 } from '../../lib/ids.js';
import { generateWebhookSecret } from '../../lib/webhook-signature.js';
import type { AuthContext } from '../apikeys/service.js';
import type { WalletService } from '../wallets/service.js';
import * as store from './secret-store.js';

/** Default overlap of a rotation (as the Standard Webhooks providers do). */
export const DEFAULT_OVERLAP_SECONDS = 24 * 3600;
export const MAX_OVERLAP_SECONDS = 7 * 24 * 3600;
/** Opened secrets kept in memory at most (ids never change meaning: no invalidation needed). */
const CACHE_SIZE = 10_000;

export interface SecretStatus {
  walletId: string;
  /** Whether the wallet has a signing secret (otherwise its API key signs). */
  hasSecret: boolean;
  /** When the current secret was created. */
  createdAt: string | null;
  /** Until when the previous secret still signs beside the current one. */
  previousValidUntil: string | null;
  /** Whether the API key also keys webhook-signature now, and until when (null: for as long as there is no secret). */
  apiKeySigns: boolean;
  apiKeySignsUntil: string | null;
}

export class WebhookSecretService {
  readonly #opened = new Map<string, Promise<Buffer>>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly vault: KeyVault,
    private readonly wallets: WalletService,
  ) {}

  async status(auth: AuthContext, walletId: string): Promise<SecretStatus> {
    await this.wallets.require(auth, walletId);
    return this.describe(walletId, this.clock.now());
  }

  /**
   * Creates the wallet's first secret or replaces the current one; the one it replaces
   * (or, the first time, the API key) keeps signing for `overlapSeconds`. Returns the new
   * secret: the only time it is shown.
   */
  async rotate(auth: AuthContext, walletId: string, overlapSeconds = DEFAULT_OVERLAP_SECONDS): Promise<SecretStatus & { secret: string }> {
    await this.wallets.require(auth, walletId);
    const { bytes, text } = generateWebhookSecret();
    const id = uuidv7();
    try {
      const now = this.clock.now();
      const until = new Date(now.getTime() + overlapSeconds * 1000);
      await this.db.transaction().execute(async (tx) => {
        // Sealed in the transaction that stores it: a key rotation waits for it (modules/custody).
        const ciphertext = await this.vault.seal(bytes, id, tx);
        await store.lockWallet(tx, walletId);
        const first = !(await store.hasAnySecret(tx, walletId));
        await store.retireSecrets(tx, walletId, now, until);
        await store.insertSecret(tx, { id, walletId, ciphertext, now, apiKeySignsUntil: first && overlapSeconds > 0 ? until : null });
      });
      return { ...(await this.describe(walletId, now)), secret: text };
    } finally {
      bytes.fill(0);
    }
  }

  /** The key bytes of the given secrets, in the given order (the claim lists the live ones). */
  async keys(ids: string[]): Promise<Buffer[]> {
    const missing = ids.filter((id) => !this.#opened.has(id));
    if (missing.length) {
      const load = store.sealedSecrets(this.db, missing);
      for (const id of missing) {
        const opened = load.then((rows) => {
          const row = rows.find((r) => r.id === id);
          if (!row) throw new Error(`webhook secret ${id} not found`);
          return this.vault.open(row.secret_ciphertext, id);
        });
        this.remember(id, opened);
      }
    }
    return Promise.all(ids.map((id) => this.#opened.get(id)!));
  }

  private remember(id: string, opened: Promise<Buffer>): void {
    if (this.#opened.size >= CACHE_SIZE) this.#opened.delete(this.#opened.keys().next().value!);
    this.#opened.set(id, opened);
    // A failed read is not kept: the next attempt reads again.
    opened.catch(() => this.#opened.get(id) === opened && this.#opened.delete(id));
  }

  private async describe(walletId: string, now: Date): Promise<SecretStatus> {
    const live = await store.liveSecrets(this.db, walletId, now);
    const current = live.find((s) => s.retires_at === null) ?? null;
    const previous = live.find((s) => s.retires_at !== null) ?? null;
    const apiKeyUntil = live.find((s) => s.api_key_signs_until && s.api_key_signs_until > now)?.api_key_signs_until ?? null;
    return {
      walletId,
      hasSecret: current !== null,
      createdAt: current?.created_at.toISOString() ?? null,
      previousValidUntil: previous?.retires_at?.toISOString() ?? null,
      apiKeySigns: current === null || apiKeyUntil !== null,
      apiKeySignsUntil: apiKeyUntil?.toISOString() ?? null,
    };
  }
}
