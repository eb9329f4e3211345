/**
 * `--business <id or name>` of the operator's commands (api-key, dashboard-user): the
 * business it names, or what to tell the operator. A name two businesses share names
 * neither (BusinessService.resolve): acting for the older one would give the other
 * customer's business a dashboard user or an API key.
 */
import type { BusinessView } from '../modules/businesses/service.js';
import type { Services } from '../services.js';

export async function businessOf(services: Services, ref: string): Promise<{ business: BusinessView } | { error: string }> {
  const r = await services.businesses.resolve(ref);
  if ('business' in r) return r;
  if ('ambiguous' in r) {
    return {
      error: `several businesses are named "${ref}" (${r.ambiguous.join(', ')}): give the id of the one you mean with --business <id>`,
    };
  }
  return { error: `no business "${ref}"; create one with: npm start -- create-business "<name>"` };
}
