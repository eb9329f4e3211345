#!/usr/bin/env node
/**
 * The command line (`wallet-service`, `node dist/main.js`, `npm start -- …`):
 *
 *   start [api] [worker] [indexer]   the given roles (default all); embedded PostgreSQL and
 *                                    devnets when nothing is configured
 *   api | worker | indexer           short for start <role>
 *   migrate                          apply database migrations and exit
 *   create-business "<name>"         create a business, print its business API key once
 *   dashboard-user --email … --business …   create a dashboard user or reset its password
 *   api-key create|list|revoke …     a business's API keys
 *   rotate-master-key [--status]     re-seal every secret under the newest master key
 *   create-hsm-key [--label …]       create the master key inside the HSM
 *   audit-verify [--anchor …]        verify the audit log's hash chain
 *   approval list|show|approve|reject …   approval requests, voting as the key in WALLET_API_KEY
 *   help                             list the commands
 *
 * Each command lives in src/cli/; this table is the only place that names them.
 */
import { runCli, type CommandTable } from './cli/command.js';
import { startCommand } from './cli/start.js';
import { migrateCommand } from './cli/migrate.js';
import { createBusinessCommand } from './cli/create-business.js';
import { dashboardUserCommand } from './cli/dashboard-user.js';
import { apiKeyCmd, createHsmKeyCmd, rotateMasterKeyCmd } from './cli/more-commands.js';
import { auditVerifyCommand } from './cli/audit.js';
import { approvalCommand } from './cli/approvals.js';
import { ALL_ROLES } from './runtime.js';

const COMMANDS: CommandTable = {
  start: startCommand,
  migrate: migrateCommand,
  'create-business': createBusinessCommand,
  'dashboard-user': dashboardUserCommand,
  'api-key': apiKeyCmd,
  'rotate-master-key': rotateMasterKeyCmd,
  'create-hsm-key': createHsmKeyCmd,
  'audit-verify': auditVerifyCommand,
  approval: approvalCommand,
};

await runCli(COMMANDS, process.argv.slice(2), ALL_ROLES);
