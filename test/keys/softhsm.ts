/**
 * A SoftHSM2 token of its own for a test file: a token directory in a temporary folder,
 * initialised with softhsm2-util. Null (and the tests say so and skip) when SoftHSM2 is not
 * installed: scripts/install-softhsm.sh installs it, .ci/run runs that script.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Pkcs11Settings } from '../../src/config/keys.js';

export const SOFTHSM_MODULE = process.env.SOFTHSM2_MODULE || '/usr/lib/softhsm/libsofthsm2.so';

function utilPresent(): boolean {
  try {
    execFileSync('softhsm2-util', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export const softhsmPresent = existsSync(SOFTHSM_MODULE) && utilPresent();

export interface TestToken {
  dir: string;
  conf: string;
  settings: Pkcs11Settings;
  /** The environment a child process needs to reach this token. */
  env: Record<string, string>;
}

/**
 * Creates the token and points this process's SoftHSM2 at it (SOFTHSM2_CONF is read when the
 * library initialises, so call this before anything opens the token).
 */
export function createTestToken(label = 'wallet-test'): TestToken {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wallet-softhsm-'));
  const conf = path.join(dir, 'softhsm2.conf');
  writeFileSync(conf, `directories.tokendir = ${dir}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  process.env.SOFTHSM2_CONF = conf;
  const pin = '246810';
  execFileSync('softhsm2-util', ['--init-token', '--free', '--label', label, '--pin', pin, '--so-pin', '13579'], {
    env: { ...process.env, SOFTHSM2_CONF: conf },
    stdio: 'ignore',
  });
  const pinFile = path.join(dir, 'pin');
  writeFileSync(pinFile, `${pin}\n`, { mode: 0o600 });
  return {
    dir,
    conf,
    settings: { module: SOFTHSM_MODULE, tokenLabel: label, slot: null, pin, keyLabel: 'wallet-master-key', previousKeyLabels: [] },
    env: {
      SOFTHSM2_CONF: conf,
      KEY_VAULT: 'pkcs11',
      PKCS11_MODULE: SOFTHSM_MODULE,
      PKCS11_TOKEN_LABEL: label,
      PKCS11_PIN_FILE: pinFile,
    },
  };
}
