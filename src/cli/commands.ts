/**
 * The command table of the command line (`wallet-service`, src/main.ts runs it): the only
 * place that names the commands, with each one's usage and summary. Each command lives in its
 * own file of src/cli/, loaded only when that command runs: `help`, `--help` and a usage error
 * answer at once, and `migrate` or `audit-verify` load the database code, not the whole service.
 */
import type { Command, CommandTable } from './command.js';

type Run = (args: string[]) => Promise<number | void>;

/** A command whose body is imported when it runs. */
function command(usage: string, summary: string, load: () => Promise<Run>): Command {
  return { usage, summary, run: async (args) => (await load())(args) };
}

export const COMMANDS: CommandTable = {
  start: command(
    '[api] [worker] [indexer]',
    'run the given roles (default: all); embedded PostgreSQL and devnets when unconfigured',
    async () => (await import('./start.js')).start,
  ),
  migrate: command(
    '',
    'apply database migrations (needs only DATABASE_URL) and exit',
    async () => (await import('./migrate.js')).migrateDatabase,
  ),
  'create-business': command(
    '<business name>',
    'create a business and print its business API key (shown once)',
    async () => (await import('./create-business.js')).createBusiness,
  ),
  'dashboard-user': command(
    '--email <email> --business <business id or name>',
    'create a dashboard user or reset its password (password from DASHBOARD_PASSWORD or stdin)',
    async () => (await import('./dashboard-user.js')).dashboardUser,
  ),
  'api-key': command(
    'create|list|revoke --business <business id or name> …',
    "create, list or revoke a business's API keys (a new key is printed once)",
    async () => {
      const [{ apiKeyCommand }, { configAndLogger }] = await Promise.all([import('./api-keys.js'), import('./context.js')]);
      return (args) => {
        const { config, logger } = configAndLogger();
        return apiKeyCommand(config, logger, args);
      };
    },
  ),
  'rotate-master-key': command(
    '[--status]',
    'make the newest configured master key active and re-seal every secret under it (online, resumable)',
    async () => (await import('./rotate-master-key.js')).rotateMasterKeyCommand,
  ),
  'create-hsm-key': command(
    '[--label <label>]',
    'create the AES-256 master key inside the HSM (KEY_VAULT=pkcs11)',
    async () => (await import('./rotate-master-key.js')).createHsmKeyCommand,
  ),
  aml: command(
    'import <file> [--list <name>] | lists',
    "import an offline sanctions list (OFAC's SDN XML, or one address a line) or show the lists imported",
    async () => (await import('./aml.js')).amlCommand,
  ),
  'audit-verify': command(
    '[--anchor <head hash printed by an earlier run>]',
    "verify the audit log's hash chain; prints the head hash, or the first broken link (exit 1)",
    async () => (await import('./audit.js')).auditVerify,
  ),
};
