/** `create-business "<name>"`: creates a business and prints its business API key once. */
import { UsageError } from './command.js';
import { configAndLogger, withRuntime } from './context.js';

export async function createBusiness(args: string[]): Promise<number> {
  const name = args.join(' ').trim();
  if (!name) throw new UsageError('usage: create-business "<business name>"');
  const { config, logger } = configAndLogger();
  return withRuntime(config, logger, async (runtime) => {
    const { business, apiKey } = await runtime.services.businesses.create(name);
    process.stdout.write(`${JSON.stringify({ business, apiKey }, null, 2)}\nStore the API key now: it is not shown again.\n`);
    return 0;
  });
}
