/**
 * Generated from the service's /openapi.json by openapi-typescript (`npm run sdk:types`).
 * Do not edit: change the routes' schemas and regenerate.
 */

export interface paths {
  '/v1/blockchains': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List supported blockchains
     * @description Every blockchain of the catalogue; `isActive` tells whether this installation has it configured.
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Blockchain'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/assets': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List supported assets
     * @description The assets this installation supports on its configured chains (the ids that `POST /v1/wallets/{walletId}/assets` enables). Filters `network`, `symbol`, `blockchainId`; paginated.
     */
    get: {
      parameters: {
        query?: {
          network?: 'mainnet' | 'testnet';
          /** @description any letter case */
          symbol?: string;
          /** @description a blockchain's id (GET /v1/blockchains) */
          blockchainId?: string;
          page?: number;
          limit?: number;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Asset'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
              meta: {
                currentPage: number;
                itemCount: number;
                itemsPerPage: number;
                totalItems: number;
                totalPages: number;
              };
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List master wallets (business key) */
    get: {
      parameters: {
        query?: {
          page?: number;
          limit?: number;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Wallet'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
              meta: {
                currentPage: number;
                itemCount: number;
                itemsPerPage: number;
                totalItems: number;
                totalPages: number;
              };
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    /**
     * Create a master wallet (business key)
     * @description Extension. Creates a master wallet on a configured blockchain and network and returns its API key once. The wallet's key carries the restrictions of the key that created it (`apiKeyScopes`); a READ_ONLY key creates none.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description blockchain slug, e.g. ethereum */
            blockchain: string;
            network: 'mainnet' | 'testnet';
            name: string;
            description?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                id: string;
                name: string;
                description: string;
                /** @description master address (derivation index 0) */
                address: string;
                derivationPath: string;
                network: string;
                isActive: boolean;
                status: string;
                business: {
                  id: string;
                  name: string;
                  /** Format: date-time */
                  createdAt: string;
                  /** Format: date-time */
                  updatedAt: string;
                };
                configurations: components['schemas']['WalletConfigurations'];
                blockchain: components['schemas']['Blockchain'];
                /** @description extension: maximum number of child addresses */
                addressLimit: number;
                webhookUrl: string | null;
                /** Format: date-time */
                createdAt: string;
                /** Format: date-time */
                updatedAt: string;
                /** @description shown once; store it now */
                apiKey: string;
                /** @description the wallet key's restrictions: those of the key that created the wallet (empty: none) */
                apiKeyScopes: ('READ_ONLY' | 'NO_KEY_EXPORT' | 'APPROVE' | 'MANAGE_POLICIES')[];
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get a master wallet
     * @description With `assets` (the wallet assets) and `analytics` (address counts, transactions by type and status).
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                id: string;
                name: string;
                description: string;
                /** @description master address (derivation index 0) */
                address: string;
                derivationPath: string;
                network: string;
                isActive: boolean;
                status: string;
                business: {
                  id: string;
                  name: string;
                  /** Format: date-time */
                  createdAt: string;
                  /** Format: date-time */
                  updatedAt: string;
                };
                configurations: components['schemas']['WalletConfigurations'];
                blockchain: components['schemas']['Blockchain'];
                /** @description extension: maximum number of child addresses */
                addressLimit: number;
                webhookUrl: string | null;
                /** Format: date-time */
                createdAt: string;
                /** Format: date-time */
                updatedAt: string;
                /** @description the wallet assets, as GET .../assets */
                assets?: components['schemas']['WalletAsset'][];
                analytics?: {
                  activeAddressesCount: number;
                  addressLimit: number;
                  addressesCount: number;
                  externalAddressesCount: number;
                  inactiveAddressesCount: number;
                  internalAddressesCount: number;
                  /** @description the master address's balances of the enabled assets, read on chain, in USD; null when a rate source does not price every asset held */
                  currentBalance: string | null;
                  /** @description the enabled assets */
                  numberOfAssets: number;
                  /** @description confirmed deposits still at child addresses (not swept to the master), in USD; null when a rate source does not price every asset held */
                  unsweptBalance: string | null;
                  transactions: {
                    total: number;
                    /** @description transactions per type */
                    byType: {
                      DEPOSIT: number;
                      WITHDRAW: number;
                      SALVAGE: number;
                      SIGNED: number;
                      CUSTOM_SMART_CONTRACT: number;
                      SWAP: number;
                      AUTO_SETTLEMENT: number;
                      STAKING: number;
                      UNSTAKING: number;
                      RESTAKING: number;
                      UNSTAKING_WITHDRAW: number;
                    } & {
                      [key: string]: number;
                    };
                    /** @description transactions per status */
                    byStatus: {
                      PENDING: number;
                      SUCCESS: number;
                      FAILED: number;
                      CANCELLED: number;
                    } & {
                      [key: string]: number;
                    };
                    /** @description type -> status -> count, only the pairs that occur */
                    byTypeAndStatus: {
                      [key: string]: {
                        [key: string]: number;
                      };
                    };
                  };
                };
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /**
     * Update a master wallet
     * @description Partial update of name, description, isActive and configurations (deep-merged). Any key may deactivate the wallet; reactivating a deactivated one needs the business key (403 for a wallet key). Answers the wallet as GET does (with `assets` and `analytics`).
     */
    patch: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            name?: string;
            description?: string;
            isActive?: boolean;
            configurations?: {
              addresses?: {
                isActive?: boolean;
                prefunding?: {
                  isActive?: boolean;
                  rules?: {
                    [key: string]: unknown;
                  }[];
                };
              };
              autoSettlement?: {
                isActive?: boolean;
              };
              autoSweeping?: {
                isActive?: boolean;
                threshold?: number;
              };
              withdrawal?: {
                gasless?: {
                  isActive?: boolean;
                  operator?: string;
                  threshold?: number;
                };
              };
              /** @description extension: contract writes (contracts/write and contracts/write/sign) on/off, and an allow-list of the contracts they may call (empty: any). A wallet API key may only restrict this; relaxing it needs the business API key. */
              contractWrites?: {
                isActive?: boolean;
                allowedContracts?: string[];
              };
              /** @description extension: AML screening (docs/aml.md). `providers` (read-only): the lists screened on this chain. `onDepositHit`: a deposit from a listed sender is credited and HOLD (kept from sweeps and settlements until released) or FLAG (only marked). `onProviderFailure`: when a provider does not answer, payouts are refused (BLOCK, fail closed) or let through marked NOT_SCREENED (ALLOW). A wallet API key may only make these stricter. */
              aml?: {
                onDepositHit?: 'HOLD' | 'FLAG';
                onProviderFailure?: 'BLOCK' | 'ALLOW';
              };
            };
            webhookUrl?: string | null;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                id: string;
                name: string;
                description: string;
                /** @description master address (derivation index 0) */
                address: string;
                derivationPath: string;
                network: string;
                isActive: boolean;
                status: string;
                business: {
                  id: string;
                  name: string;
                  /** Format: date-time */
                  createdAt: string;
                  /** Format: date-time */
                  updatedAt: string;
                };
                configurations: components['schemas']['WalletConfigurations'];
                blockchain: components['schemas']['Blockchain'];
                /** @description extension: maximum number of child addresses */
                addressLimit: number;
                webhookUrl: string | null;
                /** Format: date-time */
                createdAt: string;
                /** Format: date-time */
                updatedAt: string;
                /** @description the wallet assets, as GET .../assets */
                assets?: components['schemas']['WalletAsset'][];
                analytics?: {
                  activeAddressesCount: number;
                  addressLimit: number;
                  addressesCount: number;
                  externalAddressesCount: number;
                  inactiveAddressesCount: number;
                  internalAddressesCount: number;
                  /** @description the master address's balances of the enabled assets, read on chain, in USD; null when a rate source does not price every asset held */
                  currentBalance: string | null;
                  /** @description the enabled assets */
                  numberOfAssets: number;
                  /** @description confirmed deposits still at child addresses (not swept to the master), in USD; null when a rate source does not price every asset held */
                  unsweptBalance: string | null;
                  transactions: {
                    total: number;
                    /** @description transactions per type */
                    byType: {
                      DEPOSIT: number;
                      WITHDRAW: number;
                      SALVAGE: number;
                      SIGNED: number;
                      CUSTOM_SMART_CONTRACT: number;
                      SWAP: number;
                      AUTO_SETTLEMENT: number;
                      STAKING: number;
                      UNSTAKING: number;
                      RESTAKING: number;
                      UNSTAKING_WITHDRAW: number;
                    } & {
                      [key: string]: number;
                    };
                    /** @description transactions per status */
                    byStatus: {
                      PENDING: number;
                      SUCCESS: number;
                      FAILED: number;
                      CANCELLED: number;
                    } & {
                      [key: string]: number;
                    };
                    /** @description type -> status -> count, only the pairs that occur */
                    byTypeAndStatus: {
                      [key: string]: {
                        [key: string]: number;
                      };
                    };
                  };
                };
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    trace?: never;
  };
  '/v1/wallets/{walletId}/api-key/regenerate': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Regenerate a wallet's API key (business key)
     * @description The previous key stops working at once. The new key is shown only in this response; it carries the restrictions of the key that asked for it (`scopes`).
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                walletId: string;
                /** @description shown once; the previous key stopped working */
                apiKey: string;
                prefix: string;
                /** @description the new key's restrictions: those of the key that regenerated it (empty: none) */
                scopes: ('READ_ONLY' | 'NO_KEY_EXPORT' | 'APPROVE' | 'MANAGE_POLICIES')[];
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/addresses': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List a wallet's child addresses
     * @description Newest first, paginated, with address analytics.
     */
    get: {
      parameters: {
        query?: {
          page?: number;
          limit?: number;
          type?: 'INTERNAL' | 'EXTERNAL';
          isActive?: boolean;
        };
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Address'][];
              analytics: {
                activeAddressesCount: number;
                addressLimit: number;
                addressesCount: number;
                externalAddressesCount: number;
                inactiveAddressesCount: number;
                internalAddressesCount: number;
              };
              meta: {
                currentPage: number;
                itemCount: number;
                itemsPerPage: number;
                totalItems: number;
                totalPages: number;
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    /**
     * Create a child deposit address
     * @description With `showPrivateKey: true` the new address comes with `privateKey` (where export is allowed and the API key may export keys: 403 otherwise, and nothing is created); the export is audited.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            name?: string;
            /** @description key/value data attached to the address and its transactions */
            metadata?: {
              [key: string]: unknown;
            };
            disableAutoSweep?: boolean;
            enableGaslessWithdraw?: boolean;
            /** @description answer the private key too (`privateKey`): only where export is allowed (ALLOW_KEY_EXPORT_*) and the API key may export keys; audited */
            showPrivateKey?: boolean;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Address'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/addresses/{addressId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get a child address
     * @description With `showPrivateKey=true` the response adds `privateKey`. The key is derived only then, and every export is written to the audit log. Export is off by default on mainnet.
     */
    get: {
      parameters: {
        query?: {
          showPrivateKey?: boolean;
        };
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Address'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /**
     * Update a child address
     * @description Partial update of name, metadata, isActive and configurations. `disableAutoSweep` and `enableGaslessWithdraw` may also come at the top level, as the described service documents (the same setting in both places with different values is a 400 naming both). `showPrivateKey: true` answers `privateKey` too (422 `NO_PRIVATE_KEY` for an address the service holds no key for; checked before anything is written).
     */
    patch: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            name?: string | null;
            metadata?: {
              [key: string]: unknown;
            } | null;
            isActive?: boolean;
            /** @description same as configurations.disableAutoSweep (compatibility) */
            disableAutoSweep?: boolean;
            /** @description same as configurations.enableGaslessWithdraw (compatibility) */
            enableGaslessWithdraw?: boolean;
            /** @description answer the private key too (`privateKey`): only where export is allowed (ALLOW_KEY_EXPORT_*) and the API key may export keys; audited */
            showPrivateKey?: boolean;
            configurations?: {
              disableAutoSweep?: boolean;
              enableGaslessWithdraw?: boolean;
            };
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Address'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    trace?: never;
  };
  '/v1/wallets/{walletId}/addresses/whitelist': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Register an external address
     * @description An outside address (type EXTERNAL): watched for deposits and counted in `externalAddressesCount`. Every wallet registering the same outside address gets its own deposit records. With `privateKey` (the address's key) the service holds the key from then on: sealed like the seeds, audited, swept like a child address (unless `disableAutoSweep`), exportable like one, and its deposits are credited to this wallet alone; refused on mainnet unless ALLOW_KEY_IMPORT_MAINNET (403). 409 `ADDRESS_EXISTS` when already on this wallet; 422 `ADDRESS_NOT_EXTERNAL` for any address the service already holds a key for (whichever wallet holds it).
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description an address the service holds no key for (EIP-55 checksum checked when mixed case) */
            address: string;
            name?: string;
            /** @description key/value data attached to the address and its transactions */
            metadata?: {
              [key: string]: unknown;
            };
            /** @description default: true without privateKey (nothing to sweep with), false with it */
            disableAutoSweep?: boolean;
            enableGaslessWithdraw?: boolean;
            /** @description the address's private key: secp256k1 in hex, 0x optional (EVM, Tron); on Solana base58 of the 64-byte secret key (seed and public key, as solana-keygen and Phantom export it) or the 32-byte seed in base58 or hex. The service holds it from then on (sealed, audited) and can sweep the address. Refused on mainnet unless ALLOW_KEY_IMPORT_MAINNET */
            privateKey?: string;
            /** @description answer the private key too (`privateKey`): only where export is allowed (ALLOW_KEY_EXPORT_*) and the API key may export keys; audited */
            showPrivateKey?: boolean;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Address'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/addresses/whitelist/{addressId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Remove an external address
     * @description Extension. Stops watching it; its recorded deposits remain. An imported key is forgotten with it (audited); 409 `KEY_IN_USE` while a transaction from the address is in flight. Internal addresses cannot be removed (422).
     */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Address'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/assets': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List a wallet's assets
     * @description Extension. Every asset enabled (or disabled) on the wallet.
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['WalletAsset'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    /**
     * Add (enable) an asset on a wallet
     * @description `assetId`: an asset of the wallet's chain from GET /v1/assets (an asset of another chain is a 422 `ASSET_CHAIN_MISMATCH`). Its decimals() is read on chain first: a token that disagrees with the catalogue is a 422 `ASSET_DECIMALS_MISMATCH`, an unreachable chain a 503. Enabling an asset again returns the same wallet asset.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          /**
           * @example {
           *       "assetId": "0190a8f0-5d2c-7b3e-9a41-2f6c8e1d4b70"
           *     }
           */
          'application/json': {
            /** @description a catalogue asset's id (GET /v1/assets), or the wallet asset's id */
            assetId: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['WalletAsset'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/assets/{assetId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Remove (disable) an asset from a wallet
     * @description Disables it: the wallet asset stays, inactive, with its history (its transactions stay listed); deposits of it are no longer recorded and balances leave it out. `POST .../assets` enables it again.
     */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description the wallet asset's id or the catalogue asset's id */
          assetId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['WalletAsset'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    options?: never;
    head?: never;
    /**
     * Enable or disable an asset on a wallet
     * @description `assetId` is the wallet asset's id or the catalogue asset's id; enabling a catalogue asset of the wallet's chain adds it.
     */
    patch: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description the wallet asset's id or the catalogue asset's id */
          assetId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            isActive: boolean;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['WalletAsset'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    trace?: never;
  };
  '/v1/wallets/{walletId}/balances': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read balances on chain
     * @description Filters `address` and `asset_id` come from the JSON body (as the spec has it) or the query string; both optional. Without filters: every enabled asset of the master address.
     */
    get: {
      parameters: {
        query?: {
          /** @description one of the wallet's addresses (default: the master address) */
          address?: string;
          /** @description wallet asset id or catalogue asset id (default: every enabled asset) */
          asset_id?: string;
        };
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description one of the wallet's addresses (default: the master address) */
            address?: string;
            /** @description wallet asset id or catalogue asset id (default: every enabled asset) */
            asset_id?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Balance'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/balance': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Balance of one asset of the master address
     * @description Extension. Without `assetId`: the chain's native coin (as the described service answers).
     */
    get: {
      parameters: {
        query?: {
          /** @description wallet asset id or catalogue asset id (default: the chain's native coin, enabled on the wallet or not) */
          assetId?: string;
        };
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Balance'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/addresses/{addressId}/balances': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Balances of a child address
     * @description Extension. Every enabled asset of the wallet, read on chain for this address.
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Balance'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/addresses/{addressId}/balance': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Balance of one asset of a child address
     * @description Extension. Without `assetId`: the chain's native coin (as the described service answers).
     */
    get: {
      parameters: {
        query?: {
          /** @description wallet asset id or catalogue asset id (default: the chain's native coin, enabled on the wallet or not) */
          assetId?: string;
        };
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Balance'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/transactions/{transactionsId}/webhooks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A transaction's webhook delivery log
     * @description One entry per delivery, newest first, with its attempt count, last response and (extension) every attempt in `history`.
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description transaction id */
          transactionsId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['WebhookLogEntry'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/transactions/webhooks/resend': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Resend a transaction's latest event
     * @description Creates a new delivery (a new log entry) of the latest event of the transaction. Answers the Transaction in `data` and the new delivery in `webhookLog`. The receiver may process an already completed transaction again.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description transaction id */
            id: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'];
              webhookLog: components['schemas']['WebhookLogEntry'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/transactions/{transactionsId}/resend-webhook': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Resend a transaction's latest event
     * @deprecated
     * @description Alias of `POST /v1/wallets/{walletId}/transactions/webhooks/resend` (same request, same answer), kept for clients written for the described service. Creates a new delivery (a new log entry) of the latest event of the transaction. Answers the Transaction in `data` and the new delivery in `webhookLog`. The receiver may process an already completed transaction again.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description transaction id */
          transactionsId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': Record<string, never>;
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'];
              webhookLog: components['schemas']['WebhookLogEntry'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/webhooks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Every webhook delivery of a wallet
     * @description Extension. Newest first, paginated.
     */
    get: {
      parameters: {
        query?: {
          page?: number;
          limit?: number;
        };
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['WebhookLogEntry'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
              meta: {
                currentPage: number;
                itemCount: number;
                itemsPerPage: number;
                totalItems: number;
                totalPages: number;
              };
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/webhook-logs': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Every webhook delivery of a wallet
     * @deprecated
     * @description Alias of `GET /v1/wallets/{walletId}/webhooks` (same request, same answer), kept for clients written for the described service. Extension. Newest first, paginated.
     */
    get: {
      parameters: {
        query?: {
          page?: number;
          limit?: number;
        };
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['WebhookLogEntry'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
              meta: {
                currentPage: number;
                itemCount: number;
                itemsPerPage: number;
                totalItems: number;
                totalPages: number;
              };
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/webhooks/test': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send a signed test event
     * @description Extension. Delivers a `webhook.test` event to the wallet's webhook URL through the normal pipeline (signatures, retries, log) and returns its log entry.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['WebhookLogEntry'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/webhooks/secret': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The wallet's webhook signing secret: whether it exists and what signs now
     * @description Extension. Never returns the secret itself. Without a secret, `webhook-signature` is keyed with the API key.
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                walletId: string;
                /** @description whether the wallet has a signing secret; without one the API key keys webhook-signature */
                hasSecret: boolean;
                createdAt: string | null;
                previousValidUntil: string | null;
                /** @description whether webhook-signature also carries a signature keyed with the API key now */
                apiKeySigns: boolean;
                apiKeySignsUntil: string | null;
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    /**
     * Create or rotate the webhook signing secret
     * @description Extension. Returns a new `whsec_` secret, shown only in this response. `webhook-signature` is keyed with it from the next attempt on; the previous secret (or, the first time, the API key) keeps signing beside it for `overlapSeconds` (default 86400), so the header carries both signatures, space-separated. `x-service-signature` stays keyed with the API key. The body is optional.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description how long the previous secret (or, the first time, the API key) keeps signing beside the new one; default 86400 */
            overlapSeconds?: number;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                walletId: string;
                /** @description whether the wallet has a signing secret; without one the API key keys webhook-signature */
                hasSecret: boolean;
                createdAt: string | null;
                previousValidUntil: string | null;
                /** @description whether webhook-signature also carries a signature keyed with the API key now */
                apiKeySigns: boolean;
                apiKeySignsUntil: string | null;
                /** @description whsec_ + base64 of 32 bytes (Standard Webhooks); shown once, store it now */
                secret: string;
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/addresses/{addressId}/transactions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A child address's transactions
     * @description Filters: id, hash, status (PENDING, SUCCESS, FAILED, CANCELLED), type, assets (comma-separated symbols), reference, startDate and endDate (ISO 8601, inclusive); order DESC (default) or ASC by creation time; page and limit (max 100).
     */
    get: {
      parameters: {
        query?: {
          page?: number;
          limit?: number;
          /** @description transaction id */
          id?: string;
          /** @description the transaction hash: 64 hex digits, with or without 0x; on Solana the signature (base58) */
          hash?: string;
          status?: 'PENDING' | 'PENDING_APPROVAL' | 'SUCCESS' | 'FAILED' | 'CANCELLED';
          type?:
            | 'DEPOSIT'
            | 'WITHDRAW'
            | 'SALVAGE'
            | 'SIGNED'
            | 'CUSTOM_SMART_CONTRACT'
            | 'SWAP'
            | 'AUTO_SETTLEMENT'
            | 'STAKING'
            | 'UNSTAKING'
            | 'RESTAKING'
            | 'UNSTAKING_WITHDRAW';
          order?: 'ASC' | 'DESC';
          /** @description comma-separated asset symbols, e.g. USDT,USDC */
          assets?: string;
          reference?: string;
          /** @description ISO 8601, inclusive */
          startDate?: string;
          /** @description ISO 8601, inclusive */
          endDate?: string;
        };
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
              meta: {
                currentPage: number;
                itemCount: number;
                itemsPerPage: number;
                totalItems: number;
                totalPages: number;
              };
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/transactions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A wallet's transactions
     * @description Extension. Filters: id, hash, status (PENDING, SUCCESS, FAILED, CANCELLED), type, assets (comma-separated symbols), reference, startDate and endDate (ISO 8601, inclusive); order DESC (default) or ASC by creation time; page and limit (max 100).
     */
    get: {
      parameters: {
        query?: {
          page?: number;
          limit?: number;
          /** @description transaction id */
          id?: string;
          /** @description the transaction hash: 64 hex digits, with or without 0x; on Solana the signature (base58) */
          hash?: string;
          status?: 'PENDING' | 'PENDING_APPROVAL' | 'SUCCESS' | 'FAILED' | 'CANCELLED';
          type?:
            | 'DEPOSIT'
            | 'WITHDRAW'
            | 'SALVAGE'
            | 'SIGNED'
            | 'CUSTOM_SMART_CONTRACT'
            | 'SWAP'
            | 'AUTO_SETTLEMENT'
            | 'STAKING'
            | 'UNSTAKING'
            | 'RESTAKING'
            | 'UNSTAKING_WITHDRAW';
          order?: 'ASC' | 'DESC';
          /** @description comma-separated asset symbols, e.g. USDT,USDC */
          assets?: string;
          reference?: string;
          /** @description ISO 8601, inclusive */
          startDate?: string;
          /** @description ISO 8601, inclusive */
          endDate?: string;
        };
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
              meta: {
                currentPage: number;
                itemCount: number;
                itemsPerPage: number;
                totalItems: number;
                totalPages: number;
              };
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/transactions/{transactionsId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One transaction
     * @description Extension.
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description transaction id */
          transactionsId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/rescan/blocks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Find missed deposits by transaction hash or block
     * @description Records the deposits to this wallet (master or child addresses, enabled assets) made by a mined transaction (`transactionHash`) or in a block (`blockNumber`), if they are not recorded yet, and returns them. Idempotent. Exactly one of the two fields (400 naming both otherwise). 422 `TRANSACTION_NOT_FOUND` / `NO_DEPOSIT_FOUND` for a hash; a block without deposits to the wallet answers []; 422 `BLOCK_NOT_FOUND` beyond the head.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      /** @description exactly one of transactionHash and blockNumber */
      requestBody: {
        content: {
          'application/json': {
            /** @description a mined transaction: its hash (EVM) or txID (Tron), 64 hex digits with or without 0x, or its signature (Solana), 64 to 88 base58 characters */
            transactionHash?: string;
            /** @description a block: its deposits to the wallet are recorded (a number, or its decimal text) */
            blockNumber?: number | string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/deposit-finder': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Find missed deposits by transaction hash or block
     * @deprecated
     * @description Alias of `POST /v1/wallets/{walletId}/rescan/blocks` (same request, same answer), kept for clients written for the described service. Records the deposits to this wallet (master or child addresses, enabled assets) made by a mined transaction (`transactionHash`) or in a block (`blockNumber`), if they are not recorded yet, and returns them. Idempotent. Exactly one of the two fields (400 naming both otherwise). 422 `TRANSACTION_NOT_FOUND` / `NO_DEPOSIT_FOUND` for a hash; a block without deposits to the wallet answers []; 422 `BLOCK_NOT_FOUND` beyond the head.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      /** @description exactly one of transactionHash and blockNumber */
      requestBody: {
        content: {
          'application/json': {
            /** @description a mined transaction: its hash (EVM) or txID (Tron), 64 hex digits with or without 0x, or its signature (Solana), 64 to 88 base58 characters */
            transactionHash?: string;
            /** @description a block: its deposits to the wallet are recorded (a number, or its decimal text) */
            blockNumber?: number | string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/transactions/sweep/assets': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Sweep a deposit to the master address now
     * @description Extension. For a confirmed deposit to a child address (or an address whose key was imported) that is not swept yet (auto-sweep off, below its threshold, or a failed sweep). Moves the address's whole balance of the asset; `deposit.swept.success` or `.failed` follows. 409 when already swept or not confirmed; 422 for deposits on the master or an external address.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description the deposit transaction id */
            transactionId: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/sweep/assets': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Sweep a deposit to the master address now
     * @deprecated
     * @description Alias of `POST /v1/wallets/{walletId}/transactions/sweep/assets` (same request, same answer), kept for clients written for the described service. Extension. For a confirmed deposit to a child address (or an address whose key was imported) that is not swept yet (auto-sweep off, below its threshold, or a failed sweep). Moves the address's whole balance of the asset; `deposit.swept.success` or `.failed` follows. 409 when already swept or not confirmed; 422 for deposits on the master or an external address.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description the deposit transaction id */
            transactionId: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/transactions/{transactionsId}/sweep': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Sweep a deposit to the master address now
     * @deprecated
     * @description Alias of `POST /v1/wallets/{walletId}/transactions/sweep/assets` (same request, same answer), kept for clients written for the described service. Extension. For a confirmed deposit to a child address (or an address whose key was imported) that is not swept yet (auto-sweep off, below its threshold, or a failed sweep). Moves the address's whole balance of the asset; `deposit.swept.success` or `.failed` follows. 409 when already swept or not confirmed; 422 for deposits on the master or an external address.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description the deposit transaction id */
          transactionsId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': Record<string, never>;
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/withdraw': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Withdraw from the master wallet and broadcast
     * @description Single: top-level `assetId`, `address`, `amount` (plus optional `reference`, `note`, `metadata`). Batch: `assets` items `{ id, amount, address, reference?, note?, metadata? }` instead; every item is checked before anything is created and one bad item rejects the request; `data` is then an array in request order. A `reference` already used on the wallet returns the original transaction (409 if it names a different payment). `gasLimit` (gas) and `gasPrice` (wei per gas, the fee cap) are honoured within safety: a gas limit below the network estimate, or a fee cap below the current network fee, is a 400; `nonce`/`nounce` are refused (400): the service manages nonces. Returns PENDING WITHDRAW transactions; `withdraw.success` or `withdraw.failed` follows.
     */
    post: {
      parameters: {
        query?: never;
        header?: {
          /** @description Optional. Same key and body: the stored response; same key, other body: 422. Scoped per wallet. */
          'idempotency-key'?: string;
        };
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description asset to withdraw (single withdrawal) */
            assetId?: string;
            /** @description destination address (EIP-55 checksum when mixed case) */
            address?: string;
            /** @description decimal string in the asset, greater than 0, e.g. "12.5" */
            amount?: string;
            /** @description client reference, unique per wallet */
            reference?: string;
            /** @description internal remark, not visible on chain */
            note?: string;
            metadata?: {
              [key: string]: unknown;
            };
            /** @description batch withdrawal */
            assets?: {
              /** @description asset to withdraw (wallet asset id or catalogue asset id) */
              id: string;
              /** @description decimal string in the asset, greater than 0, e.g. "12.5" */
              amount: string;
              /** @description destination address (EIP-55 checksum when mixed case) */
              address: string;
              /** @description client reference, unique per wallet */
              reference?: string;
              /** @description internal remark, not visible on chain */
              note?: string;
              metadata?: {
                [key: string]: unknown;
              };
            }[];
            /**
             * @description gas limit of each transaction, as sent by the described service's clients: used as given when the network's estimate fits under it (below it: 400); at most 30000000
             * @example 100000
             */
            gasLimit?: string | number;
            /**
             * @description fee cap in wei per gas (maxFeePerGas; the tip is the estimate, at most the cap); below the current network fee: 400
             * @example 30000000000
             */
            gasPrice?: string | number;
            /** @description refused (400): the service manages nonces */
            nonce?: unknown;
            /** @description the described service's spelling of nonce; refused (400): the service manages nonces */
            nounce?: unknown;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'] | components['schemas']['Transaction'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/addresses/{addressId}/withdraw': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Withdraw from a child address and broadcast
     * @description Single: top-level `assetId`, `address`, `amount` (plus optional `reference`, `note`, `metadata`). Batch: `assets` items `{ id, amount, address, reference?, note?, metadata? }` instead; every item is checked before anything is created and one bad item rejects the request; `data` is then an array in request order. A `reference` already used on the wallet returns the original transaction (409 if it names a different payment). `gasLimit` (gas) and `gasPrice` (wei per gas, the fee cap) are honoured within safety: a gas limit below the network estimate, or a fee cap below the current network fee, is a 400; `nonce`/`nounce` are refused (400): the service manages nonces. The child address pays the network fee in the native coin.
     */
    post: {
      parameters: {
        query?: never;
        header?: {
          /** @description Optional. Same key and body: the stored response; same key, other body: 422. Scoped per wallet. */
          'idempotency-key'?: string;
        };
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description asset to withdraw (single withdrawal) */
            assetId?: string;
            /** @description destination address (EIP-55 checksum when mixed case) */
            address?: string;
            /** @description decimal string in the asset, greater than 0, e.g. "12.5" */
            amount?: string;
            /** @description client reference, unique per wallet */
            reference?: string;
            /** @description internal remark, not visible on chain */
            note?: string;
            metadata?: {
              [key: string]: unknown;
            };
            /** @description batch withdrawal */
            assets?: {
              /** @description asset to withdraw (wallet asset id or catalogue asset id) */
              id: string;
              /** @description decimal string in the asset, greater than 0, e.g. "12.5" */
              amount: string;
              /** @description destination address (EIP-55 checksum when mixed case) */
              address: string;
              /** @description client reference, unique per wallet */
              reference?: string;
              /** @description internal remark, not visible on chain */
              note?: string;
              metadata?: {
                [key: string]: unknown;
              };
            }[];
            /**
             * @description gas limit of each transaction, as sent by the described service's clients: used as given when the network's estimate fits under it (below it: 400); at most 30000000
             * @example 100000
             */
            gasLimit?: string | number;
            /**
             * @description fee cap in wei per gas (maxFeePerGas; the tip is the estimate, at most the cap); below the current network fee: 400
             * @example 30000000000
             */
            gasPrice?: string | number;
            /** @description refused (400): the service manages nonces */
            nonce?: unknown;
            /** @description the described service's spelling of nonce; refused (400): the service manages nonces */
            nounce?: unknown;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'] | components['schemas']['Transaction'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/withdraw/sign': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Sign a withdrawal from the master address without broadcasting it
     * @description Single: top-level `assetId`, `address`, `amount` (plus optional `reference`, `note`, `metadata`). Batch: `assets` items `{ id, amount, address, reference?, note?, metadata? }` instead; every item is checked before anything is created and one bad item rejects the request; `data` is then an array in request order. A `reference` already used on the wallet returns the original transaction (409 if it names a different payment). `gasLimit` (gas) and `gasPrice` (wei per gas, the fee cap) are honoured within safety: a gas limit below the network estimate, or a fee cap below the current network fee, is a 400; `nonce`/`nounce` are refused (400): the service manages nonces. Returns SUCCESS SIGNED transactions whose `signedTransaction` is the raw signed transaction; on EVM chains it uses the master address's next nonce without reserving it; on Tron it is the hex of the signed `Transaction` that `/wallet/broadcasthex` takes (`hash` is its txID), built with the node's expiration (about 60 s): broadcast it before then; `signed.success` follows.
     */
    post: {
      parameters: {
        query?: never;
        header?: {
          /** @description Optional. Same key and body: the stored response; same key, other body: 422. Scoped per wallet. */
          'idempotency-key'?: string;
        };
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description asset to withdraw (single withdrawal) */
            assetId?: string;
            /** @description destination address (EIP-55 checksum when mixed case) */
            address?: string;
            /** @description decimal string in the asset, greater than 0, e.g. "12.5" */
            amount?: string;
            /** @description client reference, unique per wallet */
            reference?: string;
            /** @description internal remark, not visible on chain */
            note?: string;
            metadata?: {
              [key: string]: unknown;
            };
            /** @description batch withdrawal */
            assets?: {
              /** @description asset to withdraw (wallet asset id or catalogue asset id) */
              id: string;
              /** @description decimal string in the asset, greater than 0, e.g. "12.5" */
              amount: string;
              /** @description destination address (EIP-55 checksum when mixed case) */
              address: string;
              /** @description client reference, unique per wallet */
              reference?: string;
              /** @description internal remark, not visible on chain */
              note?: string;
              metadata?: {
                [key: string]: unknown;
              };
            }[];
            /**
             * @description gas limit of each transaction, as sent by the described service's clients: used as given when the network's estimate fits under it (below it: 400); at most 30000000
             * @example 100000
             */
            gasLimit?: string | number;
            /**
             * @description fee cap in wei per gas (maxFeePerGas; the tip is the estimate, at most the cap); below the current network fee: 400
             * @example 30000000000
             */
            gasPrice?: string | number;
            /** @description refused (400): the service manages nonces */
            nonce?: unknown;
            /** @description the described service's spelling of nonce; refused (400): the service manages nonces */
            nounce?: unknown;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'] | components['schemas']['Transaction'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/withdraw/sign-only': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Sign a withdrawal from the master address without broadcasting it
     * @deprecated
     * @description Alias of `/v1/wallets/{walletId}/withdraw/sign` (same request, same answer), kept for clients written for the described service. Single: top-level `assetId`, `address`, `amount` (plus optional `reference`, `note`, `metadata`). Batch: `assets` items `{ id, amount, address, reference?, note?, metadata? }` instead; every item is checked before anything is created and one bad item rejects the request; `data` is then an array in request order. A `reference` already used on the wallet returns the original transaction (409 if it names a different payment). `gasLimit` (gas) and `gasPrice` (wei per gas, the fee cap) are honoured within safety: a gas limit below the network estimate, or a fee cap below the current network fee, is a 400; `nonce`/`nounce` are refused (400): the service manages nonces. Returns SUCCESS SIGNED transactions whose `signedTransaction` is the raw signed transaction; on EVM chains it uses the master address's next nonce without reserving it; on Tron it is the hex of the signed `Transaction` that `/wallet/broadcasthex` takes (`hash` is its txID), built with the node's expiration (about 60 s): broadcast it before then; `signed.success` follows.
     */
    post: {
      parameters: {
        query?: never;
        header?: {
          /** @description Optional. Same key and body: the stored response; same key, other body: 422. Scoped per wallet. */
          'idempotency-key'?: string;
        };
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description asset to withdraw (single withdrawal) */
            assetId?: string;
            /** @description destination address (EIP-55 checksum when mixed case) */
            address?: string;
            /** @description decimal string in the asset, greater than 0, e.g. "12.5" */
            amount?: string;
            /** @description client reference, unique per wallet */
            reference?: string;
            /** @description internal remark, not visible on chain */
            note?: string;
            metadata?: {
              [key: string]: unknown;
            };
            /** @description batch withdrawal */
            assets?: {
              /** @description asset to withdraw (wallet asset id or catalogue asset id) */
              id: string;
              /** @description decimal string in the asset, greater than 0, e.g. "12.5" */
              amount: string;
              /** @description destination address (EIP-55 checksum when mixed case) */
              address: string;
              /** @description client reference, unique per wallet */
              reference?: string;
              /** @description internal remark, not visible on chain */
              note?: string;
              metadata?: {
                [key: string]: unknown;
              };
            }[];
            /**
             * @description gas limit of each transaction, as sent by the described service's clients: used as given when the network's estimate fits under it (below it: 400); at most 30000000
             * @example 100000
             */
            gasLimit?: string | number;
            /**
             * @description fee cap in wei per gas (maxFeePerGas; the tip is the estimate, at most the cap); below the current network fee: 400
             * @example 30000000000
             */
            gasPrice?: string | number;
            /** @description refused (400): the service manages nonces */
            nonce?: unknown;
            /** @description the described service's spelling of nonce; refused (400): the service manages nonces */
            nounce?: unknown;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'] | components['schemas']['Transaction'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/addresses/{addressId}/withdraw/sign': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Sign a withdrawal from a child address without broadcasting it
     * @description Single: top-level `assetId`, `address`, `amount` (plus optional `reference`, `note`, `metadata`). Batch: `assets` items `{ id, amount, address, reference?, note?, metadata? }` instead; every item is checked before anything is created and one bad item rejects the request; `data` is then an array in request order. A `reference` already used on the wallet returns the original transaction (409 if it names a different payment). `gasLimit` (gas) and `gasPrice` (wei per gas, the fee cap) are honoured within safety: a gas limit below the network estimate, or a fee cap below the current network fee, is a 400; `nonce`/`nounce` are refused (400): the service manages nonces. Returns SUCCESS SIGNED transactions whose `signedTransaction` is the raw signed transaction; on EVM chains it uses the address's next nonce without reserving it; on Tron it is the hex of the signed `Transaction` that `/wallet/broadcasthex` takes (`hash` is its txID), built with the node's expiration (about 60 s): broadcast it before then; `signed.success` follows.
     */
    post: {
      parameters: {
        query?: never;
        header?: {
          /** @description Optional. Same key and body: the stored response; same key, other body: 422. Scoped per wallet. */
          'idempotency-key'?: string;
        };
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description asset to withdraw (single withdrawal) */
            assetId?: string;
            /** @description destination address (EIP-55 checksum when mixed case) */
            address?: string;
            /** @description decimal string in the asset, greater than 0, e.g. "12.5" */
            amount?: string;
            /** @description client reference, unique per wallet */
            reference?: string;
            /** @description internal remark, not visible on chain */
            note?: string;
            metadata?: {
              [key: string]: unknown;
            };
            /** @description batch withdrawal */
            assets?: {
              /** @description asset to withdraw (wallet asset id or catalogue asset id) */
              id: string;
              /** @description decimal string in the asset, greater than 0, e.g. "12.5" */
              amount: string;
              /** @description destination address (EIP-55 checksum when mixed case) */
              address: string;
              /** @description client reference, unique per wallet */
              reference?: string;
              /** @description internal remark, not visible on chain */
              note?: string;
              metadata?: {
                [key: string]: unknown;
              };
            }[];
            /**
             * @description gas limit of each transaction, as sent by the described service's clients: used as given when the network's estimate fits under it (below it: 400); at most 30000000
             * @example 100000
             */
            gasLimit?: string | number;
            /**
             * @description fee cap in wei per gas (maxFeePerGas; the tip is the estimate, at most the cap); below the current network fee: 400
             * @example 30000000000
             */
            gasPrice?: string | number;
            /** @description refused (400): the service manages nonces */
            nonce?: unknown;
            /** @description the described service's spelling of nonce; refused (400): the service manages nonces */
            nounce?: unknown;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'] | components['schemas']['Transaction'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/addresses/{addressId}/withdraw/sign-only': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Sign a withdrawal from a child address without broadcasting it
     * @deprecated
     * @description Alias of `/v1/wallets/{walletId}/addresses/{addressId}/withdraw/sign` (same request, same answer), kept for clients written for the described service. Single: top-level `assetId`, `address`, `amount` (plus optional `reference`, `note`, `metadata`). Batch: `assets` items `{ id, amount, address, reference?, note?, metadata? }` instead; every item is checked before anything is created and one bad item rejects the request; `data` is then an array in request order. A `reference` already used on the wallet returns the original transaction (409 if it names a different payment). `gasLimit` (gas) and `gasPrice` (wei per gas, the fee cap) are honoured within safety: a gas limit below the network estimate, or a fee cap below the current network fee, is a 400; `nonce`/`nounce` are refused (400): the service manages nonces. Returns SUCCESS SIGNED transactions whose `signedTransaction` is the raw signed transaction; on EVM chains it uses the address's next nonce without reserving it; on Tron it is the hex of the signed `Transaction` that `/wallet/broadcasthex` takes (`hash` is its txID), built with the node's expiration (about 60 s): broadcast it before then; `signed.success` follows.
     */
    post: {
      parameters: {
        query?: never;
        header?: {
          /** @description Optional. Same key and body: the stored response; same key, other body: 422. Scoped per wallet. */
          'idempotency-key'?: string;
        };
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description asset to withdraw (single withdrawal) */
            assetId?: string;
            /** @description destination address (EIP-55 checksum when mixed case) */
            address?: string;
            /** @description decimal string in the asset, greater than 0, e.g. "12.5" */
            amount?: string;
            /** @description client reference, unique per wallet */
            reference?: string;
            /** @description internal remark, not visible on chain */
            note?: string;
            metadata?: {
              [key: string]: unknown;
            };
            /** @description batch withdrawal */
            assets?: {
              /** @description asset to withdraw (wallet asset id or catalogue asset id) */
              id: string;
              /** @description decimal string in the asset, greater than 0, e.g. "12.5" */
              amount: string;
              /** @description destination address (EIP-55 checksum when mixed case) */
              address: string;
              /** @description client reference, unique per wallet */
              reference?: string;
              /** @description internal remark, not visible on chain */
              note?: string;
              metadata?: {
                [key: string]: unknown;
              };
            }[];
            /**
             * @description gas limit of each transaction, as sent by the described service's clients: used as given when the network's estimate fits under it (below it: 400); at most 30000000
             * @example 100000
             */
            gasLimit?: string | number;
            /**
             * @description fee cap in wei per gas (maxFeePerGas; the tip is the estimate, at most the cap); below the current network fee: 400
             * @example 30000000000
             */
            gasPrice?: string | number;
            /** @description refused (400): the service manages nonces */
            nonce?: unknown;
            /** @description the described service's spelling of nonce; refused (400): the service manages nonces */
            nounce?: unknown;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'] | components['schemas']['Transaction'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/withdraw/network-fee': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Estimate the network fee of a master-wallet withdrawal
     * @description Extension. Same body as the withdrawal (`gasLimit` (gas) and `gasPrice` (wei per gas, the fee cap) are honoured within safety: a gas limit below the network estimate, or a fee cap below the current network fee, is a 400; `nonce`/`nounce` are refused (400): the service manages nonces.) `networkFee` (gas limit x fee cap, summed) and `nativeBalance` in the native coin; `nativeBalanceInUSD` is null while no rate source prices the native coin. A batch (`assets`) adds `fees` per item in request order and `totalNetworkFee`. `fee` and `balance` are deprecated aliases of `networkFee` and `nativeBalance`, kept for one version.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description asset to withdraw (single withdrawal) */
            assetId?: string;
            /** @description destination address (EIP-55 checksum when mixed case) */
            address?: string;
            /** @description decimal string in the asset, greater than 0, e.g. "12.5" */
            amount?: string;
            /** @description client reference, unique per wallet */
            reference?: string;
            /** @description internal remark, not visible on chain */
            note?: string;
            metadata?: {
              [key: string]: unknown;
            };
            /** @description batch withdrawal */
            assets?: {
              /** @description asset to withdraw (wallet asset id or catalogue asset id) */
              id: string;
              /** @description decimal string in the asset, greater than 0, e.g. "12.5" */
              amount: string;
              /** @description destination address (EIP-55 checksum when mixed case) */
              address: string;
              /** @description client reference, unique per wallet */
              reference?: string;
              /** @description internal remark, not visible on chain */
              note?: string;
              metadata?: {
                [key: string]: unknown;
              };
            }[];
            /**
             * @description gas limit of each transaction, as sent by the described service's clients: used as given when the network's estimate fits under it (below it: 400); at most 30000000
             * @example 100000
             */
            gasLimit?: string | number;
            /**
             * @description fee cap in wei per gas (maxFeePerGas; the tip is the estimate, at most the cap); below the current network fee: 400
             * @example 30000000000
             */
            gasPrice?: string | number;
            /** @description refused (400): the service manages nonces */
            nonce?: unknown;
            /** @description the described service's spelling of nonce; refused (400): the service manages nonces */
            nounce?: unknown;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                /** @description estimated network fee (gas limit x fee cap) of the whole request, in the native coin */
                networkFee: string;
                /** @description the sender's native balance, in the native coin */
                nativeBalance: string;
                nativeBalanceInUSD: string | null;
                /** @description seconds until confirmed, when the chain has a known block time */
                estimatedArrivalTime?: number;
                /** @description batch only: the fee of each item, in request order */
                fees?: string[];
                /** @description batch only: the sum of fees (same as networkFee) */
                totalNetworkFee?: string;
                /**
                 * @deprecated
                 * @description deprecated alias of networkFee, kept for one version
                 */
                fee: string;
                /**
                 * @deprecated
                 * @description deprecated alias of nativeBalance, kept for one version
                 */
                balance: string;
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/addresses/{addressId}/withdraw/network-fee': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Estimate the network fee of a child-address withdrawal
     * @description Extension. Same body as the withdrawal (`gasLimit` (gas) and `gasPrice` (wei per gas, the fee cap) are honoured within safety: a gas limit below the network estimate, or a fee cap below the current network fee, is a 400; `nonce`/`nounce` are refused (400): the service manages nonces.) `networkFee` (gas limit x fee cap, summed) and `nativeBalance` in the native coin; `nativeBalanceInUSD` is null while no rate source prices the native coin. A batch (`assets`) adds `fees` per item in request order and `totalNetworkFee`. `fee` and `balance` are deprecated aliases of `networkFee` and `nativeBalance`, kept for one version.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description asset to withdraw (single withdrawal) */
            assetId?: string;
            /** @description destination address (EIP-55 checksum when mixed case) */
            address?: string;
            /** @description decimal string in the asset, greater than 0, e.g. "12.5" */
            amount?: string;
            /** @description client reference, unique per wallet */
            reference?: string;
            /** @description internal remark, not visible on chain */
            note?: string;
            metadata?: {
              [key: string]: unknown;
            };
            /** @description batch withdrawal */
            assets?: {
              /** @description asset to withdraw (wallet asset id or catalogue asset id) */
              id: string;
              /** @description decimal string in the asset, greater than 0, e.g. "12.5" */
              amount: string;
              /** @description destination address (EIP-55 checksum when mixed case) */
              address: string;
              /** @description client reference, unique per wallet */
              reference?: string;
              /** @description internal remark, not visible on chain */
              note?: string;
              metadata?: {
                [key: string]: unknown;
              };
            }[];
            /**
             * @description gas limit of each transaction, as sent by the described service's clients: used as given when the network's estimate fits under it (below it: 400); at most 30000000
             * @example 100000
             */
            gasLimit?: string | number;
            /**
             * @description fee cap in wei per gas (maxFeePerGas; the tip is the estimate, at most the cap); below the current network fee: 400
             * @example 30000000000
             */
            gasPrice?: string | number;
            /** @description refused (400): the service manages nonces */
            nonce?: unknown;
            /** @description the described service's spelling of nonce; refused (400): the service manages nonces */
            nounce?: unknown;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                /** @description estimated network fee (gas limit x fee cap) of the whole request, in the native coin */
                networkFee: string;
                /** @description the sender's native balance, in the native coin */
                nativeBalance: string;
                nativeBalanceInUSD: string | null;
                /** @description seconds until confirmed, when the chain has a known block time */
                estimatedArrivalTime?: number;
                /** @description batch only: the fee of each item, in request order */
                fees?: string[];
                /** @description batch only: the sum of fees (same as networkFee) */
                totalNetworkFee?: string;
                /**
                 * @deprecated
                 * @description deprecated alias of networkFee, kept for one version
                 */
                fee: string;
                /**
                 * @deprecated
                 * @description deprecated alias of nativeBalance, kept for one version
                 */
                balance: string;
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/transactions/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Cancel a pending withdrawal
     * @description Not yet broadcast: CANCELLED at once. Broadcast but not mined: a 0-value self-transfer with the same nonce and fees raised by at least 10% is sent; the withdrawal becomes CANCELLED when it is mined (or SUCCESS if the withdrawal is mined first, or if a reorganisation replaces the mined cancellation with the withdrawal before the cancellation is final). 409 when mined, failed or already cancelled, and when broadcast on a chain without nonces (Tron, Solana: there a sent transaction lands or expires).
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description transaction id */
            id: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/transactions/{transactionsId}/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Cancel a pending withdrawal
     * @deprecated
     * @description Alias of `POST /v1/wallets/{walletId}/transactions/cancel` (same request, same answer), kept for clients written for the described service. Not yet broadcast: CANCELLED at once. Broadcast but not mined: a 0-value self-transfer with the same nonce and fees raised by at least 10% is sent; the withdrawal becomes CANCELLED when it is mined (or SUCCESS if the withdrawal is mined first, or if a reorganisation replaces the mined cancellation with the withdrawal before the cancellation is final). 409 when mined, failed or already cancelled, and when broadcast on a chain without nonces (Tron, Solana: there a sent transaction lands or expires).
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description transaction id */
          transactionsId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': Record<string, never>;
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/transactions/retry': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Retry a failed or stuck withdrawal
     * @description FAILED: sent again with a new nonce and fees raised by at least 10%, after the balance check of a new withdrawal; PENDING and broadcast: replaced now with the same nonce and fees raised by at least 10%. The transaction is PENDING again. 409 when mined or cancelled; on a chain without nonces (Tron, Solana) a PENDING one is not replaced (409) but rebuilt and signed again automatically if it expires unmined.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description transaction id */
            id: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/transactions/{transactionsId}/retry': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Retry a failed or stuck withdrawal
     * @deprecated
     * @description Alias of `POST /v1/wallets/{walletId}/transactions/retry` (same request, same answer), kept for clients written for the described service. FAILED: sent again with a new nonce and fees raised by at least 10%, after the balance check of a new withdrawal; PENDING and broadcast: replaced now with the same nonce and fees raised by at least 10%. The transaction is PENDING again. 409 when mined or cancelled; on a chain without nonces (Tron, Solana) a PENDING one is not replaced (409) but rebuilt and signed again automatically if it expires unmined.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description transaction id */
          transactionsId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': Record<string, never>;
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/contracts/read': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Read contract data (eth_call from the master address)
     * @description `data` is the value as a string: integers in decimal, arrays, structs and several outputs as JSON. Several calls give an array in call order. Body: `calls: [...]`, or one call as top-level `address`, `method`, `parameters`, `abi` (answered as a one-element `calls`). 400: malformed ABI, unknown method, wrong parameters, `calls` together with a top-level call (nothing is written). 422 `CONTRACT_REVERTED` with the decoded revert reason, `NOT_A_CONTRACT`, `CONTRACT_CALL_FAILED`.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      /** @description Either `calls: [...]` or a single call as top-level `address`, `method`, `parameters`, `abi` (and `value`); a single call answers as a one-element `calls`. */
      requestBody: {
        content: {
          'application/json': {
            /** @description the calls, in order; or give one call at the top level */
            calls?: {
              /** @description the contract */
              address: string;
              /** @description function name, or its full signature (e.g. `transfer(address,uint256)`) to pick an overload */
              method: string;
              /** @description arguments in ABI order; integers as decimal strings (numbers up to 2^53 also accepted), tuples as objects or arrays */
              parameters: unknown[];
              /** @description ABI entries; must contain the method */
              abi: ({
                /** @description function, constructor, event, error, fallback or receive */
                type: string;
                name?: string;
                inputs?: unknown[];
                outputs?: unknown[];
                stateMutability?: string;
                constant?: boolean;
                payable?: boolean;
                anonymous?: boolean;
              } & {
                [key: string]: unknown;
              })[];
              /** @description extension: native coin sent with the call, a decimal string in the coin's units (payable functions only; default 0). It moves the wallet's funds: whitelist and balance rules apply. */
              value?: string;
            }[];
            /** @description the contract */
            address?: string;
            /** @description function name, or its full signature (e.g. `transfer(address,uint256)`) to pick an overload */
            method?: string;
            /** @description arguments in ABI order; integers as decimal strings (numbers up to 2^53 also accepted), tuples as objects or arrays */
            parameters?: unknown[];
            /** @description ABI entries; must contain the method */
            abi?: ({
              /** @description function, constructor, event, error, fallback or receive */
              type: string;
              name?: string;
              inputs?: unknown[];
              outputs?: unknown[];
              stateMutability?: string;
              constant?: boolean;
              payable?: boolean;
              anonymous?: boolean;
            } & {
              [key: string]: unknown;
            })[];
            /** @description extension: native coin sent with the call, a decimal string in the coin's units (payable functions only; default 0). It moves the wallet's funds: whitelist and balance rules apply. */
            value?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description one call: the value as a string; several: an array in call order */
              data: string | string[];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/contracts/write': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Execute contract functions from the master address and broadcast
     * @description Each call is simulated first; a revert is a 422 and nothing is written. Returns a PENDING CUSTOM_SMART_CONTRACT Transaction per call (an array for several, sent in call order); `custom-smart-contract.success` or `.failed` follows. A call that moves the wallet's funds (native `value`; a catalogue token's transfer, transferFrom from a wallet address, approve, increaseAllowance, judged by selector) obeys the withdrawal rules. 422 `INSUFFICIENT_FUNDS_FOR_GAS`, `INSUFFICIENT_BALANCE`, `NOT_WHITELISTED`, `CONTRACT_WRITES_DISABLED`, `CONTRACT_NOT_ALLOWED`, `WALLET_INACTIVE`. Body: `calls: [...]`, or one call as top-level `address`, `method`, `parameters`, `abi` (answered as a one-element `calls`). 400: malformed ABI, unknown method, wrong parameters, `calls` together with a top-level call (nothing is written). 422 `CONTRACT_REVERTED` with the decoded revert reason, `NOT_A_CONTRACT`, `CONTRACT_CALL_FAILED`.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      /** @description Either `calls: [...]` or a single call as top-level `address`, `method`, `parameters`, `abi` (and `value`); a single call answers as a one-element `calls`. */
      requestBody: {
        content: {
          'application/json': {
            /** @description the calls, in order; or give one call at the top level */
            calls?: {
              /** @description the contract */
              address: string;
              /** @description function name, or its full signature (e.g. `transfer(address,uint256)`) to pick an overload */
              method: string;
              /** @description arguments in ABI order; integers as decimal strings (numbers up to 2^53 also accepted), tuples as objects or arrays */
              parameters: unknown[];
              /** @description ABI entries; must contain the method */
              abi: ({
                /** @description function, constructor, event, error, fallback or receive */
                type: string;
                name?: string;
                inputs?: unknown[];
                outputs?: unknown[];
                stateMutability?: string;
                constant?: boolean;
                payable?: boolean;
                anonymous?: boolean;
              } & {
                [key: string]: unknown;
              })[];
              /** @description extension: native coin sent with the call, a decimal string in the coin's units (payable functions only; default 0). It moves the wallet's funds: whitelist and balance rules apply. */
              value?: string;
            }[];
            /** @description the contract */
            address?: string;
            /** @description function name, or its full signature (e.g. `transfer(address,uint256)`) to pick an overload */
            method?: string;
            /** @description arguments in ABI order; integers as decimal strings (numbers up to 2^53 also accepted), tuples as objects or arrays */
            parameters?: unknown[];
            /** @description ABI entries; must contain the method */
            abi?: ({
              /** @description function, constructor, event, error, fallback or receive */
              type: string;
              name?: string;
              inputs?: unknown[];
              outputs?: unknown[];
              stateMutability?: string;
              constant?: boolean;
              payable?: boolean;
              anonymous?: boolean;
            } & {
              [key: string]: unknown;
            })[];
            /** @description extension: native coin sent with the call, a decimal string in the coin's units (payable functions only; default 0). It moves the wallet's funds: whitelist and balance rules apply. */
            value?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description one call: a Transaction; several: an array in call order */
              data: components['schemas']['Transaction'] | components['schemas']['Transaction'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/contracts/network-fee': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Estimate the network fee of contract calls from the master address
     * @description `balance`: the sender's native-coin balance; `fee`: estimated gas x current max fee per gas, summed over the calls, in the native coin (on Tron: energy x energy price + bandwidth x its price, in TRX). Body: `calls: [...]`, or one call as top-level `address`, `method`, `parameters`, `abi` (answered as a one-element `calls`). 400: malformed ABI, unknown method, wrong parameters, `calls` together with a top-level call (nothing is written). 422 `CONTRACT_REVERTED` with the decoded revert reason, `NOT_A_CONTRACT`, `CONTRACT_CALL_FAILED`.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      /** @description Either `calls: [...]` or a single call as top-level `address`, `method`, `parameters`, `abi` (and `value`); a single call answers as a one-element `calls`. */
      requestBody: {
        content: {
          'application/json': {
            /** @description the calls, in order; or give one call at the top level */
            calls?: {
              /** @description the contract */
              address: string;
              /** @description function name, or its full signature (e.g. `transfer(address,uint256)`) to pick an overload */
              method: string;
              /** @description arguments in ABI order; integers as decimal strings (numbers up to 2^53 also accepted), tuples as objects or arrays */
              parameters: unknown[];
              /** @description ABI entries; must contain the method */
              abi: ({
                /** @description function, constructor, event, error, fallback or receive */
                type: string;
                name?: string;
                inputs?: unknown[];
                outputs?: unknown[];
                stateMutability?: string;
                constant?: boolean;
                payable?: boolean;
                anonymous?: boolean;
              } & {
                [key: string]: unknown;
              })[];
              /** @description extension: native coin sent with the call, a decimal string in the coin's units (payable functions only; default 0). It moves the wallet's funds: whitelist and balance rules apply. */
              value?: string;
            }[];
            /** @description the contract */
            address?: string;
            /** @description function name, or its full signature (e.g. `transfer(address,uint256)`) to pick an overload */
            method?: string;
            /** @description arguments in ABI order; integers as decimal strings (numbers up to 2^53 also accepted), tuples as objects or arrays */
            parameters?: unknown[];
            /** @description ABI entries; must contain the method */
            abi?: ({
              /** @description function, constructor, event, error, fallback or receive */
              type: string;
              name?: string;
              inputs?: unknown[];
              outputs?: unknown[];
              stateMutability?: string;
              constant?: boolean;
              payable?: boolean;
              anonymous?: boolean;
            } & {
              [key: string]: unknown;
            })[];
            /** @description extension: native coin sent with the call, a decimal string in the coin's units (payable functions only; default 0). It moves the wallet's funds: whitelist and balance rules apply. */
            value?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                /** @description the sender's native-coin balance, in the coin's units */
                balance: string;
                /** @description estimated gas x current max fee per gas (summed over the calls), in the native coin */
                fee: string;
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/contracts/write/sign': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Sign contract calls from the master address without broadcasting
     * @description Returns a SIGNED Transaction per call whose `signedTransaction` is a raw EIP-1559 transaction (on Tron: the hex of the signed `Transaction` that `/wallet/broadcasthex` takes, valid until the node's expiration, about 60 s; no nonce). The wallet's contract-write setting, the whitelist and the balance check apply as for write (nothing is reserved). The nonce is the address's next one and is not reserved: if the service sends from this address before the raw transaction is broadcast, only one of them can be mined. Body: `calls: [...]`, or one call as top-level `address`, `method`, `parameters`, `abi` (answered as a one-element `calls`). 400: malformed ABI, unknown method, wrong parameters, `calls` together with a top-level call (nothing is written). 422 `CONTRACT_REVERTED` with the decoded revert reason, `NOT_A_CONTRACT`, `CONTRACT_CALL_FAILED`.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      /** @description Either `calls: [...]` or a single call as top-level `address`, `method`, `parameters`, `abi` (and `value`); a single call answers as a one-element `calls`. */
      requestBody: {
        content: {
          'application/json': {
            /** @description the calls, in order; or give one call at the top level */
            calls?: {
              /** @description the contract */
              address: string;
              /** @description function name, or its full signature (e.g. `transfer(address,uint256)`) to pick an overload */
              method: string;
              /** @description arguments in ABI order; integers as decimal strings (numbers up to 2^53 also accepted), tuples as objects or arrays */
              parameters: unknown[];
              /** @description ABI entries; must contain the method */
              abi: ({
                /** @description function, constructor, event, error, fallback or receive */
                type: string;
                name?: string;
                inputs?: unknown[];
                outputs?: unknown[];
                stateMutability?: string;
                constant?: boolean;
                payable?: boolean;
                anonymous?: boolean;
              } & {
                [key: string]: unknown;
              })[];
              /** @description extension: native coin sent with the call, a decimal string in the coin's units (payable functions only; default 0). It moves the wallet's funds: whitelist and balance rules apply. */
              value?: string;
            }[];
            /** @description the contract */
            address?: string;
            /** @description function name, or its full signature (e.g. `transfer(address,uint256)`) to pick an overload */
            method?: string;
            /** @description arguments in ABI order; integers as decimal strings (numbers up to 2^53 also accepted), tuples as objects or arrays */
            parameters?: unknown[];
            /** @description ABI entries; must contain the method */
            abi?: ({
              /** @description function, constructor, event, error, fallback or receive */
              type: string;
              name?: string;
              inputs?: unknown[];
              outputs?: unknown[];
              stateMutability?: string;
              constant?: boolean;
              payable?: boolean;
              anonymous?: boolean;
            } & {
              [key: string]: unknown;
            })[];
            /** @description extension: native coin sent with the call, a decimal string in the coin's units (payable functions only; default 0). It moves the wallet's funds: whitelist and balance rules apply. */
            value?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description one call: a Transaction; several: an array in call order */
              data: components['schemas']['Transaction'] | components['schemas']['Transaction'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/addresses/{addressId}/contracts/read': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Read contract data (eth_call from a child address)
     * @description `data` is the value as a string: integers in decimal, arrays, structs and several outputs as JSON. Several calls give an array in call order. Body: `calls: [...]`, or one call as top-level `address`, `method`, `parameters`, `abi` (answered as a one-element `calls`). Extension: acts as the child address (its key, its balance). 400: malformed ABI, unknown method, wrong parameters, `calls` together with a top-level call (nothing is written). 422 `CONTRACT_REVERTED` with the decoded revert reason, `NOT_A_CONTRACT`, `CONTRACT_CALL_FAILED`.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
        };
        cookie?: never;
      };
      /** @description Either `calls: [...]` or a single call as top-level `address`, `method`, `parameters`, `abi` (and `value`); a single call answers as a one-element `calls`. */
      requestBody: {
        content: {
          'application/json': {
            /** @description the calls, in order; or give one call at the top level */
            calls?: {
              /** @description the contract */
              address: string;
              /** @description function name, or its full signature (e.g. `transfer(address,uint256)`) to pick an overload */
              method: string;
              /** @description arguments in ABI order; integers as decimal strings (numbers up to 2^53 also accepted), tuples as objects or arrays */
              parameters: unknown[];
              /** @description ABI entries; must contain the method */
              abi: ({
                /** @description function, constructor, event, error, fallback or receive */
                type: string;
                name?: string;
                inputs?: unknown[];
                outputs?: unknown[];
                stateMutability?: string;
                constant?: boolean;
                payable?: boolean;
                anonymous?: boolean;
              } & {
                [key: string]: unknown;
              })[];
              /** @description extension: native coin sent with the call, a decimal string in the coin's units (payable functions only; default 0). It moves the wallet's funds: whitelist and balance rules apply. */
              value?: string;
            }[];
            /** @description the contract */
            address?: string;
            /** @description function name, or its full signature (e.g. `transfer(address,uint256)`) to pick an overload */
            method?: string;
            /** @description arguments in ABI order; integers as decimal strings (numbers up to 2^53 also accepted), tuples as objects or arrays */
            parameters?: unknown[];
            /** @description ABI entries; must contain the method */
            abi?: ({
              /** @description function, constructor, event, error, fallback or receive */
              type: string;
              name?: string;
              inputs?: unknown[];
              outputs?: unknown[];
              stateMutability?: string;
              constant?: boolean;
              payable?: boolean;
              anonymous?: boolean;
            } & {
              [key: string]: unknown;
            })[];
            /** @description extension: native coin sent with the call, a decimal string in the coin's units (payable functions only; default 0). It moves the wallet's funds: whitelist and balance rules apply. */
            value?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description one call: the value as a string; several: an array in call order */
              data: string | string[];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/addresses/{addressId}/contracts/write': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Execute contract functions from a child address and broadcast
     * @description Each call is simulated first; a revert is a 422 and nothing is written. Returns a PENDING CUSTOM_SMART_CONTRACT Transaction per call (an array for several, sent in call order); `custom-smart-contract.success` or `.failed` follows. A call that moves the wallet's funds (native `value`; a catalogue token's transfer, transferFrom from a wallet address, approve, increaseAllowance, judged by selector) obeys the withdrawal rules. 422 `INSUFFICIENT_FUNDS_FOR_GAS`, `INSUFFICIENT_BALANCE`, `NOT_WHITELISTED`, `CONTRACT_WRITES_DISABLED`, `CONTRACT_NOT_ALLOWED`, `WALLET_INACTIVE`. Body: `calls: [...]`, or one call as top-level `address`, `method`, `parameters`, `abi` (answered as a one-element `calls`). Extension: acts as the child address (its key, its balance). 400: malformed ABI, unknown method, wrong parameters, `calls` together with a top-level call (nothing is written). 422 `CONTRACT_REVERTED` with the decoded revert reason, `NOT_A_CONTRACT`, `CONTRACT_CALL_FAILED`.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
        };
        cookie?: never;
      };
      /** @description Either `calls: [...]` or a single call as top-level `address`, `method`, `parameters`, `abi` (and `value`); a single call answers as a one-element `calls`. */
      requestBody: {
        content: {
          'application/json': {
            /** @description the calls, in order; or give one call at the top level */
            calls?: {
              /** @description the contract */
              address: string;
              /** @description function name, or its full signature (e.g. `transfer(address,uint256)`) to pick an overload */
              method: string;
              /** @description arguments in ABI order; integers as decimal strings (numbers up to 2^53 also accepted), tuples as objects or arrays */
              parameters: unknown[];
              /** @description ABI entries; must contain the method */
              abi: ({
                /** @description function, constructor, event, error, fallback or receive */
                type: string;
                name?: string;
                inputs?: unknown[];
                outputs?: unknown[];
                stateMutability?: string;
                constant?: boolean;
                payable?: boolean;
                anonymous?: boolean;
              } & {
                [key: string]: unknown;
              })[];
              /** @description extension: native coin sent with the call, a decimal string in the coin's units (payable functions only; default 0). It moves the wallet's funds: whitelist and balance rules apply. */
              value?: string;
            }[];
            /** @description the contract */
            address?: string;
            /** @description function name, or its full signature (e.g. `transfer(address,uint256)`) to pick an overload */
            method?: string;
            /** @description arguments in ABI order; integers as decimal strings (numbers up to 2^53 also accepted), tuples as objects or arrays */
            parameters?: unknown[];
            /** @description ABI entries; must contain the method */
            abi?: ({
              /** @description function, constructor, event, error, fallback or receive */
              type: string;
              name?: string;
              inputs?: unknown[];
              outputs?: unknown[];
              stateMutability?: string;
              constant?: boolean;
              payable?: boolean;
              anonymous?: boolean;
            } & {
              [key: string]: unknown;
            })[];
            /** @description extension: native coin sent with the call, a decimal string in the coin's units (payable functions only; default 0). It moves the wallet's funds: whitelist and balance rules apply. */
            value?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description one call: a Transaction; several: an array in call order */
              data: components['schemas']['Transaction'] | components['schemas']['Transaction'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/addresses/{addressId}/contracts/network-fee': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Estimate the network fee of contract calls from a child address
     * @description `balance`: the sender's native-coin balance; `fee`: estimated gas x current max fee per gas, summed over the calls, in the native coin (on Tron: energy x energy price + bandwidth x its price, in TRX). Body: `calls: [...]`, or one call as top-level `address`, `method`, `parameters`, `abi` (answered as a one-element `calls`). Extension: acts as the child address (its key, its balance). 400: malformed ABI, unknown method, wrong parameters, `calls` together with a top-level call (nothing is written). 422 `CONTRACT_REVERTED` with the decoded revert reason, `NOT_A_CONTRACT`, `CONTRACT_CALL_FAILED`.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
        };
        cookie?: never;
      };
      /** @description Either `calls: [...]` or a single call as top-level `address`, `method`, `parameters`, `abi` (and `value`); a single call answers as a one-element `calls`. */
      requestBody: {
        content: {
          'application/json': {
            /** @description the calls, in order; or give one call at the top level */
            calls?: {
              /** @description the contract */
              address: string;
              /** @description function name, or its full signature (e.g. `transfer(address,uint256)`) to pick an overload */
              method: string;
              /** @description arguments in ABI order; integers as decimal strings (numbers up to 2^53 also accepted), tuples as objects or arrays */
              parameters: unknown[];
              /** @description ABI entries; must contain the method */
              abi: ({
                /** @description function, constructor, event, error, fallback or receive */
                type: string;
                name?: string;
                inputs?: unknown[];
                outputs?: unknown[];
                stateMutability?: string;
                constant?: boolean;
                payable?: boolean;
                anonymous?: boolean;
              } & {
                [key: string]: unknown;
              })[];
              /** @description extension: native coin sent with the call, a decimal string in the coin's units (payable functions only; default 0). It moves the wallet's funds: whitelist and balance rules apply. */
              value?: string;
            }[];
            /** @description the contract */
            address?: string;
            /** @description function name, or its full signature (e.g. `transfer(address,uint256)`) to pick an overload */
            method?: string;
            /** @description arguments in ABI order; integers as decimal strings (numbers up to 2^53 also accepted), tuples as objects or arrays */
            parameters?: unknown[];
            /** @description ABI entries; must contain the method */
            abi?: ({
              /** @description function, constructor, event, error, fallback or receive */
              type: string;
              name?: string;
              inputs?: unknown[];
              outputs?: unknown[];
              stateMutability?: string;
              constant?: boolean;
              payable?: boolean;
              anonymous?: boolean;
            } & {
              [key: string]: unknown;
            })[];
            /** @description extension: native coin sent with the call, a decimal string in the coin's units (payable functions only; default 0). It moves the wallet's funds: whitelist and balance rules apply. */
            value?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                /** @description the sender's native-coin balance, in the coin's units */
                balance: string;
                /** @description estimated gas x current max fee per gas (summed over the calls), in the native coin */
                fee: string;
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/addresses/{addressId}/contracts/write/sign': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Sign contract calls from a child address without broadcasting
     * @description Returns a SIGNED Transaction per call whose `signedTransaction` is a raw EIP-1559 transaction (on Tron: the hex of the signed `Transaction` that `/wallet/broadcasthex` takes, valid until the node's expiration, about 60 s; no nonce). The wallet's contract-write setting, the whitelist and the balance check apply as for write (nothing is reserved). The nonce is the address's next one and is not reserved: if the service sends from this address before the raw transaction is broadcast, only one of them can be mined. Body: `calls: [...]`, or one call as top-level `address`, `method`, `parameters`, `abi` (answered as a one-element `calls`). 400: malformed ABI, unknown method, wrong parameters, `calls` together with a top-level call (nothing is written). 422 `CONTRACT_REVERTED` with the decoded revert reason, `NOT_A_CONTRACT`, `CONTRACT_CALL_FAILED`.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
        };
        cookie?: never;
      };
      /** @description Either `calls: [...]` or a single call as top-level `address`, `method`, `parameters`, `abi` (and `value`); a single call answers as a one-element `calls`. */
      requestBody: {
        content: {
          'application/json': {
            /** @description the calls, in order; or give one call at the top level */
            calls?: {
              /** @description the contract */
              address: string;
              /** @description function name, or its full signature (e.g. `transfer(address,uint256)`) to pick an overload */
              method: string;
              /** @description arguments in ABI order; integers as decimal strings (numbers up to 2^53 also accepted), tuples as objects or arrays */
              parameters: unknown[];
              /** @description ABI entries; must contain the method */
              abi: ({
                /** @description function, constructor, event, error, fallback or receive */
                type: string;
                name?: string;
                inputs?: unknown[];
                outputs?: unknown[];
                stateMutability?: string;
                constant?: boolean;
                payable?: boolean;
                anonymous?: boolean;
              } & {
                [key: string]: unknown;
              })[];
              /** @description extension: native coin sent with the call, a decimal string in the coin's units (payable functions only; default 0). It moves the wallet's funds: whitelist and balance rules apply. */
              value?: string;
            }[];
            /** @description the contract */
            address?: string;
            /** @description function name, or its full signature (e.g. `transfer(address,uint256)`) to pick an overload */
            method?: string;
            /** @description arguments in ABI order; integers as decimal strings (numbers up to 2^53 also accepted), tuples as objects or arrays */
            parameters?: unknown[];
            /** @description ABI entries; must contain the method */
            abi?: ({
              /** @description function, constructor, event, error, fallback or receive */
              type: string;
              name?: string;
              inputs?: unknown[];
              outputs?: unknown[];
              stateMutability?: string;
              constant?: boolean;
              payable?: boolean;
              anonymous?: boolean;
            } & {
              [key: string]: unknown;
            })[];
            /** @description extension: native coin sent with the call, a decimal string in the coin's units (payable functions only; default 0). It moves the wallet's funds: whitelist and balance rules apply. */
            value?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description one call: a Transaction; several: an array in call order */
              data: components['schemas']['Transaction'] | components['schemas']['Transaction'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/signing/typed-data': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Sign EIP-712 typed data with the master key
     * @description Returns a SIGNED Transaction (SUCCESS, confirmed) whose `signedTransaction` is `{ r, s, signature, v }`, recoverable to the master address; `signed.success` is emitted. 400 (nothing written) for malformed types, unknown referenced types, bad Solidity types, domain or message values that do not fit their types, and a primary type that cannot be inferred. 422 `TYPED_DATA_NOT_SUPPORTED` (nothing written) on a Tron or Solana wallet. Held to the rules of a contract write: 422 `CONTRACT_WRITES_DISABLED` or `CONTRACT_NOT_ALLOWED` by the wallet's `configurations.contractWrites` for the verifying contract. A token authorisation over the master's tokens (EIP-2612 or DAI permit, EIP-3009 transfer authorisation, token meta-transaction, Permit2) must name the wallet's chain (400 `domain.chainId`) and at most one catalogued token (400), and obeys the whitelist (422 `NOT_WHITELISTED`) and AML screening (422 `AML_BLOCKED`) as an approve or transfer does. Decided by the transaction policies as a `CONTRACT_WRITE` (an authorisation of a catalogued token as its amount to its spender or recipient; other typed data as no amount to its verifying contract): 422 `POLICY_BLOCKED` unless allowed. Nothing is written on a refusal.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            domain: {
              name: string;
              version: string;
              chainId: number;
              /** @description contract address */
              verifyingContract: string;
              /** @description bytes32 as 0x-prefixed hex */
              salt?: string;
            };
            /** @description EIP-712 struct definitions; EIP712Domain is optional (derived from domain when absent) */
            types: {
              [key: string]: {
                name: string;
                type: string;
              }[];
            };
            message: {
              [key: string]: unknown;
            };
            /** @description extension; when absent, the one struct that no other struct refers to */
            primaryType?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/sign/typed-data': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Sign EIP-712 typed data with the master key
     * @deprecated
     * @description Alias of `/v1/wallets/{walletId}/signing/typed-data` (same request, same answer), kept for clients written for the described service. Returns a SIGNED Transaction (SUCCESS, confirmed) whose `signedTransaction` is `{ r, s, signature, v }`, recoverable to the master address; `signed.success` is emitted. 400 (nothing written) for malformed types, unknown referenced types, bad Solidity types, domain or message values that do not fit their types, and a primary type that cannot be inferred. 422 `TYPED_DATA_NOT_SUPPORTED` (nothing written) on a Tron or Solana wallet. Held to the rules of a contract write: 422 `CONTRACT_WRITES_DISABLED` or `CONTRACT_NOT_ALLOWED` by the wallet's `configurations.contractWrites` for the verifying contract. A token authorisation over the master's tokens (EIP-2612 or DAI permit, EIP-3009 transfer authorisation, token meta-transaction, Permit2) must name the wallet's chain (400 `domain.chainId`) and at most one catalogued token (400), and obeys the whitelist (422 `NOT_WHITELISTED`) and AML screening (422 `AML_BLOCKED`) as an approve or transfer does. Decided by the transaction policies as a `CONTRACT_WRITE` (an authorisation of a catalogued token as its amount to its spender or recipient; other typed data as no amount to its verifying contract): 422 `POLICY_BLOCKED` unless allowed. Nothing is written on a refusal.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            domain: {
              name: string;
              version: string;
              chainId: number;
              /** @description contract address */
              verifyingContract: string;
              /** @description bytes32 as 0x-prefixed hex */
              salt?: string;
            };
            /** @description EIP-712 struct definitions; EIP712Domain is optional (derived from domain when absent) */
            types: {
              [key: string]: {
                name: string;
                type: string;
              }[];
            };
            message: {
              [key: string]: unknown;
            };
            /** @description extension; when absent, the one struct that no other struct refers to */
            primaryType?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/signing/message': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Sign a message with the master key (EIP-191; TIP-191 on Tron; ed25519 on Solana)
     * @description `message`: text, or bytes as 0x-prefixed hex. Signed as EIP-191 personal_sign (what `personal_sign` and viem's `signMessage` produce) on EVM chains, as TIP-191 (tronweb's `trx.signMessageV2`, checked with `verifyMessageV2`) on Tron, as Solana wallets' `signMessage` does on Solana (ed25519 over the message bytes themselves, UTF-8 for text), by the master address. Returns a SIGNED Transaction (SUCCESS, confirmed) whose `signedTransaction` is `{ r, s, signature, v }` (on Solana `{ signature, publicKey }`: the 64-byte signature in base58 and the signer's address); `signed.success` is emitted. 400 for an empty message or odd-length hex (nothing written); 422 `MESSAGE_NAMES_SIGNER` on Solana for bytes that contain the signer's own public key, as a transaction would (nothing written); 422 `NOT_SUPPORTED` on chains without personal messages.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /**
             * @description text to sign, or bytes as 0x-prefixed hex (an even number of digits); signed as EIP-191 personal_sign (TIP-191 signMessageV2 on Tron; on Solana ed25519 over the bytes, as wallets' signMessage)
             * @example Sign in to Example at 2026-01-01T00:00:00Z
             * @example 0x48656c6c6f
             */
            message: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/sign/message': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Sign a message with the master key (EIP-191; TIP-191 on Tron; ed25519 on Solana)
     * @deprecated
     * @description Alias of `/v1/wallets/{walletId}/signing/message` (same request, same answer), kept for clients written for the described service. `message`: text, or bytes as 0x-prefixed hex. Signed as EIP-191 personal_sign (what `personal_sign` and viem's `signMessage` produce) on EVM chains, as TIP-191 (tronweb's `trx.signMessageV2`, checked with `verifyMessageV2`) on Tron, as Solana wallets' `signMessage` does on Solana (ed25519 over the message bytes themselves, UTF-8 for text), by the master address. Returns a SIGNED Transaction (SUCCESS, confirmed) whose `signedTransaction` is `{ r, s, signature, v }` (on Solana `{ signature, publicKey }`: the 64-byte signature in base58 and the signer's address); `signed.success` is emitted. 400 for an empty message or odd-length hex (nothing written); 422 `MESSAGE_NAMES_SIGNER` on Solana for bytes that contain the signer's own public key, as a transaction would (nothing written); 422 `NOT_SUPPORTED` on chains without personal messages.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /**
             * @description text to sign, or bytes as 0x-prefixed hex (an even number of digits); signed as EIP-191 personal_sign (TIP-191 signMessageV2 on Tron; on Solana ed25519 over the bytes, as wallets' signMessage)
             * @example Sign in to Example at 2026-01-01T00:00:00Z
             * @example 0x48656c6c6f
             */
            message: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/addresses/{addressId}/signing/message': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Sign a message with a child address key (EIP-191; TIP-191 on Tron; ed25519 on Solana)
     * @description `message`: text, or bytes as 0x-prefixed hex. Signed as EIP-191 personal_sign (what `personal_sign` and viem's `signMessage` produce) on EVM chains, as TIP-191 (tronweb's `trx.signMessageV2`, checked with `verifyMessageV2`) on Tron, as Solana wallets' `signMessage` does on Solana (ed25519 over the message bytes themselves, UTF-8 for text), by the child address (INTERNAL addresses only: 422 `NO_PRIVATE_KEY` otherwise). Returns a SIGNED Transaction (SUCCESS, confirmed) whose `signedTransaction` is `{ r, s, signature, v }` (on Solana `{ signature, publicKey }`: the 64-byte signature in base58 and the signer's address); `signed.success` is emitted. 400 for an empty message or odd-length hex (nothing written); 422 `MESSAGE_NAMES_SIGNER` on Solana for bytes that contain the signer's own public key, as a transaction would (nothing written); 422 `NOT_SUPPORTED` on chains without personal messages.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /**
             * @description text to sign, or bytes as 0x-prefixed hex (an even number of digits); signed as EIP-191 personal_sign (TIP-191 signMessageV2 on Tron; on Solana ed25519 over the bytes, as wallets' signMessage)
             * @example Sign in to Example at 2026-01-01T00:00:00Z
             * @example 0x48656c6c6f
             */
            message: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/addresses/{addressId}/sign/message': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Sign a message with a child address key (EIP-191; TIP-191 on Tron; ed25519 on Solana)
     * @deprecated
     * @description Alias of `/v1/wallets/{walletId}/addresses/{addressId}/signing/message` (same request, same answer), kept for clients written for the described service. `message`: text, or bytes as 0x-prefixed hex. Signed as EIP-191 personal_sign (what `personal_sign` and viem's `signMessage` produce) on EVM chains, as TIP-191 (tronweb's `trx.signMessageV2`, checked with `verifyMessageV2`) on Tron, as Solana wallets' `signMessage` does on Solana (ed25519 over the message bytes themselves, UTF-8 for text), by the child address (INTERNAL addresses only: 422 `NO_PRIVATE_KEY` otherwise). Returns a SIGNED Transaction (SUCCESS, confirmed) whose `signedTransaction` is `{ r, s, signature, v }` (on Solana `{ signature, publicKey }`: the 64-byte signature in base58 and the signer's address); `signed.success` is emitted. 400 for an empty message or odd-length hex (nothing written); 422 `MESSAGE_NAMES_SIGNER` on Solana for bytes that contain the signer's own public key, as a transaction would (nothing written); 422 `NOT_SUPPORTED` on chains without personal messages.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /**
             * @description text to sign, or bytes as 0x-prefixed hex (an even number of digits); signed as EIP-191 personal_sign (TIP-191 signMessageV2 on Tron; on Solana ed25519 over the bytes, as wallets' signMessage)
             * @example Sign in to Example at 2026-01-01T00:00:00Z
             * @example 0x48656c6c6f
             */
            message: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/auto-settlements': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The wallet's auto-settlement configuration */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                isActive: boolean;
                name: string;
                rules: {
                  name: string;
                  isActive: boolean;
                  order: string;
                  slippageTolerance: string;
                  source: {
                    assets: string[];
                    blockchain: string;
                    minAmount: string;
                    maxAmount: string | null;
                  };
                  destination: {
                    asset: string;
                    address: string;
                    blockchain: string;
                  };
                }[];
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /**
     * Switch the wallet configuration on or off, or rename it
     * @description Extension (not in the spec). `isActive` is the wallet's master switch (the same flag as `configurations.autoSettlement.isActive`): off, no rule of the wallet or its addresses runs.
     */
    patch: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            isActive?: boolean;
            name?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                isActive: boolean;
                name: string;
                rules: {
                  name: string;
                  isActive: boolean;
                  order: string;
                  slippageTolerance: string;
                  source: {
                    assets: string[];
                    blockchain: string;
                    minAmount: string;
                    maxAmount: string | null;
                  };
                  destination: {
                    asset: string;
                    address: string;
                    blockchain: string;
                  };
                }[];
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    trace?: never;
  };
  '/v1/wallets/{walletId}/auto-settlements/rules': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The wallet's rules */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                id: string;
                name: string;
                isActive: boolean;
                order: string;
                slippageTolerance: string;
                source: {
                  assets: string[];
                  blockchain: string;
                  minAmount: string;
                  maxAmount: string | null;
                };
                destination: {
                  asset: string;
                  address: string;
                  blockchain: string;
                };
                /** Format: date-time */
                createdAt: string;
                /** Format: date-time */
                updatedAt: string;
              }[];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    /**
     * Create a wallet rule
     * @description Extension (not in the spec). Defaults: isActive true, order RECOMMENDED, slippageTolerance "0.5", minAmount "0", maxAmount null (no bound).
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            name: string;
            /** @default true */
            isActive?: boolean;
            /** @description route choice: FASTEST = fewest hops, CHEAPEST = best output net of gas, RECOMMENDED = best output, NO_SLIPPAGE = best output and the swap reverts unless it gives the exact quote */
            order?: 'FASTEST' | 'CHEAPEST' | 'RECOMMENDED' | 'NO_SLIPPAGE';
            /** @description percentage of the expected output the swap may fall short by, e.g. "0.5" for 0.5%; below 100; ignored by NO_SLIPPAGE */
            slippageTolerance?: string;
            source: {
              /** @description symbols of the assets the rule takes */
              assets: string[];
              /** @description blockchain slug; the wallet’s own chain */
              blockchain: string;
              /** @description smallest deposit the rule takes, in asset units (default "0") */
              minAmount?: string;
              maxAmount?: string | null;
            };
            destination: {
              asset: string;
              address: string;
              /** @description blockchain slug; the wallet’s own chain */
              blockchain: string;
            };
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                id: string;
                name: string;
                isActive: boolean;
                order: string;
                slippageTolerance: string;
                source: {
                  assets: string[];
                  blockchain: string;
                  minAmount: string;
                  maxAmount: string | null;
                };
                destination: {
                  asset: string;
                  address: string;
                  blockchain: string;
                };
                /** Format: date-time */
                createdAt: string;
                /** Format: date-time */
                updatedAt: string;
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/auto-settlements/rules/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One wallet rule */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description rule id */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                id: string;
                name: string;
                isActive: boolean;
                order: string;
                slippageTolerance: string;
                source: {
                  assets: string[];
                  blockchain: string;
                  minAmount: string;
                  maxAmount: string | null;
                };
                destination: {
                  asset: string;
                  address: string;
                  blockchain: string;
                };
                /** Format: date-time */
                createdAt: string;
                /** Format: date-time */
                updatedAt: string;
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    /**
     * Delete a wallet rule
     * @description Extension (not in the spec).
     */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description rule id */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                id: string;
                name: string;
                isActive: boolean;
                order: string;
                slippageTolerance: string;
                source: {
                  assets: string[];
                  blockchain: string;
                  minAmount: string;
                  maxAmount: string | null;
                };
                destination: {
                  asset: string;
                  address: string;
                  blockchain: string;
                };
                /** Format: date-time */
                createdAt: string;
                /** Format: date-time */
                updatedAt: string;
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    options?: never;
    head?: never;
    /**
     * Update a wallet rule
     * @description Extension (not in the spec). Partial, as the address-level PATCH.
     */
    patch: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description rule id */
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            name?: string;
            isActive?: boolean;
            /** @description route choice: FASTEST = fewest hops, CHEAPEST = best output net of gas, RECOMMENDED = best output, NO_SLIPPAGE = best output and the swap reverts unless it gives the exact quote */
            order?: 'FASTEST' | 'CHEAPEST' | 'RECOMMENDED' | 'NO_SLIPPAGE';
            /** @description percentage of the expected output the swap may fall short by, e.g. "0.5" for 0.5%; below 100; ignored by NO_SLIPPAGE */
            slippageTolerance?: string;
            source?: {
              /** @description symbols of the assets the rule takes */
              assets?: string[];
              /** @description blockchain slug; the wallet’s own chain */
              blockchain?: string;
              /** @description smallest deposit the rule takes, in asset units (default "0") */
              minAmount?: string;
              maxAmount?: string | null;
            };
            destination?: {
              asset?: string;
              address?: string;
              /** @description blockchain slug; the wallet’s own chain */
              blockchain?: string;
            };
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                id: string;
                name: string;
                isActive: boolean;
                order: string;
                slippageTolerance: string;
                source: {
                  assets: string[];
                  blockchain: string;
                  minAmount: string;
                  maxAmount: string | null;
                };
                destination: {
                  asset: string;
                  address: string;
                  blockchain: string;
                };
                /** Format: date-time */
                createdAt: string;
                /** Format: date-time */
                updatedAt: string;
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    trace?: never;
  };
  '/v1/wallets/{walletId}/addresses/{addressId}/auto-settlements': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The address's auto-settlement configuration */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                isActive: boolean;
                rules: {
                  id: string;
                  name: string;
                  isActive: boolean;
                  order: string;
                  slippageTolerance: string;
                  source: {
                    assets: string[];
                    blockchain: string;
                    minAmount: string;
                    maxAmount: string | null;
                  };
                  destination: {
                    asset: string;
                    address: string;
                    blockchain: string;
                  };
                  /** Format: date-time */
                  createdAt: string;
                  /** Format: date-time */
                  updatedAt: string;
                }[];
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /**
     * Switch the address's own rules on or off
     * @description Extension (not in the spec). Off, the address's deposits fall back to the wallet's rules.
     */
    patch: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            isActive: boolean;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                isActive: boolean;
                rules: {
                  id: string;
                  name: string;
                  isActive: boolean;
                  order: string;
                  slippageTolerance: string;
                  source: {
                    assets: string[];
                    blockchain: string;
                    minAmount: string;
                    maxAmount: string | null;
                  };
                  destination: {
                    asset: string;
                    address: string;
                    blockchain: string;
                  };
                  /** Format: date-time */
                  createdAt: string;
                  /** Format: date-time */
                  updatedAt: string;
                }[];
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    trace?: never;
  };
  '/v1/wallets/{walletId}/addresses/{addressId}/auto-settlements/rules': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The address's rules */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                id: string;
                name: string;
                isActive: boolean;
                order: string;
                slippageTolerance: string;
                source: {
                  assets: string[];
                  blockchain: string;
                  minAmount: string;
                  maxAmount: string | null;
                };
                destination: {
                  asset: string;
                  address: string;
                  blockchain: string;
                };
                /** Format: date-time */
                createdAt: string;
                /** Format: date-time */
                updatedAt: string;
              }[];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    /**
     * Create an address rule
     * @description Extension (not in the spec). An address rule takes the address's deposits before any wallet rule.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            name: string;
            /** @default true */
            isActive?: boolean;
            /** @description route choice: FASTEST = fewest hops, CHEAPEST = best output net of gas, RECOMMENDED = best output, NO_SLIPPAGE = best output and the swap reverts unless it gives the exact quote */
            order?: 'FASTEST' | 'CHEAPEST' | 'RECOMMENDED' | 'NO_SLIPPAGE';
            /** @description percentage of the expected output the swap may fall short by, e.g. "0.5" for 0.5%; below 100; ignored by NO_SLIPPAGE */
            slippageTolerance?: string;
            source: {
              /** @description symbols of the assets the rule takes */
              assets: string[];
              /** @description blockchain slug; the wallet’s own chain */
              blockchain: string;
              /** @description smallest deposit the rule takes, in asset units (default "0") */
              minAmount?: string;
              maxAmount?: string | null;
            };
            destination: {
              asset: string;
              address: string;
              /** @description blockchain slug; the wallet’s own chain */
              blockchain: string;
            };
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                id: string;
                name: string;
                isActive: boolean;
                order: string;
                slippageTolerance: string;
                source: {
                  assets: string[];
                  blockchain: string;
                  minAmount: string;
                  maxAmount: string | null;
                };
                destination: {
                  asset: string;
                  address: string;
                  blockchain: string;
                };
                /** Format: date-time */
                createdAt: string;
                /** Format: date-time */
                updatedAt: string;
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/addresses/{addressId}/auto-settlements/rules/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One address rule
     * @description Extension (not in the spec).
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
          /** @description rule id */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                id: string;
                name: string;
                isActive: boolean;
                order: string;
                slippageTolerance: string;
                source: {
                  assets: string[];
                  blockchain: string;
                  minAmount: string;
                  maxAmount: string | null;
                };
                destination: {
                  asset: string;
                  address: string;
                  blockchain: string;
                };
                /** Format: date-time */
                createdAt: string;
                /** Format: date-time */
                updatedAt: string;
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    /** Delete an address rule */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
          /** @description rule id */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                id: string;
                name: string;
                isActive: boolean;
                order: string;
                slippageTolerance: string;
                source: {
                  assets: string[];
                  blockchain: string;
                  minAmount: string;
                  maxAmount: string | null;
                };
                destination: {
                  asset: string;
                  address: string;
                  blockchain: string;
                };
                /** Format: date-time */
                createdAt: string;
                /** Format: date-time */
                updatedAt: string;
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    options?: never;
    head?: never;
    /** Update an address rule (partial) */
    patch: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
          /** @description rule id */
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            name?: string;
            isActive?: boolean;
            /** @description route choice: FASTEST = fewest hops, CHEAPEST = best output net of gas, RECOMMENDED = best output, NO_SLIPPAGE = best output and the swap reverts unless it gives the exact quote */
            order?: 'FASTEST' | 'CHEAPEST' | 'RECOMMENDED' | 'NO_SLIPPAGE';
            /** @description percentage of the expected output the swap may fall short by, e.g. "0.5" for 0.5%; below 100; ignored by NO_SLIPPAGE */
            slippageTolerance?: string;
            source?: {
              /** @description symbols of the assets the rule takes */
              assets?: string[];
              /** @description blockchain slug; the wallet’s own chain */
              blockchain?: string;
              /** @description smallest deposit the rule takes, in asset units (default "0") */
              minAmount?: string;
              maxAmount?: string | null;
            };
            destination?: {
              asset?: string;
              address?: string;
              /** @description blockchain slug; the wallet’s own chain */
              blockchain?: string;
            };
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                id: string;
                name: string;
                isActive: boolean;
                order: string;
                slippageTolerance: string;
                source: {
                  assets: string[];
                  blockchain: string;
                  minAmount: string;
                  maxAmount: string | null;
                };
                destination: {
                  asset: string;
                  address: string;
                  blockchain: string;
                };
                /** Format: date-time */
                createdAt: string;
                /** Format: date-time */
                updatedAt: string;
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    trace?: never;
  };
  '/v1/wallets/{walletId}/beneficiaries': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List a wallet's beneficiaries
     * @description Extension. Newest first, paginated; deleted ones only with `includeDeleted=true`.
     */
    get: {
      parameters: {
        query?: {
          page?: number;
          limit?: number;
          isActive?: boolean;
          isWhitelisted?: boolean;
          isSettlement?: boolean;
          /** @description also list soft-deleted beneficiaries */
          includeDeleted?: boolean;
        };
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Beneficiary'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
              meta: {
                currentPage: number;
                itemCount: number;
                itemsPerPage: number;
                totalItems: number;
                totalPages: number;
              };
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    /**
     * Add a beneficiary
     * @description `settlementFrequency` makes it a settlement beneficiary (`isSettlement`, an extension here, defaults to whether a frequency is given; `isSettlement: true` without one is a 400). One live beneficiary per address (409). While an active transaction policy with a `destination` condition applies to the wallet, changing who is a beneficiary needs a business key with MANAGE_POLICIES or a dashboard owner or admin (403 `POLICY_MANAGEMENT_NOT_ALLOWED`).
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            name: string;
            /** @description destination address (EIP-55 checksum checked when mixed case) */
            address: string;
            /** @description INSTANT (after each deposit reaches the master address) or a UTC period: DAILY, WEEKLY (Monday), MONTHLY, YEARLY */
            settlementFrequency?: 'INSTANT' | 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY';
            isWhitelisted?: boolean;
            /** @description extension; defaults to true when settlementFrequency is given, which it then requires */
            isSettlement?: boolean;
            /** @description extension; the default wins among settlement beneficiaries */
            isDefault?: boolean;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Beneficiary'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/beneficiaries/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get a beneficiary
     * @description Extension. A deleted beneficiary is returned with its `deletedAt`.
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description beneficiary id */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Beneficiary'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    /**
     * Delete a beneficiary
     * @description Soft delete: the beneficiary is returned with `deletedAt` set and stops counting for whitelisting and settlement. While an active transaction policy with a `destination` condition applies to the wallet, deleting one needs a business key with MANAGE_POLICIES or a dashboard owner or admin (403 `POLICY_MANAGEMENT_NOT_ALLOWED`).
     */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description beneficiary id */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Beneficiary'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    options?: never;
    head?: never;
    /**
     * Update a beneficiary
     * @description Partial update. `settlementFrequency` is required when the beneficiary ends up with `isSettlement` true and has none stored (400). A deleted beneficiary is a 404. While an active transaction policy with a `destination` condition applies to the wallet, changing `isWhitelisted` or `isActive` needs a business key with MANAGE_POLICIES or a dashboard owner or admin (403 `POLICY_MANAGEMENT_NOT_ALLOWED`).
     */
    patch: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description beneficiary id */
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            name?: string;
            isSettlement?: boolean;
            /** @description INSTANT (after each deposit reaches the master address) or a UTC period: DAILY, WEEKLY (Monday), MONTHLY, YEARLY */
            settlementFrequency?: 'INSTANT' | 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY';
            isWhitelisted?: boolean;
            isActive?: boolean;
            /** @description extension */
            isDefault?: boolean;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Beneficiary'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    trace?: never;
  };
  '/v1/wallets/{walletId}/beneficiaries/{id}/settlements': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A settlement beneficiary's settlement runs
     * @description Extension. Newest first, paginated. A run is one period (or, for INSTANT, one deposit) settled once.
     */
    get: {
      parameters: {
        query?: {
          page?: number;
          limit?: number;
        };
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description beneficiary id */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                id: string;
                beneficiaryId: string;
                /** @description 'DAILY:2026-01-01', 'WEEKLY:2025-12-29', 'MONTHLY:2026-01', 'YEARLY:2026', or 'deposit:<id>' for INSTANT */
                period: string;
                status: 'pending' | 'done' | 'nothing' | 'failed';
                /** @description the WITHDRAW transactions the run created */
                transactionIds: string[];
                error: string | null;
                /** Format: date-time */
                createdAt: string;
                /** Format: date-time */
                updatedAt: string;
              }[];
              message: string;
              /** @enum {number} */
              statusCode: 200;
              meta: {
                currentPage: number;
                itemCount: number;
                itemsPerPage: number;
                totalItems: number;
                totalPages: number;
              };
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/staking': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The master address's stake: per resource, unstakes with their unlock dates, what can be withdrawn
     * @description Extension. Read on chain: what is staked and lent per resource (ENERGY, BANDWIDTH), the energy or bandwidth it gives a day (`resourceLimit`, `resourceUsed`), what the master can lend children now (`lendable`: what sweeps lend), each unstake with `unlocksAt` (judged against the head block's time) and `withdrawable`. Other chains answer 422 NOT_SUPPORTED.
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                /** @description the master address whose stake this is */
                address: string;
                /** @description the chain slug */
                blockchain: string;
                /** @description native coin (TRX), decimal string */
                balance: string;
                /** @description native coin (TRX), decimal string */
                totalStaked: string;
                unlockPeriodDays: number;
                positions: {
                  /** @description ENERGY (used by TRC-20 transfers and other contract calls) or BANDWIDTH (transaction bytes) */
                  resource: 'ENERGY' | 'BANDWIDTH';
                  /** @description staked and held by the master (TRX) */
                  staked: string;
                  /** @description staked and lent to other accounts (TRX), e.g. to children by sweeps */
                  delegated: string;
                  /** @description what the master can lend now (TRX): what the sweep lends children */
                  lendable: string;
                  /** @description energy units or bandwidth bytes a day */
                  resourceLimit: string;
                  /** @description energy units or bandwidth bytes a day */
                  resourceUsed: string;
                }[];
                unlocking: {
                  /** @description ENERGY (used by TRC-20 transfers and other contract calls) or BANDWIDTH (transaction bytes) */
                  resource: 'ENERGY' | 'BANDWIDTH';
                  /** @description native coin (TRX), decimal string */
                  amount: string;
                  /** Format: date-time */
                  unlocksAt: string;
                  /** @description past its unlock time: POST .../staking/withdraw pays it out */
                  unlocked: boolean;
                }[];
                /** @description unlocked and not yet withdrawn (TRX) */
                withdrawable: string;
                nextUnlockAt: string | null;
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/staking/stake': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Stake the native coin for ENERGY or BANDWIDTH
     * @description Extension (the described service's staking operations). The master address of a wallet on a chain whose family stakes (Tron's Stake 2.0); other chains answer 422 NOT_SUPPORTED. Returns a PENDING Transaction; once mined and read back from the chain it ends SUCCESS with `staking.success` (type STAKING; `staking.failed` otherwise). The TRX staked is held like a withdrawal until then.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description decimal string in the native coin (TRX), greater than 0, e.g. "100.5" */
            amount: string;
            /** @description ENERGY (used by TRC-20 transfers and other contract calls) or BANDWIDTH (transaction bytes) */
            resource: 'ENERGY' | 'BANDWIDTH';
            /** @description client reference */
            reference?: string;
            metadata?: {
              [key: string]: unknown;
            };
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/staking/unstake': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Start unstaking: the amount unlocks after the chain's period (14 days on Tron)
     * @description Extension (the described service's staking operations). The master address of a wallet on a chain whose family stakes (Tron's Stake 2.0); other chains answer 422 NOT_SUPPORTED. Returns a PENDING Transaction; once mined and read back from the chain it ends SUCCESS with `unstaking.success` (type UNSTAKING; `metadata.staking.unlocksAt` is the unlock date, `withdrawn` what had already unlocked and the chain paid out with it; `unstaking.failed` otherwise). Only what the master holds staked (not what it lends) can be unstaked: 422 INSUFFICIENT_STAKE. While as many unstakes wait for their unlock as the chain allows (32 on Tron): 422 UNSTAKE_LIMIT_REACHED.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description decimal string in the native coin (TRX), greater than 0, e.g. "100.5" */
            amount: string;
            /** @description ENERGY (used by TRC-20 transfers and other contract calls) or BANDWIDTH (transaction bytes) */
            resource: 'ENERGY' | 'BANDWIDTH';
            /** @description client reference */
            reference?: string;
            metadata?: {
              [key: string]: unknown;
            };
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/staking/restake': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Cancel every pending unstake: the amounts go back into their stake
     * @description Extension (the described service's staking operations). The master address of a wallet on a chain whose family stakes (Tron's Stake 2.0); other chains answer 422 NOT_SUPPORTED. Returns a PENDING Transaction; once mined and read back from the chain it ends SUCCESS with `restaking.success` (type RESTAKING; `amount` is what went back into the stake, `metadata.staking.restaked` per resource, `withdrawn` what had already unlocked and was paid out; `restaking.failed` otherwise). Nothing pending: 422 NOTHING_TO_RESTAKE.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description client reference */
            reference?: string;
            metadata?: {
              [key: string]: unknown;
            };
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/staking/withdraw': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Withdraw the unstaked amounts that have unlocked
     * @description Extension (the described service's staking operations). The master address of a wallet on a chain whose family stakes (Tron's Stake 2.0); other chains answer 422 NOT_SUPPORTED. Returns a PENDING Transaction; once mined and read back from the chain it ends SUCCESS with `unstaking.withdraw.success` (type UNSTAKING_WITHDRAW; `amount` is what the chain paid out; `unstaking.withdraw.failed` otherwise). Nothing unlocked yet: 422 NOTHING_TO_WITHDRAW naming the next unlock date.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description client reference */
            reference?: string;
            metadata?: {
              [key: string]: unknown;
            };
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/salvage/network-fee': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Estimate the network fee of an asset recovery
     * @description Recovers funds the withdrawal flows cannot move, from the master or an address of the wallet (its keys only): a token that is not an enabled asset of the wallet (unlisted ERC-20 / TRC-20, an unknown SPL token, whose emptied token account is closed with its rent back to the master), native coin left at a child address, or funds sent to one of our addresses on another chain of the wallet's family (`blockchainId` names a configured chain, or `rpcUrl` an EVM chain this installation does not configure: checked like a webhook target, used for this request only, never stored). `crossNetwork` with `rpcUrl` is a 400. Returns the sender's native `balance` on that chain and the recovery transfer's `fee` (both in the native coin), and `tokenBalance` (the sender's balance of the token; null for the native coin).
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description an address of this wallet (the master or one of its addresses) holding what is recovered */
            senderAddress: string;
            /** @description where the recovered funds go (the wallet whitelist applies) */
            recipientAddress: string;
            /** @description decimal string in the token's (or the native coin's) units, greater than 0 */
            amount: string;
            /** @description the blockchain (GET /v1/blockchains) the funds sit on, at the wallet's network: the wallet's own, or another of its family (funds sent to one of our addresses on the wrong chain) */
            blockchainId: string;
            /** @description the token's contract (or mint); omitted (or the zero address): the native coin */
            tokenAddress?: string;
            /** @description an RPC endpoint of an EVM chain this installation does not configure: checked like a webhook target (no private or loopback address unless the operator allows them; HTTPS on mainnet) and used for this one request only (never stored) */
            rpcUrl?: string;
            /** @description accepted for compatibility; an EVM L2 is recovered like any EVM chain */
            isL2?: boolean;
            /** @description the funds sit on another chain than the wallet's (blockchainId names it); with rpcUrl: 400 */
            crossNetwork?: boolean;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                /** @description the sender's native coin on that chain */
                balance: string;
                /** @description the network fee of the recovery transfer, in the native coin */
                fee: string;
                tokenBalance: string | null;
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/salvage': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Recover assets from an address of the wallet
     * @description Recovers funds the withdrawal flows cannot move, from the master or an address of the wallet (its keys only): a token that is not an enabled asset of the wallet (unlisted ERC-20 / TRC-20, an unknown SPL token, whose emptied token account is closed with its rent back to the master), native coin left at a child address, or funds sent to one of our addresses on another chain of the wallet's family (`blockchainId` names a configured chain, or `rpcUrl` an EVM chain this installation does not configure: checked like a webhook target, used for this request only, never stored). `crossNetwork` with `rpcUrl` is a 400. A child's fee is funded as a sweep's is (an EVM top-up, Tron energy lent from the master's stake and taken back, Solana's master as fee payer); on a chain named by `rpcUrl` the sender pays its own fee and the request follows the transfer to its receipt. The recipient follows the wallet's whitelist. Returns a Transaction of type SALVAGE (filter `type=SALVAGE`); `salvage.success` or `salvage.failed` follows.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description an address of this wallet (the master or one of its addresses) holding what is recovered */
            senderAddress: string;
            /** @description where the recovered funds go (the wallet whitelist applies) */
            recipientAddress: string;
            /** @description decimal string in the token's (or the native coin's) units, greater than 0 */
            amount: string;
            /** @description the blockchain (GET /v1/blockchains) the funds sit on, at the wallet's network: the wallet's own, or another of its family (funds sent to one of our addresses on the wrong chain) */
            blockchainId: string;
            /** @description the token's contract (or mint); omitted (or the zero address): the native coin */
            tokenAddress?: string;
            /** @description an RPC endpoint of an EVM chain this installation does not configure: checked like a webhook target (no private or loopback address unless the operator allows them; HTTPS on mainnet) and used for this one request only (never stored) */
            rpcUrl?: string;
            /** @description accepted for compatibility; an EVM L2 is recovered like any EVM chain */
            isL2?: boolean;
            /** @description the funds sit on another chain than the wallet's (blockchainId names it); with rpcUrl: 400 */
            crossNetwork?: boolean;
            /** @description client reference */
            reference?: string;
            metadata?: {
              [key: string]: unknown;
            };
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/swaps/quote': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Quote a swap from the master address
     * @description On a chain with a swap router (EVM chains whose chains file names one; the devnet AMM in the embedded default); elsewhere 422 NOT_SUPPORTED. Both assets on the wallet's chain (422 CROSS_CHAIN_SWAP_NOT_SUPPORTED: no bridge); tokens only (a native coin: 422 SWAP_NOT_AVAILABLE). The route the `order` picks and its minimum output (`minAmount`: the reference, par for two assets of one currency or else the pools' mid price, less `slippageTolerance`; the quote itself for NO_SLIPPAGE): a pool that cannot give it is refused (422 SLIPPAGE_EXCEEDED). `quoteId` executes it until `expiresAt`.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description the asset given (catalogue or wallet asset id) */
            fromAssetId: string;
            /** @description the asset received, on the same chain */
            toAssetId: string;
            /** @description decimal string in the asset given, greater than 0 */
            amount: string;
            /** @description how the route is chosen: FASTEST (fewest hops), CHEAPEST (best output net of gas), RECOMMENDED (best output, the default), NO_SLIPPAGE (the minimum is the quote itself) */
            order?: 'FASTEST' | 'CHEAPEST' | 'RECOMMENDED' | 'NO_SLIPPAGE';
            /** @description where the output goes (default: the address swapping); the wallet whitelist applies */
            recipientAddress?: string;
            /** @description percent the output may fall below the reference (default 0.5; a value of 5 means 5%) */
            slippageTolerance?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                /** @description execute it by id until expiresAt */
                quoteId: string;
                /** Format: date-time */
                expiresAt: string;
                /** @description symbol of the asset given */
                fromAsset: string;
                /** @description symbol of the asset received */
                toAsset: string;
                /** @description the amount given */
                amountIn: string;
                /** @description the output the route gives now, in the asset received */
                amount: string;
                /** @description the router's minimum output, signed into the swap with a deadline: below it the swap reverts */
                minAmount: string;
                /** @description output per unit given */
                rate: string;
                /** @description the tolerance applied, percent */
                slippage: string;
                /** @description price impact, percent: how far the output is below the pools' mid price */
                impact: string;
                impactInUSD: string | null;
                /** @description the network fee of the transactions the swap sends (approvals, the swap, a top-up), in the native coin */
                networkFee: string;
                networkFeeInUSD: string | null;
                /** @description the swapping address's native coin */
                nativeBalance: string;
                nativeBalanceInUSD: string | null;
                /** @description what this service charges: 0 */
                transactionFee: string;
                /** @description seconds, an estimate: 15 per transaction the swap sends */
                estimatedArrivalTime: number;
                /** @description the token route, input to output */
                path: string[];
                recipientAddress: string;
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/swaps/execute': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Execute a swap from the master address
     * @description On a chain with a swap router (EVM chains whose chains file names one; the devnet AMM in the embedded default); elsewhere 422 NOT_SUPPORTED. Both assets on the wallet's chain (422 CROSS_CHAIN_SWAP_NOT_SUPPORTED: no bridge); tokens only (a native coin: 422 SWAP_NOT_AVAILABLE). By `quoteId` (alone: a field the quote fixes given beside it is a 400) or with the quote's body. Quoted again before anything is written: a live quote keeps its `minAmount`, an expired one is re-quoted (its minimum never lowered) and never executed at its stale rate; a pool below the minimum is refused (422 SLIPPAGE_EXCEEDED). The minimum and a deadline are signed into the router call: a pool that moves after signing makes the swap revert. The input is held like a withdrawal's; a `recipientAddress` other than the sender follows the wallet whitelist. Returns a PENDING Transaction of type SWAP (`toAmount`, `toAsset`, `toBlockchain`); `swap.success` (with the amount the recipient received, read from the receipt's transfer logs) or `swap.failed` follows.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description a quote of this wallet (and address) from .../swaps/quote */
            quoteId?: string;
            /** @description the asset given (catalogue or wallet asset id) */
            fromAssetId?: string;
            /** @description the asset received, on the same chain */
            toAssetId?: string;
            /** @description decimal string in the asset given, greater than 0 */
            amount?: string;
            /** @description how the route is chosen: FASTEST (fewest hops), CHEAPEST (best output net of gas), RECOMMENDED (best output, the default), NO_SLIPPAGE (the minimum is the quote itself) */
            order?: 'FASTEST' | 'CHEAPEST' | 'RECOMMENDED' | 'NO_SLIPPAGE';
            /** @description where the output goes (default: the address swapping); the wallet whitelist applies */
            recipientAddress?: string;
            /** @description percent the output may fall below the reference (default 0.5; a value of 5 means 5%) */
            slippageTolerance?: string;
            /** @description client reference */
            reference?: string;
            metadata?: {
              [key: string]: unknown;
            };
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/addresses/{addressId}/swaps/quote': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Quote a swap from a child address
     * @description On a chain with a swap router (EVM chains whose chains file names one; the devnet AMM in the embedded default); elsewhere 422 NOT_SUPPORTED. Both assets on the wallet's chain (422 CROSS_CHAIN_SWAP_NOT_SUPPORTED: no bridge); tokens only (a native coin: 422 SWAP_NOT_AVAILABLE). The route the `order` picks and its minimum output (`minAmount`: the reference, par for two assets of one currency or else the pools' mid price, less `slippageTolerance`; the quote itself for NO_SLIPPAGE): a pool that cannot give it is refused (422 SLIPPAGE_EXCEEDED). `quoteId` executes it until `expiresAt`.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description the asset given (catalogue or wallet asset id) */
            fromAssetId: string;
            /** @description the asset received, on the same chain */
            toAssetId: string;
            /** @description decimal string in the asset given, greater than 0 */
            amount: string;
            /** @description how the route is chosen: FASTEST (fewest hops), CHEAPEST (best output net of gas), RECOMMENDED (best output, the default), NO_SLIPPAGE (the minimum is the quote itself) */
            order?: 'FASTEST' | 'CHEAPEST' | 'RECOMMENDED' | 'NO_SLIPPAGE';
            /** @description where the output goes (default: the address swapping); the wallet whitelist applies */
            recipientAddress?: string;
            /** @description percent the output may fall below the reference (default 0.5; a value of 5 means 5%) */
            slippageTolerance?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                /** @description execute it by id until expiresAt */
                quoteId: string;
                /** Format: date-time */
                expiresAt: string;
                /** @description symbol of the asset given */
                fromAsset: string;
                /** @description symbol of the asset received */
                toAsset: string;
                /** @description the amount given */
                amountIn: string;
                /** @description the output the route gives now, in the asset received */
                amount: string;
                /** @description the router's minimum output, signed into the swap with a deadline: below it the swap reverts */
                minAmount: string;
                /** @description output per unit given */
                rate: string;
                /** @description the tolerance applied, percent */
                slippage: string;
                /** @description price impact, percent: how far the output is below the pools' mid price */
                impact: string;
                impactInUSD: string | null;
                /** @description the network fee of the transactions the swap sends (approvals, the swap, a top-up), in the native coin */
                networkFee: string;
                networkFeeInUSD: string | null;
                /** @description the swapping address's native coin */
                nativeBalance: string;
                nativeBalanceInUSD: string | null;
                /** @description what this service charges: 0 */
                transactionFee: string;
                /** @description seconds, an estimate: 15 per transaction the swap sends */
                estimatedArrivalTime: number;
                /** @description the token route, input to output */
                path: string[];
                recipientAddress: string;
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/addresses/{addressId}/swaps/execute': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Execute a swap from a child address
     * @description On a chain with a swap router (EVM chains whose chains file names one; the devnet AMM in the embedded default); elsewhere 422 NOT_SUPPORTED. Both assets on the wallet's chain (422 CROSS_CHAIN_SWAP_NOT_SUPPORTED: no bridge); tokens only (a native coin: 422 SWAP_NOT_AVAILABLE). By `quoteId` (alone: a field the quote fixes given beside it is a 400) or with the quote's body. Quoted again before anything is written: a live quote keeps its `minAmount`, an expired one is re-quoted (its minimum never lowered) and never executed at its stale rate; a pool below the minimum is refused (422 SLIPPAGE_EXCEEDED). The minimum and a deadline are signed into the router call: a pool that moves after signing makes the swap revert. The input is held like a withdrawal's; a `recipientAddress` other than the sender follows the wallet whitelist. Returns a PENDING Transaction of type SWAP (`toAmount`, `toAsset`, `toBlockchain`); `swap.success` (with the amount the recipient received, read from the receipt's transfer logs) or `swap.failed` follows.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description address id */
          addressId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description a quote of this wallet (and address) from .../swaps/quote */
            quoteId?: string;
            /** @description the asset given (catalogue or wallet asset id) */
            fromAssetId?: string;
            /** @description the asset received, on the same chain */
            toAssetId?: string;
            /** @description decimal string in the asset given, greater than 0 */
            amount?: string;
            /** @description how the route is chosen: FASTEST (fewest hops), CHEAPEST (best output net of gas), RECOMMENDED (best output, the default), NO_SLIPPAGE (the minimum is the quote itself) */
            order?: 'FASTEST' | 'CHEAPEST' | 'RECOMMENDED' | 'NO_SLIPPAGE';
            /** @description where the output goes (default: the address swapping); the wallet whitelist applies */
            recipientAddress?: string;
            /** @description percent the output may fall below the reference (default 0.5; a value of 5 means 5%) */
            slippageTolerance?: string;
            /** @description client reference */
            reference?: string;
            metadata?: {
              [key: string]: unknown;
            };
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/assets/rates': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Current rates of assets
     * @description Rates from the price feeds the operator configured (Chainlink AggregatorV3 on the assets’ chains), never invented; a USD stablecoin without a feed is quoted at its peg only with RATES_PEG_FALLBACK.
     */
    get: {
      parameters: {
        query?: {
          /** @description comma-separated asset symbols, e.g. `USDT,USDC` (any letter case); default: every symbol of GET /v1/assets */
          assets?: string;
          /** @description the quote currency; `USD` (the default) is the one supported */
          currency?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /**
               * @description symbol -> { currency -> rate }: a decimal string with every digit the price feed gives (never a float), or null when no usable rate exists (no source, a stale or refused feed)
               * @example {
               *       "USDT": {
               *         "USD": "0.9997"
               *       },
               *       "USDC": {
               *         "USD": "1"
               *       }
               *     }
               */
              data: {
                [key: string]: {
                  [key: string]: string | null;
                };
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/rates': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Current rates of assets
     * @deprecated
     * @description Alias of `/v1/assets/rates` (same request, same answer), kept for clients written for the described service. Rates from the price feeds the operator configured (Chainlink AggregatorV3 on the assets’ chains), never invented; a USD stablecoin without a feed is quoted at its peg only with RATES_PEG_FALLBACK.
     */
    get: {
      parameters: {
        query?: {
          /** @description comma-separated asset symbols, e.g. `USDT,USDC` (any letter case); default: every symbol of GET /v1/assets */
          assets?: string;
          /** @description the quote currency; `USD` (the default) is the one supported */
          currency?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /**
               * @description symbol -> { currency -> rate }: a decimal string with every digit the price feed gives (never a float), or null when no usable rate exists (no source, a stale or refused feed)
               * @example {
               *       "USDT": {
               *         "USD": "0.9997"
               *       },
               *       "USDC": {
               *         "USD": "1"
               *       }
               *     }
               */
              data: {
                [key: string]: {
                  [key: string]: string | null;
                };
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/api-keys': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the business's API keys (business key)
     * @description Newest first: prefix, scopes, rate limit, last use. Never the keys themselves.
     */
    get: {
      parameters: {
        query?: {
          page?: number;
          limit?: number;
          /** @description also list revoked keys */
          includeRevoked?: boolean;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['ApiKey'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
              meta: {
                currentPage: number;
                itemCount: number;
                itemsPerPage: number;
                totalItems: number;
                totalPages: number;
              };
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    /**
     * Create a business API key (business key without restrictions)
     * @description Extension. A business may hold several live business keys. The key is shown only in this response; afterwards only its prefix is listed.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description a label for people */
            name?: string;
            scopes?: ('READ_ONLY' | 'NO_KEY_EXPORT' | 'APPROVE' | 'MANAGE_POLICIES')[];
            rateLimit?: number | null;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                id: string;
                name: string;
                /** @description the first characters of the key, to recognise it */
                prefix: string;
                scopes: ('READ_ONLY' | 'NO_KEY_EXPORT' | 'APPROVE' | 'MANAGE_POLICIES')[];
                rateLimit: number | null;
                /** Format: date-time */
                createdAt: string;
                lastUsedAt: string | null;
                revokedAt: string | null;
                /** @description shown once; store it now */
                apiKey: string;
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/api-keys/{keyId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get a business API key (business key) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description API key id */
          keyId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['ApiKey'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    /**
     * Revoke a business API key (business key without restrictions)
     * @description The key is refused from the next request on by the instance that revoked it, and by every other instance within 100 ms. Revoking a revoked key changes nothing.
     */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description API key id */
          keyId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['ApiKey'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/policies': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the business's transaction policies
     * @description Extension (docs/policies.md). In evaluation order: ascending priority, ties the older first. A business key.
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Policy'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    /**
     * Create a transaction policy
     * @description Extension. A rule matches a would-be transaction when its scope (walletId, addressId) and every condition it has match; the first match by priority decides ALLOW, BLOCK or REQUIRE_APPROVAL (approvers, quorum, ttlSeconds; only for WITHDRAW and BATCH_ITEM). Needs a business API key with the MANAGE_POLICIES scope (given by the operator: `api-key create --scope MANAGE_POLICIES`); every change is on the audit log.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            name: string;
            /** @description lower first; ties: the older first */
            priority: number;
            walletId?: string | null;
            addressId?: string | null;
            isActive?: boolean;
            /** @description all optional; a rule matches when every condition it has matches */
            conditions?: {
              /** @description transaction types the rule applies to (absent: all); BATCH_ITEM is an item of a batch withdrawal */
              types?: ('WITHDRAW' | 'BATCH_ITEM' | 'SIGN_ONLY' | 'CONTRACT_WRITE' | 'SWAP' | 'SALVAGE' | 'AUTO_SETTLEMENT')[];
              /** @description asset symbols (any chain), e.g. ["USDC", "USDT"] */
              assets?: string[];
              /** @description the amount, in the asset or in USD; at least one bound */
              amount?: {
                /** @description inclusive lower bound */
                min?: string;
                /** @description inclusive upper bound */
                max?: string;
                /** @description ASSET: in the transaction's asset; USD: at the asset's USD rate (no rate: the condition does not match) */
                currency: 'ASSET' | 'USD';
              };
              /** @description matches when the payouts in the rolling window, this one included, exceed `limit` */
              velocity?: {
                measure: 'SUM' | 'COUNT';
                /** @description WALLET: the wallet's payouts; DESTINATION: what the business's wallets sent to this address */
                scope: 'WALLET' | 'DESTINATION';
                /** @description the rolling window, e.g. 86400 for 24 hours */
                windowSeconds: number;
                /** @description matches when the window with this transaction exceeds it: an amount (SUM) or a whole number (COUNT) */
                limit: string;
                /** @description ASSET: in the transaction's asset; USD: at the asset's USD rate (no rate: the condition does not match) */
                currency?: 'ASSET' | 'USD';
              };
              /** @description WHITELISTED, BENEFICIARY (whitelisted or not), NON_BENEFICIARY (none of the wallet's beneficiaries), ANY */
              destination?: 'WHITELISTED' | 'BENEFICIARY' | 'NON_BENEFICIARY' | 'ANY';
              /** @description who asked for the transaction: any of these */
              initiators?: {
                apiKeys?: string[];
                /** @description dashboard user ids */
                users?: string[];
                /** @description the service itself (auto-settlements) */
                system?: boolean;
              };
            };
            action: 'ALLOW' | 'BLOCK' | 'REQUIRE_APPROVAL';
            approval?: {
              /** @description who may approve: anyone matching one of these */
              approvers: {
                /** @description dashboard roles; only owner, admin and approver can approve */
                roles?: ('owner' | 'admin' | 'approver' | 'developer' | 'viewer')[];
                /** @description dashboard user ids */
                users?: string[];
                /** @description business API keys with the APPROVE scope */
                apiKeys?: string[];
              };
              /** @description distinct approvals needed */
              quorum: number;
              /** @description unapproved after this long: CANCELLED */
              ttlSeconds: number;
            } | null;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Policy'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/policies/evaluate': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Dry run: which rule would decide a transaction, and why
     * @description Extension. The same rules and velocity windows as the live decision, read without effect: `action`, the deciding `policy` (null: none matched, allowed), and `steps` (each rule looked at, in order, with why it did or did not match). Nothing is written.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            walletId: string;
            /** @description the sending child address (absent: the master address) */
            addressId?: string;
            type: 'WITHDRAW' | 'BATCH_ITEM' | 'SIGN_ONLY' | 'CONTRACT_WRITE' | 'SWAP' | 'SALVAGE' | 'AUTO_SETTLEMENT';
            /** @description wallet asset id or catalogue asset id */
            assetId?: string;
            /** @description decimal string in the asset */
            amount?: string;
            /** @description destination address */
            address?: string;
            /** @description who would ask (absent: the key calling) */
            initiator?: {
              apiKey?: string;
              user?: string;
              system?: boolean;
            };
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                action: 'ALLOW' | 'BLOCK' | 'REQUIRE_APPROVAL';
                policy: components['schemas']['Policy'] | null;
                /** @description why the deciding rule matched, or that none did */
                reason: string;
                /** @description the rules looked at, in order, up to the one that decided */
                steps: {
                  policyId: string;
                  name: string;
                  priority: number;
                  matched: boolean;
                  reason: string;
                }[];
              };
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/policies/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get a transaction policy */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description policy id */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Policy'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    /**
     * Delete a transaction policy
     * @description Extension. Returns the rule as it was. Open approval requests it made stay open. Needs a business API key with the MANAGE_POLICIES scope (given by the operator: `api-key create --scope MANAGE_POLICIES`); every change is on the audit log.
     */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description policy id */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Policy'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    options?: never;
    head?: never;
    /**
     * Change a transaction policy
     * @description Extension. Any field; the rule is checked whole after the change. Approval requests already open keep the approvers, quorum and expiry they were opened with. Needs a business API key with the MANAGE_POLICIES scope (given by the operator: `api-key create --scope MANAGE_POLICIES`); every change is on the audit log.
     */
    patch: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description policy id */
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            name?: string;
            /** @description lower first; ties: the older first */
            priority?: number;
            walletId?: string | null;
            addressId?: string | null;
            isActive?: boolean;
            /** @description all optional; a rule matches when every condition it has matches */
            conditions?: {
              /** @description transaction types the rule applies to (absent: all); BATCH_ITEM is an item of a batch withdrawal */
              types?: ('WITHDRAW' | 'BATCH_ITEM' | 'SIGN_ONLY' | 'CONTRACT_WRITE' | 'SWAP' | 'SALVAGE' | 'AUTO_SETTLEMENT')[];
              /** @description asset symbols (any chain), e.g. ["USDC", "USDT"] */
              assets?: string[];
              /** @description the amount, in the asset or in USD; at least one bound */
              amount?: {
                /** @description inclusive lower bound */
                min?: string;
                /** @description inclusive upper bound */
                max?: string;
                /** @description ASSET: in the transaction's asset; USD: at the asset's USD rate (no rate: the condition does not match) */
                currency: 'ASSET' | 'USD';
              };
              /** @description matches when the payouts in the rolling window, this one included, exceed `limit` */
              velocity?: {
                measure: 'SUM' | 'COUNT';
                /** @description WALLET: the wallet's payouts; DESTINATION: what the business's wallets sent to this address */
                scope: 'WALLET' | 'DESTINATION';
                /** @description the rolling window, e.g. 86400 for 24 hours */
                windowSeconds: number;
                /** @description matches when the window with this transaction exceeds it: an amount (SUM) or a whole number (COUNT) */
                limit: string;
                /** @description ASSET: in the transaction's asset; USD: at the asset's USD rate (no rate: the condition does not match) */
                currency?: 'ASSET' | 'USD';
              };
              /** @description WHITELISTED, BENEFICIARY (whitelisted or not), NON_BENEFICIARY (none of the wallet's beneficiaries), ANY */
              destination?: 'WHITELISTED' | 'BENEFICIARY' | 'NON_BENEFICIARY' | 'ANY';
              /** @description who asked for the transaction: any of these */
              initiators?: {
                apiKeys?: string[];
                /** @description dashboard user ids */
                users?: string[];
                /** @description the service itself (auto-settlements) */
                system?: boolean;
              };
            };
            action?: 'ALLOW' | 'BLOCK' | 'REQUIRE_APPROVAL';
            approval?: {
              /** @description who may approve: anyone matching one of these */
              approvers: {
                /** @description dashboard roles; only owner, admin and approver can approve */
                roles?: ('owner' | 'admin' | 'approver' | 'developer' | 'viewer')[];
                /** @description dashboard user ids */
                users?: string[];
                /** @description business API keys with the APPROVE scope */
                apiKeys?: string[];
              };
              /** @description distinct approvals needed */
              quorum: number;
              /** @description unapproved after this long: CANCELLED */
              ttlSeconds: number;
            } | null;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Policy'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    trace?: never;
  };
  '/v1/approvals': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List approval requests
     * @description Extension. Payouts a REQUIRE_APPROVAL rule holds (PENDING_APPROVAL), newest first; filter by status and wallet. A business key.
     */
    get: {
      parameters: {
        query?: {
          status?: 'PENDING' | 'APPROVED' | 'REJECTED' | 'EXPIRED' | 'CANCELLED';
          walletId?: string;
          page?: number;
          limit?: number;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Approval'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
              meta: {
                currentPage: number;
                itemCount: number;
                itemsPerPage: number;
                totalItems: number;
                totalPages: number;
              };
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/approvals/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get an approval request
     * @description Extension. `{id}` is the request id or its transaction id.
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description approval id */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Approval'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/approvals/{id}/approve': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Approve a held payout
     * @description Extension. At the quorum of distinct approvals the payout is sent as any withdrawal (PENDING, then `withdraw.success`). A request past its time to live is cancelled instead (409 `APPROVAL_EXPIRED`). Needs a business API key with the APPROVE scope that the request lists among its approvers (`approvers.apiKeys`); the key that initiated the payout is refused (403 `SELF_APPROVAL`), and each approver votes once (409 `ALREADY_VOTED`). `{id}` is the request id or its transaction id.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description approval id */
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            comment?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Approval'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/approvals/{id}/reject': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Reject a held payout
     * @description Extension. One rejection is enough: the payout is CANCELLED (`withdraw.cancelled`) and what it held is released. Needs a business API key with the APPROVE scope that the request lists among its approvers (`approvers.apiKeys`); the key that initiated the payout is refused (403 `SELF_APPROVAL`), and each approver votes once (409 `ALREADY_VOTED`). `{id}` is the request id or its transaction id.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description approval id */
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            comment?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Approval'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/payment_links': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List payment links
     * @description Newest first. A wallet key sees the links that take only its wallet; a business key every link of the business.
     */
    get: {
      parameters: {
        query?: {
          page?: number;
          limit?: number;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['PaymentLink'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
              meta: {
                currentPage: number;
                itemCount: number;
                itemsPerPage: number;
                totalItems: number;
                totalPages: number;
              };
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    /**
     * Create a payment link
     * @description A link takes payments in the USD stablecoins of the wallets it accepts (`accepts`, an extension; a wallet key defaults to its own wallet). `amount` blank: the payer chooses. `slug` unique on the installation (409 `SLUG_TAKEN`); default one made from the name. Send JSON, or `multipart/form-data` with an image `file` (PNG, JPEG, GIF or WebP, at most 1 MiB; shown on the page) and the other fields as text (`metadata`, `configurations` and `accepts` as JSON text).
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            name: string;
            description?: string;
            /** @description blank or absent: the payer chooses */
            amount?: string | '';
            /** @description key/value pairs (strings or numbers); in multipart, a JSON string */
            metadata?: {
              [key: string]: string | number;
            };
            /** @description settled payments the link takes, then it is inactive */
            paymentLimit?: number;
            /** @description an absolute http(s) URL that parses as one (e.g. not "http://[") */
            redirectUrl?: string;
            /** @description letters, digits and hyphens; unique on the installation */
            slug?: string;
            successMessage?: string;
            inactiveMessage?: string;
            configurations?: {
              /** @description how long a session waits for its payment (default 30) */
              expiresInMinutes?: number;
              /** @description how long after expiresAt a session still watches its address: late payments, confirmations (default 1440) */
              monitoringMinutes?: number;
              /** @description percent of the amount a payment may fall short of and still settle ("0" to "50", default "0") */
              underpaymentTolerance?: string;
            };
            /** @description extension: the wallets (and assets) the link takes; default the wallet key's own wallet */
            accepts?: {
              /** @description a wallet of the business */
              walletId: string;
              /** @description asset symbols or ids; default every enabled USD stablecoin of the wallet */
              assets?: string[];
            }[];
          };
          'multipart/form-data': {
            name: string;
            description?: string;
            /** @description blank or absent: the payer chooses */
            amount?: string | '';
            /** @description key/value pairs (strings or numbers); in multipart, a JSON string */
            metadata?: {
              [key: string]: string | number;
            };
            /** @description settled payments the link takes, then it is inactive */
            paymentLimit?: number;
            /** @description an absolute http(s) URL that parses as one (e.g. not "http://[") */
            redirectUrl?: string;
            /** @description letters, digits and hyphens; unique on the installation */
            slug?: string;
            successMessage?: string;
            inactiveMessage?: string;
            configurations?: {
              /** @description how long a session waits for its payment (default 30) */
              expiresInMinutes?: number;
              /** @description how long after expiresAt a session still watches its address: late payments, confirmations (default 1440) */
              monitoringMinutes?: number;
              /** @description percent of the amount a payment may fall short of and still settle ("0" to "50", default "0") */
              underpaymentTolerance?: string;
            };
            /** @description extension: the wallets (and assets) the link takes; default the wallet key's own wallet */
            accepts?: {
              /** @description a wallet of the business */
              walletId: string;
              /** @description asset symbols or ids; default every enabled USD stablecoin of the wallet */
              assets?: string[];
            }[];
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['PaymentLink'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/payment_links/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get a payment link */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description payment link id */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['PaymentLink'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /**
     * Update a payment link
     * @description `active: false` deactivates it (the page answers its `inactiveMessage`); any field of the link may change, `amount: ""` lets the payer choose. Send JSON, or `multipart/form-data` with an image `file` (PNG, JPEG, GIF or WebP, at most 1 MiB; shown on the page) and the other fields as text (`metadata`, `configurations` and `accepts` as JSON text).
     */
    patch: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description payment link id */
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            name?: string;
            description?: string;
            /** @description blank or absent: the payer chooses */
            amount?: string | '';
            /** @description key/value pairs (strings or numbers); in multipart, a JSON string; null: none */
            metadata?: {
              [key: string]: string | number;
            } | null;
            /** @description settled payments the link takes, then it is inactive; null: no limit */
            paymentLimit?: number | null;
            /** @description null: none (the success message is shown) */
            redirectUrl?: string | null;
            /** @description letters, digits and hyphens; unique on the installation */
            slug?: string;
            successMessage?: string;
            inactiveMessage?: string;
            configurations?: {
              /** @description how long a session waits for its payment (default 30) */
              expiresInMinutes?: number;
              /** @description how long after expiresAt a session still watches its address: late payments, confirmations (default 1440) */
              monitoringMinutes?: number;
              /** @description percent of the amount a payment may fall short of and still settle ("0" to "50", default "0") */
              underpaymentTolerance?: string;
            };
            active?: boolean;
          };
          'multipart/form-data': {
            name?: string;
            description?: string;
            /** @description blank or absent: the payer chooses */
            amount?: string | '';
            /** @description key/value pairs (strings or numbers); in multipart, a JSON string; null: none */
            metadata?: {
              [key: string]: string | number;
            } | null;
            /** @description settled payments the link takes, then it is inactive; null: no limit */
            paymentLimit?: number | null;
            /** @description null: none (the success message is shown) */
            redirectUrl?: string | null;
            /** @description letters, digits and hyphens; unique on the installation */
            slug?: string;
            successMessage?: string;
            inactiveMessage?: string;
            configurations?: {
              /** @description how long a session waits for its payment (default 30) */
              expiresInMinutes?: number;
              /** @description how long after expiresAt a session still watches its address: late payments, confirmations (default 1440) */
              monitoringMinutes?: number;
              /** @description percent of the amount a payment may fall short of and still settle ("0" to "50", default "0") */
              underpaymentTolerance?: string;
            };
            active?: boolean;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['PaymentLink'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    trace?: never;
  };
  '/v1/payment_links/{id}/checkouts': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List a payment link's checkout sessions
     * @description Extension. Newest first.
     */
    get: {
      parameters: {
        query?: {
          page?: number;
          limit?: number;
        };
        header?: never;
        path: {
          /** @description payment link id */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Checkout'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
              meta: {
                currentPage: number;
                itemCount: number;
                itemsPerPage: number;
                totalItems: number;
                totalPages: number;
              };
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    /**
     * Start a checkout session
     * @description Extension: what the page does when a payer opens the link, for a merchant that shows its own page. A dedicated child address on the chosen chain, the amount in the chosen asset (`amount` overrides the link's here), `expiresAt` and a monitoring window after it (docs/checkout.md). 422 `PAYMENT_LINK_INACTIVE` (with the link's `inactiveMessage`) once deactivated or at its `paymentLimit`.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description payment link id */
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description one of the wallets the link accepts; may be left out when it accepts one */
            walletId?: string;
            /** @description symbol or id; may be left out when one fits */
            asset?: string;
            /** @description decimal string more than 0, e.g. "100" or "12.5" */
            amount?: string;
            reference?: string;
            /** Format: email */
            email?: string;
            name?: string;
            /** @description an absolute http(s) URL that parses as one (e.g. not "http://[") */
            redirectUrl?: string;
            /** @description key/value pairs (strings or numbers); in multipart, a JSON string */
            metadata?: {
              [key: string]: string | number;
            };
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Checkout'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/checkouts/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get a checkout session
     * @description Extension. `status` new, processing, settled, expired or invalid, with `partial`, `overpaid` and `paidLate` (docs/checkout.md).
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description checkout id */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Checkout'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/aml/lookup': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Screen an address (AML lookup)
     * @description Screens an address against every list in force on the chain (docs/aml.md): the OFAC SDN list as imported (`aml import`), the stablecoin issuers' blacklists read on chain (Tether, Circle), the sanctions oracle, and any HTTP provider configured. Results are cached for a short time per (chain, address, provider). A bad address or an unknown blockchain is a 400 naming the field.
     */
    get: {
      parameters: {
        query: {
          /** @description the address to screen, in its chain's form */
          address: string;
          /** @description the blockchain's slug (GET /v1/blockchains); required unless the key is a wallet key or the route names a wallet */
          blockchain?: string;
          /** @description extension: which network of the blockchain, when both are configured (default mainnet) */
          network?: 'mainnet' | 'testnet';
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['AmlScreening'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/aml/lookup': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Screen an address on a wallet's chain
     * @description Screens an address against every list in force on the chain (docs/aml.md): the OFAC SDN list as imported (`aml import`), the stablecoin issuers' blacklists read on chain (Tether, Circle), the sanctions oracle, and any HTTP provider configured. Results are cached for a short time per (chain, address, provider). A bad address or an unknown blockchain is a 400 naming the field. Extension: the wallet names the chain (`blockchain`, if given, must be the wallet's).
     */
    get: {
      parameters: {
        query: {
          /** @description the address to screen, in its chain's form */
          address: string;
          /** @description the blockchain's slug (GET /v1/blockchains); required unless the key is a wallet key or the route names a wallet */
          blockchain?: string;
          /** @description extension: which network of the blockchain, when both are configured (default mainnet) */
          network?: 'mainnet' | 'testnet';
        };
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['AmlScreening'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/transactions/{transactionId}/aml/release': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Release a deposit held by AML screening
     * @description Extension. A deposit from a listed sender is credited but held (`amlScreening.held`): not swept, auto-settled or settled. An operator releases it (a business API key, or the dashboard): its screening keeps what was found, with `releasedAt` and `releasedBy`, the release is written to the audit log, and the deposit's sweep and settlements proceed. 409 NOT_HELD when it is not held.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
          /** @description deposit transaction id */
          transactionId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Transaction'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Events, oldest first, after a cursor
     * @description Extension. Every event the webhooks of the key's wallets carry (a business key: all its wallets), with the body's `event` and `data`, its latest delivery beside it, and its `cursor`. Read on with `after=meta.nextCursor`. Events are kept as long as the webhook log. An event appears once every transaction that started before it has ended, so nothing can appear behind a cursor already read.
     */
    get: {
      parameters: {
        query?: {
          /** @description a cursor: only events after it (default: from the oldest event) */
          after?: string;
          /** @description comma-separated event names to keep (default: every event): deposit.processing, deposit.success, deposit.failed, deposit.swept.success, deposit.swept.failed, withdraw.success, withdraw.failed, withdraw.pending_approval, withdraw.cancelled, signed.success, signed.failed, swap.success, swap.failed, custom-smart-contract.success, custom-smart-contract.failed, auto-settlement.success, auto-settlement.failed, salvage.success, salvage.failed, staking.success, staking.failed, unstaking.success, unstaking.failed, restaking.success, restaking.failed, unstaking.withdraw.success, unstaking.withdraw.failed, webhook.test, checkout.processing, checkout.partial, checkout.settled, checkout.expired, checkout.invalid, checkout.paid-late */
          types?: string;
          /** @description only this wallet's events (a business key; a wallet key may name its own wallet) */
          walletId?: string;
          limit?: number;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Event'][];
              message: string;
              /** @enum {number} */
              statusCode: 200;
              meta: {
                nextCursor: string | null;
                /** @description whether the page is full (more events may follow at once) */
                hasMore: boolean;
                itemCount: number;
              };
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/events/stream': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The same events, live (Server-Sent Events)
     * @description Extension. `text/event-stream`: one message per event (`id:` its cursor, `event:` its name, `data:` the Event as JSON), from now on, or after `after`, or after `Last-Event-ID` (what EventSource sends when it reconnects), so a reconnecting client misses nothing. A `: keep-alive` comment every 15 s. The server ends a stream with `event: stream.closed` and a `reason` (`shutdown`, `slow_reader` when the client reads too slowly, `key_revoked`, `error`). A limited number of open streams per API key and per business, per server (5 and 50 by default: EVENT_STREAMS_PER_KEY, EVENT_STREAMS_PER_BUSINESS; 429 `STREAM_LIMIT_REACHED` beyond).
     */
    get: {
      parameters: {
        query?: {
          /** @description a cursor: start after it (default: events from now on); Last-Event-ID wins */
          after?: string;
          /** @description comma-separated event names to keep (default: every event): deposit.processing, deposit.success, deposit.failed, deposit.swept.success, deposit.swept.failed, withdraw.success, withdraw.failed, withdraw.pending_approval, withdraw.cancelled, signed.success, signed.failed, swap.success, swap.failed, custom-smart-contract.success, custom-smart-contract.failed, auto-settlement.success, auto-settlement.failed, salvage.success, salvage.failed, staking.success, staking.failed, unstaking.success, unstaking.failed, restaking.success, restaking.failed, unstaking.withdraw.success, unstaking.withdraw.failed, webhook.test, checkout.processing, checkout.partial, checkout.settled, checkout.expired, checkout.invalid, checkout.paid-late */
          types?: string;
          /** @description only this wallet's events (a business key; a wallet key may name its own wallet) */
          walletId?: string;
        };
        header?: {
          /** @description resume after this cursor (what EventSource sends on reconnect) */
          'last-event-id'?: string;
        };
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description an endless text/event-stream */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'text/event-stream': string;
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/wallets/{walletId}/webhooks/trigger': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send a test event of any type
     * @description Extension. Writes an event of the given type with a realistic Transaction in `data` (the wallet's chain, network, master address and first enabled asset; a fresh id that is no stored transaction) and `"test": true` in the body. It reaches the event feed and its streams (`webhooks listen`) and, when the wallet has a webhook URL, a signed delivery through the normal pipeline (retries, log). Answers the Event. On a mainnet wallet only `webhook.test` is sent (422 `NOT_SUPPORTED` for other types): a signed test deposit reaching a production receiver that does not check `test` would be credited.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description master wallet id */
          walletId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description a webhook event name */
            event:
              | 'deposit.processing'
              | 'deposit.success'
              | 'deposit.failed'
              | 'deposit.swept.success'
              | 'deposit.swept.failed'
              | 'withdraw.success'
              | 'withdraw.failed'
              | 'withdraw.pending_approval'
              | 'withdraw.cancelled'
              | 'signed.success'
              | 'signed.failed'
              | 'swap.success'
              | 'swap.failed'
              | 'custom-smart-contract.success'
              | 'custom-smart-contract.failed'
              | 'auto-settlement.success'
              | 'auto-settlement.failed'
              | 'salvage.success'
              | 'salvage.failed'
              | 'staking.success'
              | 'staking.failed'
              | 'unstaking.success'
              | 'unstaking.failed'
              | 'restaking.success'
              | 'restaking.failed'
              | 'unstaking.withdraw.success'
              | 'unstaking.withdraw.failed'
              | 'webhook.test';
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: components['schemas']['Event'];
              message: string;
              /** @enum {number} */
              statusCode: 200;
            };
          };
        };
        /** @description Default Response */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
        /** @description Default Response */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ErrorBody'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    Blockchain: {
      id: string;
      name: string;
      slug: string;
      symbol: string;
      derivationPath: string;
      isActive: boolean;
      isEvmCompatible: boolean;
      isL2: boolean;
      logoUrl: string;
      tokenStandard: string | null;
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      updatedAt: string;
    };
    Asset: {
      id: string;
      name: string;
      symbol: string;
      /** @description token contract; the all-zero address is the native coin */
      address: string;
      decimals: number;
      standard: string | null;
      network: string;
      isActive: boolean;
      isNative: boolean;
      currency: string | null;
      logoUrl: string;
      blockchain: components['schemas']['Blockchain'];
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      updatedAt: string;
    };
    WalletConfigurations: {
      addresses: {
        isActive: boolean;
        prefunding: {
          isActive: boolean;
          rules: {
            [key: string]: unknown;
          }[];
        };
      };
      autoSettlement: {
        isActive: boolean;
        rules: {
          [key: string]: unknown;
        }[];
      };
      autoSweeping: {
        isActive: boolean;
        threshold: number;
      };
      withdrawal: {
        gasless: {
          isActive: boolean;
          operator: string;
          threshold: number;
        };
      };
      /** @description extension: contract writes (contracts/write and contracts/write/sign) on/off, and an allow-list of the contracts they may call (empty: any). A wallet API key may only restrict this; relaxing it needs the business API key. */
      contractWrites: {
        isActive: boolean;
        allowedContracts: string[];
      };
      /** @description extension: AML screening (docs/aml.md). `providers` (read-only): the lists screened on this chain. `onDepositHit`: a deposit from a listed sender is credited and HOLD (kept from sweeps and settlements until released) or FLAG (only marked). `onProviderFailure`: when a provider does not answer, payouts are refused (BLOCK, fail closed) or let through marked NOT_SCREENED (ALLOW). A wallet API key may only make these stricter. */
      aml: {
        /** @description the providers in force, comma-separated (as in amlScreening.provider) */
        provider: string;
        providers: string[];
        onDepositHit: 'HOLD' | 'FLAG';
        onProviderFailure: 'BLOCK' | 'ALLOW';
      };
    };
    Wallet: {
      id: string;
      name: string;
      description: string;
      /** @description master address (derivation index 0) */
      address: string;
      derivationPath: string;
      network: string;
      isActive: boolean;
      status: string;
      business: {
        id: string;
        name: string;
        /** Format: date-time */
        createdAt: string;
        /** Format: date-time */
        updatedAt: string;
      };
      configurations: components['schemas']['WalletConfigurations'];
      blockchain: components['schemas']['Blockchain'];
      /** @description extension: maximum number of child addresses */
      addressLimit: number;
      webhookUrl: string | null;
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      updatedAt: string;
    };
    Address: {
      id: string;
      address: string;
      name: string | null;
      metadata: {
        [key: string]: unknown;
      } | null;
      type: 'INTERNAL' | 'EXTERNAL';
      network: string;
      derivationPath: string | null;
      isActive: boolean;
      blockchain: components['schemas']['Blockchain'];
      configurations: {
        aml: {
          message: string;
          provider: string;
          status: string;
        };
        disableAutoSweep: boolean;
        enableGaslessWithdraw: boolean;
        /** @description whether this installation allows exporting the key */
        showPrivateKey: boolean;
        isActive: boolean;
      };
      /** @description only with showPrivateKey=true; hex, 0x-prefixed */
      privateKey?: string;
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      updatedAt: string;
    };
    WalletAsset: {
      id: string;
      asset: components['schemas']['Asset'];
      isActive: boolean;
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      updatedAt: string;
    };
    Balance: {
      asset: components['schemas']['WalletAsset'];
      /** @description decimal string in the asset unit */
      balance: string;
      convertedBalance: string | null;
    };
    Transaction: {
      id: string;
      reference: string;
      /** @description DEPOSIT, WITHDRAW, SALVAGE, SIGNED, CUSTOM_SMART_CONTRACT, SWAP, AUTO_SETTLEMENT, STAKING, UNSTAKING, RESTAKING, UNSTAKING_WITHDRAW */
      type: string;
      /** @description PENDING, SUCCESS, FAILED, CANCELLED; PENDING_APPROVAL while a policy holds a payout for approval (docs/policies.md) */
      status: string;
      confirmed: boolean;
      confirmations: number | null;
      amount: string | null;
      amountPaid: string | null;
      amountUSD: string | null;
      currency: string | null;
      rate: string | null;
      rateUSD: string | null;
      toAmount: string | null;
      toCurrency: string | null;
      toAsset: components['schemas']['Asset'] | null;
      toBlockchain: components['schemas']['Blockchain'] | null;
      fee: string | null;
      feeHash: string | null;
      feeMetadata: unknown | null;
      gasFee: string | null;
      gasPrice: string | null;
      gasUsed: string | null;
      hash: string | null;
      blockHash: string | null;
      blockNumber: number | null;
      chainId: number | null;
      senderAddress: string | null;
      recipientAddress: string | null;
      tokenAddress: string | null;
      note: string | null;
      reason: string | null;
      metadata: {
        [key: string]: unknown;
      } | null;
      network: string;
      createdChannel: string | null;
      signedTransaction: unknown | null;
      amlScreening: unknown | null;
      assetSwept: boolean;
      assetSweptAmount: string | null;
      assetSweptAt: string | null;
      assetSweptGasFee: string | null;
      assetSweptHash: string | null;
      assetSweptRecipientAddress: string | null;
      assetSweptSenderAddress: string | null;
      assetSweptResponse: unknown | null;
      asset: components['schemas']['Asset'] | null;
      blockchain: components['schemas']['Blockchain'];
      address: components['schemas']['Address'] | null;
      wallet: components['schemas']['Wallet'];
      response: unknown | null;
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      updatedAt: string;
    };
    AmlScreening: {
      address: string;
      blockchain: string;
      network: string;
      /** @description true when at least one list names the address */
      isBlacklisted: boolean;
      /** @description CLEAR: every provider answered, none lists it; FLAGGED: listed; NOT_SCREENED: a provider did not answer (or none is in force) */
      status: 'CLEAR' | 'FLAGGED' | 'NOT_SCREENED';
      /** @description the providers consulted, comma-separated ("ofac, tether, circle, sanctions-oracle") */
      provider: string;
      message: string;
      /** Format: date-time */
      checkedAt: string;
      /** @description the providers that list the address */
      lists: string[];
      /** @description the providers that did not answer */
      failed: string[];
    };
    WebhookLogEntry: {
      id: string;
      event: string;
      /** @description the event's data as delivered (a Transaction) */
      payload: unknown;
      reference: string;
      attempts: number;
      /** @description pending, success or failed */
      status: string;
      response: string | null;
      url: string;
      transactionId: string | null;
      lastStatusCode: number | null;
      lastAttemptAt: string | null;
      nextAttemptAt: string | null;
      /** @description extension: every attempt of this delivery */
      history: {
        attempt: number;
        /** Format: date-time */
        attemptedAt: string;
        statusCode: number | null;
        error: string | null;
        durationMs: number | null;
      }[];
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      updatedAt: string;
    };
    Beneficiary: {
      id: string;
      name: string;
      address: string;
      isActive: boolean;
      isDefault: boolean;
      isSettlement: boolean;
      /** @description when any beneficiary of the wallet is whitelisted, withdrawals go only to whitelisted ones */
      isWhitelisted: boolean;
      settlementFrequency: ('INSTANT' | 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY') | null;
      deletedAt: string | null;
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      updatedAt: string;
    };
    ApiKey: {
      id: string;
      name: string;
      /** @description the first characters of the key, to recognise it */
      prefix: string;
      scopes: ('READ_ONLY' | 'NO_KEY_EXPORT' | 'APPROVE' | 'MANAGE_POLICIES')[];
      rateLimit: number | null;
      /** Format: date-time */
      createdAt: string;
      lastUsedAt: string | null;
      revokedAt: string | null;
    };
    /** @description A transaction policy rule (docs/policies.md) */
    Policy: {
      id: string;
      name: string;
      /** @description lower first; ties: the older first */
      priority: number;
      walletId: string | null;
      addressId: string | null;
      isActive: boolean;
      /** @description all optional; a rule matches when every condition it has matches */
      conditions: {
        /** @description transaction types the rule applies to (absent: all); BATCH_ITEM is an item of a batch withdrawal */
        types?: ('WITHDRAW' | 'BATCH_ITEM' | 'SIGN_ONLY' | 'CONTRACT_WRITE' | 'SWAP' | 'SALVAGE' | 'AUTO_SETTLEMENT')[];
        /** @description asset symbols (any chain), e.g. ["USDC", "USDT"] */
        assets?: string[];
        /** @description the amount, in the asset or in USD; at least one bound */
        amount?: {
          /** @description inclusive lower bound */
          min?: string;
          /** @description inclusive upper bound */
          max?: string;
          /** @description ASSET: in the transaction's asset; USD: at the asset's USD rate (no rate: the condition does not match) */
          currency: 'ASSET' | 'USD';
        };
        /** @description matches when the payouts in the rolling window, this one included, exceed `limit` */
        velocity?: {
          measure: 'SUM' | 'COUNT';
          /** @description WALLET: the wallet's payouts; DESTINATION: what the business's wallets sent to this address */
          scope: 'WALLET' | 'DESTINATION';
          /** @description the rolling window, e.g. 86400 for 24 hours */
          windowSeconds: number;
          /** @description matches when the window with this transaction exceeds it: an amount (SUM) or a whole number (COUNT) */
          limit: string;
          /** @description ASSET: in the transaction's asset; USD: at the asset's USD rate (no rate: the condition does not match) */
          currency?: 'ASSET' | 'USD';
        };
        /** @description WHITELISTED, BENEFICIARY (whitelisted or not), NON_BENEFICIARY (none of the wallet's beneficiaries), ANY */
        destination?: 'WHITELISTED' | 'BENEFICIARY' | 'NON_BENEFICIARY' | 'ANY';
        /** @description who asked for the transaction: any of these */
        initiators?: {
          apiKeys?: string[];
          /** @description dashboard user ids */
          users?: string[];
          /** @description the service itself (auto-settlements) */
          system?: boolean;
        };
      };
      action: 'ALLOW' | 'BLOCK' | 'REQUIRE_APPROVAL';
      approval: {
        /** @description who may approve: anyone matching one of these */
        approvers: {
          /** @description dashboard roles; only owner, admin and approver can approve */
          roles?: ('owner' | 'admin' | 'approver' | 'developer' | 'viewer')[];
          /** @description dashboard user ids */
          users?: string[];
          /** @description business API keys with the APPROVE scope */
          apiKeys?: string[];
        };
        /** @description distinct approvals needed */
        quorum: number;
        /** @description unapproved after this long: CANCELLED */
        ttlSeconds: number;
      } | null;
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      updatedAt: string;
    };
    Approval: {
      id: string;
      status: 'PENDING' | 'APPROVED' | 'REJECTED' | 'EXPIRED' | 'CANCELLED';
      walletId: string;
      transaction: components['schemas']['Transaction'];
      policy: {
        id: string;
        name: string;
      };
      /** @description who may approve: anyone matching one of these */
      approvers: {
        /** @description dashboard roles; only owner, admin and approver can approve */
        roles?: ('owner' | 'admin' | 'approver' | 'developer' | 'viewer')[];
        /** @description dashboard user ids */
        users?: string[];
        /** @description business API keys with the APPROVE scope */
        apiKeys?: string[];
      };
      quorum: number;
      /** @description distinct approvals so far */
      approvals: number;
      initiator: {
        type: 'API_KEY' | 'USER' | 'SYSTEM';
        id: string | null;
        label: string;
      };
      votes: {
        voter: {
          type: 'API_KEY' | 'USER' | 'SYSTEM';
          id: string | null;
          label: string;
        };
        decision: 'APPROVE' | 'REJECT' | 'OVERRIDE';
        comment: string | null;
        /** Format: date-time */
        at: string;
      }[];
      reason: string | null;
      /** Format: date-time */
      expiresAt: string;
      /** Format: date-time */
      createdAt: string;
      decidedAt: string | null;
    };
    PaymentLink: {
      id: string;
      slug: string;
      /** @description the payer's page */
      url: string;
      name: string;
      description: string | null;
      amount: string | null;
      currency: string;
      /** @description false once deactivated or once paymentLimit settled payments were taken */
      active: boolean;
      network: string;
      /** @enum {string} */
      type: 'payment';
      createdChannel: string;
      configurations: {
        /** @description how long a session waits for its payment (default 30) */
        expiresInMinutes: number;
        /** @description how long after expiresAt a session still watches its address: late payments, confirmations (default 1440) */
        monitoringMinutes: number;
        /** @description percent of the amount a payment may fall short of and still settle ("0" to "50", default "0") */
        underpaymentTolerance: string;
      };
      imageUrl: string | null;
      metadata: {
        [key: string]: unknown;
      } | null;
      paymentLimit: number | null;
      /** @description settled sessions so far */
      payments: number;
      redirectUrl: string | null;
      successMessage: string | null;
      inactiveMessage: string | null;
      accepts: {
        walletId: string;
        blockchain: string;
        network: string;
        assetId: string;
        symbol: string;
      }[];
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      updatedAt: string;
    };
    Checkout: {
      id: string;
      paymentLinkId: string;
      /** @description the session's page */
      url: string;
      status: 'new' | 'processing' | 'settled' | 'expired' | 'invalid';
      /** @description paid in time but short of the amount (beyond the tolerance) */
      partial: boolean;
      /** @description more than the amount arrived */
      overpaid: boolean;
      /** @description a payment arrived after expiresAt (within the monitoring window) */
      paidLate: boolean;
      /** @description due, in the asset */
      amount: string;
      /** @description seen so far (pending or confirmed), in time or late */
      amountPaid: string;
      amountConfirmed: string;
      /** @description what is still missing of `amount` (0 when paid) */
      amountDue: string;
      /** @description the asset's symbol */
      currency: string;
      asset: {
        id: string;
        symbol: string;
        decimals: number;
        address: string;
      };
      blockchain: {
        slug: string;
        name: string;
      };
      network: string;
      walletId: string;
      /** @description the dedicated child address to pay */
      address: string;
      addressId: string;
      paymentUri: string | null;
      paymentReference: string | null;
      /** Format: date-time */
      expiresAt: string;
      /** Format: date-time */
      monitorUntil: string;
      reference: string | null;
      email: string | null;
      name: string | null;
      redirectUrl: string | null;
      metadata: {
        [key: string]: unknown;
      } | null;
      createdChannel: string;
      settledAt: string | null;
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      updatedAt: string;
    };
    /** @description the event's latest webhook delivery */
    EventDelivery: {
      /** @description the delivery id (the webhook-id header of its attempts) */
      id: string;
      /** @description pending, success or failed */
      status: string;
      attempts: number;
      lastStatusCode: number | null;
      lastAttemptAt: string | null;
      nextAttemptAt: string | null;
    };
    Event: {
      /** @description the event id */
      id: string;
      /** @description this position in the feed: pass it as `after` (or `Last-Event-ID`) to read what follows */
      cursor: string;
      /**
       * @description the event name, as in the webhook body
       * @enum {string}
       */
      event:
        | 'deposit.processing'
        | 'deposit.success'
        | 'deposit.failed'
        | 'deposit.swept.success'
        | 'deposit.swept.failed'
        | 'withdraw.success'
        | 'withdraw.failed'
        | 'withdraw.pending_approval'
        | 'withdraw.cancelled'
        | 'signed.success'
        | 'signed.failed'
        | 'swap.success'
        | 'swap.failed'
        | 'custom-smart-contract.success'
        | 'custom-smart-contract.failed'
        | 'auto-settlement.success'
        | 'auto-settlement.failed'
        | 'salvage.success'
        | 'salvage.failed'
        | 'staking.success'
        | 'staking.failed'
        | 'unstaking.success'
        | 'unstaking.failed'
        | 'restaking.success'
        | 'restaking.failed'
        | 'unstaking.withdraw.success'
        | 'unstaking.withdraw.failed'
        | 'webhook.test'
        | 'checkout.processing'
        | 'checkout.partial'
        | 'checkout.settled'
        | 'checkout.expired'
        | 'checkout.invalid'
        | 'checkout.paid-late';
      /** @description the webhook body's `data` (a Transaction; a checkout session for `checkout.*`), as it was when the event happened */
      data: unknown;
      /** @description a test event (POST .../webhooks/trigger), not something that happened */
      test: boolean;
      walletId: string;
      transactionId: string | null;
      reference: string;
      /** Format: date-time */
      createdAt: string;
      /** @description the latest webhook delivery of the event; null when the wallet had no webhook URL */
      delivery: components['schemas']['EventDelivery'] | null;
    };
    ErrorBody: {
      statusCode: number;
      message: string;
      /**
       * @description stable machine-readable code, e.g. VALIDATION_ERROR
       * @enum {string}
       */
      error:
        | 'VALIDATION_ERROR'
        | 'MALFORMED_JSON'
        | 'PAYLOAD_TOO_LARGE'
        | 'UNSUPPORTED_MEDIA_TYPE'
        | 'ROUTE_NOT_FOUND'
        | 'INTERNAL_ERROR'
        | 'CONCURRENT_UPDATE'
        | 'UNAUTHORIZED'
        | 'FORBIDDEN'
        | 'KEY_READ_ONLY'
        | 'KEY_EXPORT_NOT_ALLOWED'
        | 'KEY_RESTRICTED'
        | 'KEY_GRANT_NOT_ALLOWED'
        | 'APPROVER_KEY'
        | 'RATE_LIMITED'
        | 'AUTH_RATE_LIMITED'
        | 'STREAM_LIMIT_REACHED'
        | 'NOT_FOUND'
        | 'CHAIN_NOT_AVAILABLE'
        | 'ASSET_NOT_AVAILABLE'
        | 'ASSET_NOT_ENABLED'
        | 'ASSET_CHAIN_MISMATCH'
        | 'ASSET_DECIMALS_MISMATCH'
        | 'WALLET_INACTIVE'
        | 'ADDRESSES_DISABLED'
        | 'SLUG_TAKEN'
        | 'PAYMENT_LINK_INACTIVE'
        | 'ASSET_NOT_ACCEPTABLE'
        | 'ASSET_NOT_ACCEPTED'
        | 'LINK_NETWORKS_DIFFER'
        | 'ADDRESS_LIMIT_REACHED'
        | 'ADDRESS_EXISTS'
        | 'ADDRESS_NOT_EXTERNAL'
        | 'NOT_EXTERNAL'
        | 'KEY_IN_USE'
        | 'BENEFICIARY_EXISTS'
        | 'BENEFICIARY_NOT_SETTLING'
        | 'OWN_ADDRESS'
        | 'SAME_ADDRESS'
        | 'INSUFFICIENT_BALANCE'
        | 'NOT_WHITELISTED'
        | 'TRANSFER_WOULD_FAIL'
        | 'REFERENCE_IN_USE'
        | 'IDEMPOTENCY_KEY_REUSED'
        | 'NOT_YET_SENT'
        | 'NOT_RETRYABLE'
        | 'NOT_CANCELLABLE'
        | 'NOT_FINAL'
        | 'ALREADY_MINED'
        | 'ALREADY_CANCELLED'
        | 'CANCELLATION_PENDING'
        | 'TRY_AGAIN'
        | 'CHAIN_REJECTED'
        | 'AML_BLOCKED'
        | 'TRANSACTION_NOT_FOUND'
        | 'NO_DEPOSIT_FOUND'
        | 'BLOCK_NOT_FOUND'
        | 'NOT_A_DEPOSIT'
        | 'NOT_SWEEPABLE'
        | 'ALREADY_SWEPT'
        | 'DEPOSIT_NOT_CONFIRMED'
        | 'NOTHING_TO_SWEEP'
        | 'AML_HELD'
        | 'NOT_HELD'
        | 'FUNDS_IN_FLIGHT'
        | 'NO_EVENT'
        | 'WEBHOOK_URL_NOT_SET'
        | 'CONTRACT_WRITES_DISABLED'
        | 'CONTRACT_NOT_ALLOWED'
        | 'NOT_A_CONTRACT'
        | 'CONTRACT_REVERTED'
        | 'CONTRACT_CALL_FAILED'
        | 'INSUFFICIENT_FUNDS_FOR_GAS'
        | 'NOT_SUPPORTED'
        | 'TYPED_DATA_NOT_SUPPORTED'
        | 'MESSAGE_NAMES_SIGNER'
        | 'NO_PRIVATE_KEY'
        | 'SWAP_NOT_AVAILABLE'
        | 'CROSS_CHAIN_SWAP_NOT_SUPPORTED'
        | 'SLIPPAGE_EXCEEDED'
        | 'NO_SWAP_ROUTE'
        | 'QUOTE_USED'
        | 'SWAP_IN_PROGRESS'
        | 'SENDER_NOT_IN_WALLET'
        | 'SALVAGE_NOT_NEEDED'
        | 'SALVAGE_CHAIN_MISMATCH'
        | 'NOT_A_TOKEN'
        | 'RPC_URL_UNREACHABLE'
        | 'SALVAGE_IN_PROGRESS'
        | 'INSUFFICIENT_STAKE'
        | 'UNSTAKE_LIMIT_REACHED'
        | 'NOTHING_TO_RESTAKE'
        | 'NOTHING_TO_WITHDRAW'
        | 'POLICY_BLOCKED'
        | 'POLICY_MANAGEMENT_NOT_ALLOWED'
        | 'NOT_AN_APPROVER'
        | 'TWO_FACTOR_REQUIRED'
        | 'SELF_APPROVAL'
        | 'EMAIL_TAKEN'
        | 'ALREADY_VOTED'
        | 'APPROVAL_CLOSED'
        | 'APPROVAL_EXPIRED'
        | 'AWAITING_APPROVAL'
        | 'LAST_OWNER'
        | 'USER_EXISTS'
        | 'AML_UNAVAILABLE'
        | 'CHAIN_UNAVAILABLE'
        | 'DATABASE_BUSY';
      details?: {
        field: string;
        message: string;
      }[];
      requestId: string;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
