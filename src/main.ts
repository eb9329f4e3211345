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
 *   aml import <file> | aml lists    import an offline sanctions list (OFAC SDN XML), show the lists
 *   audit-verify [--anchor …]        verify the audit log's hash chain
 *   help                             list the commands
 *
 * The commands live in src/cli/; src/cli/commands.ts is the only place that names them.
 */
import { runCli } from './cli/command.js';
import { COMMANDS } from './cli/commands.js';
import { ALL_ROLES } from './roles/names.js';

await runCli(COMMANDS, process.argv.slice(2), ALL_ROLES);
