#!/usr/bin/env node
// The `wallet` command: the built CLI (npm run build in this package; the repository's
// `npm install` builds it). A launcher rather than the built file itself, so package
// managers can link the command before the build has run.
import('../dist/esm/cli/main.js').catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/esm/cli/main.js')) {
    process.stderr.write('wallet: the SDK is not built yet; run `npm run build -w @stablecoin-wallet/sdk`\n');
    process.exit(1);
  }
  throw err;
});
