/**
 * The pipeline's strategy for a chain's ordering (strategy.ts): the one place that looks at
 * which kind of Sender a family has. Built once per chain and kept.
 */
import type { ChainHandle } from '../catalogue/service.js';
import { expiryOrdering } from './expiry-ordering.js';
import { nonceOrdering } from './nonce-ordering.js';
import type { OrderingStrategy } from './strategy.js';

const strategies = new WeakMap<ChainHandle['adapter']['sender'], OrderingStrategy>();

export function orderingOf(chain: ChainHandle): OrderingStrategy {
  const sender = chain.adapter.sender;
  let strategy = strategies.get(sender);
  if (!strategy) {
    strategy = sender.ordering === 'nonce' ? nonceOrdering(sender) : expiryOrdering(sender);
    strategies.set(sender, strategy);
  }
  return strategy;
}

export type { BroadcastOutcome, OrderingStrategy } from './strategy.js';
