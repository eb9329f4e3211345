import type { RequestOptions } from '../core/transport.js';
import { Resource } from './resource.js';

/** The blockchains this installation knows (`GET /v1/blockchains`). */
export class Blockchains extends Resource {
  list(opts?: RequestOptions) {
    return this.data('GET /v1/blockchains', {}, opts);
  }
}
