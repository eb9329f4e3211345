/**
 * The SDK's types, generated from the service's OpenAPI document by openapi-typescript and
 * formatted as the repository formats code: src/generated/openapi.ts is this function's
 * output for the document the service serves at /openapi.json. test/sdk/generated-types.test.ts
 * regenerates it from a running service and fails on any difference (`npm run sdk:types`
 * rewrites the file).
 */
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import * as prettier from 'prettier';

export const GENERATED_FILE = fileURLToPath(new URL('../src/generated/openapi.ts', import.meta.url));

const HEADER =
  "/**\n * Generated from the service's /openapi.json by openapi-typescript (`npm run sdk:types`).\n" +
  " * Do not edit: change the routes' schemas and regenerate.\n */\n\n";

export async function generateTypes(document: unknown): Promise<string> {
  const ast = await openapiTS(document as OpenAPI3, { silent: true });
  const config = (await prettier.resolveConfig(GENERATED_FILE)) ?? {};
  return prettier.format(HEADER + astToString(ast), { ...config, filepath: GENERATED_FILE });
}
