/**
 * The command table of the command line (`wallet-service`, src/main.ts runs it): the only
 * place that names the commands. Each command lives in its own file of src/cli/.
 */
import type { CommandTable } from './command.js';
import { startCommand } from './start.js';
import { migrateCommand } from './migrate.js';
import { createBusinessCommand } from './create-business.js';
import { dashboardUserCommand } from './dashboard-user.js';
import { apiKeyCmd, createHsmKeyCmd, rotateMasterKeyCmd } from './more-commands.js';
import { amlCmd } from './aml.js';

export const COMMANDS: CommandTable = {
  start: startCommand,
  migrate: migrateCommand,
  'create-business': createBusinessCommand,
  'dashboard-user': dashboardUserCommand,
  'api-key': apiKeyCmd,
  'rotate-master-key': rotateMasterKeyCmd,
  'create-hsm-key': createHsmKeyCmd,
  aml: amlCmd,
};
