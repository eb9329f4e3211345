/**
 * The swap vocabulary other modules share (auto-settlement rules store an order): kept
 * apart from service.ts so a pure module (autosettlements/rules.ts) imports it without
 * the service's dependencies.
 */

/** How a route is chosen among the quoted ones (quote.ts chooseRoute). */
export const ORDERS = ['FASTEST', 'CHEAPEST', 'RECOMMENDED', 'NO_SLIPPAGE'] as const;
export type Order = (typeof ORDERS)[number];
