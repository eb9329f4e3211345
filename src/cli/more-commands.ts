/**
 * Commands whose bodies live in their areas' files (src/cli/api-keys.ts,
 * src/cli/rotate-master-key.ts), given the shape the command table (commands.ts) holds. Each one reports its
 * own refusals on stderr and sets process.exitCode; a thrown error goes to runCli.
 */
import { apiKeyCommand } from './api-keys.js';
import { configAndLogger, type Command } from './command.js';
import { createHsmKeyCommand, rotateMasterKeyCommand } from './rotate-master-key.js';

export const apiKeyCmd: Command = {
  usage: 'create|list|revoke --business <business id or name> …',
  summary: "create, list or revoke a business's API keys (a new key is printed once)",
  async run(args) {
    const { config, logger } = configAndLogger();
    await apiKeyCommand(config, logger, args);
  },
};

export const rotateMasterKeyCmd: Command = {
  usage: '[--status]',
  summary: 'make the newest configured master key active and re-seal every secret under it (online, resumable)',
  run: (args) => rotateMasterKeyCommand(args),
};

export const createHsmKeyCmd: Command = {
  usage: '[--label <label>]',
  summary: 'create the AES-256 master key inside the HSM (KEY_VAULT=pkcs11)',
  run: (args) => createHsmKeyCommand(args),
};
