#!/usr/bin/env node
// A webhook receiver for trying the service locally: verifies each delivery with the SDK
// (both signature schemes, the timestamp window, the replay guard), answers 200, and prints
// what it got. Usage: node receiver.mjs [port]   (default 4000; WALLET_API_KEY or the
// profile's key of `wallet login` verifies x-service-signature, WEBHOOK_SECRET a whsec_ secret).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { verifyWebhook, WebhookVerificationError } from '@stablecoin-wallet/sdk/webhooks';

const port = Number(process.argv[2] ?? 4000);

function profileKey() {
  const file =
    process.env.WALLET_CONFIG ??
    path.join(process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'stablecoin-wallet', 'config.json');
  try {
    const config = JSON.parse(readFileSync(file, 'utf8'));
    return config.profiles[process.env.WALLET_PROFILE ?? config.defaultProfile ?? 'default']?.apiKey;
  } catch {
    return undefined;
  }
}

createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    // Read per request: `wallet login` may run after the receiver started.
    const apiKey = process.env.WALLET_API_KEY || profileKey(); // set but empty (as .env files leave it): the profile's
    const secret = process.env.WEBHOOK_SECRET;
    try {
      const { id, event, data } = verifyWebhook({
        body: Buffer.concat(chunks),
        headers: req.headers,
        ...(secret ? { secret } : {}),
        apiKey,
      });
      res.writeHead(200).end('ok');
      console.log(`receiver: verified ${event} ${data?.amount ?? ''} ${data?.asset?.symbol ?? ''} (webhook-id ${id})`);
    } catch (err) {
      res.writeHead(err instanceof WebhookVerificationError ? 401 : 400).end();
      console.log(`receiver: refused a request: ${err.message}`);
    }
  });
}).listen(port, '127.0.0.1', () => console.log(`receiver: listening on http://127.0.0.1:${port}/webhooks`));
