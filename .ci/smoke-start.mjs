// The README's `npm start` on whatever Node runs this script (.ci/run runs it once per
// supported Node.js): the embedded default comes up from an empty data directory (embedded
// PostgreSQL, the four devnets, the seeded business and wallets), answers requests, and a
// Ctrl-C (SIGINT to the whole process group, as a terminal sends it) stops it with exit code
// 0 and nothing left running. Plain JavaScript with no dependency: it runs before anything
// could be compiled. Usage: node .ci/smoke-start.mjs [checkout] (default: the current one).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const checkout = path.resolve(process.argv[2] ?? '.');
const START_MS = 180_000;
const STOP_MS = 60_000;
// Under the system temp directory: the embedded PostgreSQL's OS user must reach it.
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'wallet-smoke-'));

// Nothing from the outer environment configures the service: the embedded default, as on a
// fresh machine, but on free ports (a CI machine may run other things).
const env = {};
for (const [k, v] of Object.entries(process.env))
  if (!/^(DATABASE_URL|MASTER_KEY|CHAINS_FILE|PUBLIC_URL|HOST|PORT|HEALTH_PORT|DATA_DIR|LOG_LEVEL|DEVNET.*|RPC_.*|npm_.*)$/.test(k))
    env[k] = v;
Object.assign(env, { DATA_DIR: dataDir, PORT: '0', DEVNET_PORT: '0', LOG_LEVEL: 'warn' });

const child = spawn('npm', ['start'], { cwd: checkout, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
let out = '';
let err = '';
child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
let exit = null;
const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve((exit = { code, signal }))));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const groupAlive = () =>
  readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .some((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const [state, , pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        return state !== 'Z' && (Number(pgid) === child.pid || cmd.includes(dataDir));
      } catch {
        return false;
      }
    });

function fail(message) {
  console.error(`smoke (Node ${process.version}): ${message}\nstdout:\n${out.slice(-4000)}\nstderr:\n${err.slice(-4000)}`);
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    /* gone */
  }
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(1);
}

async function main() {
  const started = Date.now();
  for (const deadline = started + START_MS; !out.includes('Stop with Ctrl-C.'); await sleep(100)) {
    if (exit) fail(`npm start exited during start (${JSON.stringify(exit)})`);
    if (Date.now() > deadline) fail(`no "running" banner within ${START_MS} ms`);
  }
  const startedIn = Date.now() - started;
  const creds = JSON.parse(readFileSync(path.join(dataDir, 'credentials.json'), 'utf8'));
  const ready = await fetch(`${creds.baseUrl}/readyz`);
  if (ready.status !== 200) fail(`/readyz answered ${ready.status}`);
  // Every seeded wallet (one per devnet: two anvils, devnet-tron, devnet-solana) answers with its own key.
  if (creds.wallets.length !== 4) fail(`${creds.wallets.length} wallets in credentials.json, expected 4`);
  for (const w of creds.wallets) {
    const res = await fetch(`${creds.baseUrl}/v1/wallets/${w.id}`, { headers: { 'x-api-key': w.apiKey } });
    const body = await res.json();
    if (res.status !== 200 || body.data?.id !== w.id) fail(`GET /v1/wallets/${w.id} (${w.blockchain}) answered ${res.status}`);
  }
  // Ctrl-C: SIGINT to the foreground process group (npm, and the service below it).
  const stopping = Date.now();
  process.kill(-child.pid, 'SIGINT');
  const stopped = await Promise.race([exited, sleep(STOP_MS).then(() => null)]);
  if (!stopped) fail(`still running ${STOP_MS} ms after Ctrl-C`);
  if (stopped.code !== 0) fail(`exited with ${JSON.stringify(stopped)} after Ctrl-C`);
  for (const deadline = Date.now() + 10_000; groupAlive(); await sleep(100)) {
    if (Date.now() > deadline) fail('processes of the service (PostgreSQL, anvil) still run after it exited');
  }
  const stoppedIn = Date.now() - stopping;
  rmSync(dataDir, { recursive: true, force: true });
  const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
  console.log(
    `smoke (Node ${process.version}): npm start served in ${s(startedIn)}, answered, stopped on Ctrl-C with exit 0 in ${s(stoppedIn)}`,
  );
}

// process.exit: the exited child's process handle lingered for about a minute after 'exit'
// (seen on Node 24), keeping this script alive for nothing.
main().then(
  () => process.exit(0),
  (e) => fail(e.stack ?? String(e)),
);
