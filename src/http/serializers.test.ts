import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { describe, expect, it } from 'vitest';
import { referencedSchemas, sharedSerializerFactory } from './serializers.js';

const Asset = { $id: 'Asset', type: 'object', properties: { symbol: { type: 'string' }, decimals: { type: 'integer' } } };
const Blockchain = { $id: 'Blockchain', type: 'object', properties: { slug: { type: 'string' } } };
const Wallet = {
  $id: 'Wallet',
  type: 'object',
  properties: { id: { type: 'string' }, blockchain: { $ref: 'Blockchain#' }, assets: { type: 'array', items: { $ref: 'Asset#' } } },
};
const Unused = { $id: 'Unused', type: 'object', properties: { x: { type: 'string' } } };
const EXTERNALS = { Asset, Blockchain, Wallet, Unused };

const envelope = (data: unknown) => ({ type: 'object', properties: { data } });
const route = (schema: unknown, url = '/v1/x') => ({ schema, method: 'GET', url, httpStatus: '200' }) as never;

describe('referencedSchemas', () => {
  it('gives the shared schemas a schema refers to, through others too, and no other', () => {
    expect(referencedSchemas(envelope({ $ref: 'Wallet#' }), EXTERNALS)).toEqual({ Wallet, Blockchain, Asset });
    expect(referencedSchemas(envelope({ $ref: 'Asset#/properties/symbol' }), EXTERNALS)).toEqual({ Asset });
    expect(referencedSchemas(envelope({ type: 'string' }), EXTERNALS)).toEqual({});
  });

  it('gives them all when a reference names an id it does not know (the compile then reports it, as before)', () => {
    expect(referencedSchemas(envelope({ $ref: 'Nowhere#' }), EXTERNALS)).toBe(EXTERNALS);
  });
});

describe('sharedSerializerFactory', () => {
  const doc = {
    data: { id: 'w1', blockchain: { slug: 'eth', extra: 1 }, assets: [{ symbol: 'USDC', decimals: 6, extra: true }], extra: 'x' },
  };

  it('serialises exactly as fast-json-stringify given every shared schema', () => {
    const schema = envelope({ $ref: 'Wallet#' });
    const ours = sharedSerializerFactory()(EXTERNALS, {})(route(schema));
    const theirs = SerializerSelector()(EXTERNALS, {})(route(schema));
    expect(ours(doc)).toBe(theirs(doc));
    expect(JSON.parse(ours(doc))).toEqual({ data: { id: 'w1', blockchain: { slug: 'eth' }, assets: [{ symbol: 'USDC', decimals: 6 }] } });
  });

  it('compiles a schema of the same text once, and a different one apart', () => {
    const compile = sharedSerializerFactory()(EXTERNALS, {});
    const a = compile(route({ $ref: 'Asset#' }, '/v1/a'));
    expect(compile(route({ $ref: 'Asset#' }, '/v1/b'))).toBe(a);
    const b = compile(route({ $ref: 'Blockchain#' }, '/v1/c'));
    expect(b).not.toBe(a);
    expect(b({ slug: 'tron', symbol: 'TRX' })).toBe('{"slug":"tron"}');
  });

  it('still refuses a response schema that refers to an unknown id', () => {
    expect(() => sharedSerializerFactory()(EXTERNALS, {})(route({ $ref: 'Nowhere#' }))).toThrow();
  });
});
