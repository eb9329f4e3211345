/**
 * deploy/ is checked against the real program, not read by eye:
 * - every Kubernetes manifest parses; Deployments, Service, PodDisruptionBudget and Job fit
 *   together (selectors, named ports, probe ports = the ports the process listens on, a grace
 *   period longer than the shutdown bound, the migration Job without the master key);
 * - every environment variable they (and the systemd environment file) set is one the
 *   configuration really reads (recorded while loadConfig reads the manifest's environment);
 * - every command they name is run with the built CLI and that environment (secrets, chains
 *   file and ports swapped for the test's): roles start, answer their probes and stop with
 *   exit code 0 on SIGTERM; migrations run;
 * - the systemd units pass `systemd-analyze verify` (where installed) and their ExecStart
 *   lines run the same way; the Dockerfile builds on the newest Node LTS (the one .ci/run tests
 *   the whole suite on), its entry point is the CLI and it copies what exists.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/configuration.js';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../support/build.js';
import { bannerUrl, builtCli, killAll, ROOT, runToEnd, terminate, waitForBanner } from '../support/cli.js';
import { startInstallation, type Installation } from '../support/installation.js';

const semver = createRequire(import.meta.url)('semver') as { satisfies(version: string, range: string): boolean };
const K8S = path.join(ROOT, 'deploy/kubernetes');
const SYSTEMD = path.join(ROOT, 'deploy/systemd');
const ROLES = ['api', 'worker', 'indexer'];
/** What `migrate` reads (it never loads the full configuration). */
const MIGRATE_SETTINGS = ['DATABASE_URL', 'LOG_LEVEL'];

type Doc = Record<string, any>;
let inst: Installation;
let docs: { file: string; doc: Doc }[];

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);

beforeAll(async () => {
  inst = await startInstallation({ specs: undefined });
  docs = readdirSync(K8S)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((file) =>
      parseAllDocuments(readFileSync(path.join(K8S, file), 'utf8')).map((d) => {
        if (d.errors.length) throw new Error(`${file}: ${d.errors.map((e) => e.message).join('; ')}`);
        return { file, doc: d.toJS() as Doc };
      }),
    );
});
afterAll(async () => {
  await killAll();
  await inst?.stop();
});

const kind = (k: string) => docs.filter((d) => d.doc.kind === k).map((d) => d.doc);
const secretKeys = () => Object.keys(kind('Secret')[0]!.stringData);

/** Settings loadConfig reads from this environment (it must also accept their values). */
function settingsRead(env: NodeJS.ProcessEnv): Set<string> {
  const read = new Set<string>();
  const recorder = new Proxy(env, {
    get(target, key) {
      if (typeof key === 'string') read.add(key);
      return target[key as string];
    },
  });
  loadConfig(recorder);
  return read;
}

/** The container's environment with the test's database, key, chains file and free ports. */
function runnableEnv(names: Record<string, string>): NodeJS.ProcessEnv {
  const swapped: Record<string, string> = {
    ...names,
    ...(names.DATABASE_URL ? { DATABASE_URL: inst.databaseUrl } : {}),
    // Every process on one database holds its master key (a start with another is refused).
    ...(names.MASTER_KEY ? { MASTER_KEY: inst.masterKey } : {}),
    ...(names.CHAINS_FILE ? { CHAINS_FILE: inst.chainsFile } : {}),
    ...(names.PORT ? { PORT: '0' } : {}),
    ...(names.HEALTH_PORT ? { HEALTH_PORT: '0' } : {}),
    ...(names.HOST ? { HOST: '127.0.0.1' } : {}),
  };
  // The banner would name the public URL; the test only ever talks to loopback.
  delete swapped.PUBLIC_URL;
  return { ...inst.env({ DATABASE_URL: undefined, MASTER_KEY: undefined, CHAINS_FILE: undefined, PORT: undefined }), ...swapped };
}

/** Starts `args` with the built CLI, checks its probes, stops it with SIGTERM within `graceMs`. */
async function runRole(args: string[], env: NodeJS.ProcessEnv, probes: { liveness: string; readiness: string }, graceMs: number) {
  const proc = builtCli(args, env);
  const banner = await waitForBanner(proc);
  const base = (bannerUrl(banner, 'Health') ?? bannerUrl(banner, 'API'))!.replace(/\/(healthz|v1)$/, '');
  expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect((await fetch(`${base}${probes.liveness}`)).status).toBe(200);
  const ready = await fetch(`${base}${probes.readiness}`);
  expect(ready.status, await ready.text()).toBe(200);
  const started = Date.now();
  expect(await terminate(proc, { ms: graceMs })).toEqual({ code: 0, signal: null });
  expect(Date.now() - started).toBeLessThan(graceMs);
}

describe('Kubernetes manifests', () => {
  it('parse, and kustomization lists every manifest but the secret example', () => {
    const kustomization = kind('Kustomization')[0]!;
    const listed = [...(kustomization.resources as string[])].sort();
    expect(listed).toEqual(
      readdirSync(K8S)
        .filter((f) => f.endsWith('.yaml') && !['kustomization.yaml', 'secret.example.yaml'].includes(f))
        .sort(),
    );
    expect(
      kind('Deployment')
        .map((d) => d.spec.template.spec.containers[0].args[1])
        .sort(),
    ).toEqual([...ROLES].sort());
  });

  it('Deployments, Service, PodDisruptionBudget and Job fit together and name real settings', () => {
    for (const d of kind('Deployment')) {
      const spec = d.spec.template.spec;
      const labels = d.spec.template.metadata.labels;
      expect(d.spec.selector.matchLabels).toEqual(labels);
      expect(spec.containers).toHaveLength(1);
      const c = spec.containers[0];
      expect(c.command).toEqual(['node', 'dist/main.js']);
      expect(c.args[0]).toBe('start');
      const role = c.args[1];
      expect(ROLES).toContain(role);
      const env = Object.fromEntries((c.env as { name: string; value: string }[]).map((e) => [e.name, String(e.value)]));
      expect(c.envFrom).toEqual([{ secretRef: { name: kind('Secret')[0]!.metadata.name } }]);
      // The probes are on the port the process listens on: PORT for the API, HEALTH_PORT otherwise.
      const listens = Number(role === 'api' ? env.PORT : env.HEALTH_PORT);
      const portOf = (name: string | number) =>
        typeof name === 'number' ? name : c.ports.find((p: Doc) => p.name === name)?.containerPort;
      for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
        expect(portOf(c[probe].httpGet.port), `${role} ${probe}`).toBe(listens);
        expect(c[probe].httpGet.path, `${role} ${probe}`).toBe(probe === 'readinessProbe' ? '/readyz' : '/healthz');
      }
      // Long enough for the bounded stop (cli/start.ts: SHUTDOWN_TIMEOUT_MS + 15 s) and a preStop pause.
      const preStop = Number(c.lifecycle?.preStop?.exec?.command?.[1] ?? 0);
      expect(spec.terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(Number(env.SHUTDOWN_TIMEOUT_MS) + 15_000 + preStop * 1000);
      // The chains file is where CHAINS_FILE says, from the ConfigMap's key.
      const mount = c.volumeMounts.find((m: Doc) => env.CHAINS_FILE!.startsWith(`${m.mountPath}/`));
      const volume = spec.volumes.find((v: Doc) => v.name === mount.name);
      const configMap = kind('ConfigMap').find((m) => m.metadata.name === volume.configMap.name)!;
      expect(Object.keys(configMap.data)).toContain(path.basename(env.CHAINS_FILE!));
      expect(JSON.parse(configMap.data[path.basename(env.CHAINS_FILE!)]).chains.length).toBeGreaterThan(0);
      // Every variable set is a setting the configuration reads.
      const names = { ...Object.fromEntries(secretKeys().map((k) => [k, 'x'])), ...env };
      const read = settingsRead({ ...runnableEnv(names), ...(env.PUBLIC_URL ? { PUBLIC_URL: env.PUBLIC_URL } : {}) });
      for (const name of Object.keys(names)) expect(read.has(name), `${role}: ${name} is not a setting`).toBe(true);
    }
    const [service] = kind('Service');
    const api = kind('Deployment').find((d) => d.spec.template.spec.containers[0].args[1] === 'api')!;
    expect(api.spec.template.metadata.labels).toMatchObject(service!.spec.selector);
    expect(api.spec.template.spec.containers[0].ports.map((p: Doc) => p.name)).toContain(service!.spec.ports[0].targetPort);
    const [pdb] = kind('PodDisruptionBudget');
    const indexer = kind('Deployment').find((d) => d.spec.template.spec.containers[0].args[1] === 'indexer')!;
    expect(pdb!.spec.selector.matchLabels).toEqual(indexer.spec.selector.matchLabels);
    expect(indexer.spec.replicas).toBeGreaterThanOrEqual(2);
    const job = kind('Job')[0]!.spec.template.spec.containers[0];
    expect(job.args).toEqual(['migrate']);
    expect(job.env.map((e: Doc) => e.name)).toEqual(['DATABASE_URL']); // never the master key
    for (const e of job.env) expect(MIGRATE_SETTINGS).toContain(e.name);
  });

  it(
    'their commands run: each role starts, answers its probes and stops on SIGTERM with exit 0; the Job migrates',
    { timeout: 240_000 },
    async () => {
      const job = kind('Job')[0]!.spec.template.spec.containers[0];
      const migrated = await runToEnd(builtCli(job.args, runnableEnv({ DATABASE_URL: 'x' })));
      expect(migrated.code, migrated.stderr).toBe(0);
      for (const d of kind('Deployment')) {
        const spec = d.spec.template.spec;
        const c = spec.containers[0];
        const env = Object.fromEntries((c.env as { name: string; value: string }[]).map((e) => [e.name, String(e.value)]));
        await runRole(
          c.args,
          runnableEnv({ ...Object.fromEntries(secretKeys().map((k) => [k, 'x'])), ...env }),
          { liveness: c.livenessProbe.httpGet.path, readiness: c.readinessProbe.httpGet.path },
          spec.terminationGracePeriodSeconds * 1000,
        );
      }
    },
  );
});

describe('systemd units', () => {
  const unit = (name: string) => {
    const sections: Record<string, Record<string, string[]>> = {};
    let current = '';
    for (const raw of readFileSync(path.join(SYSTEMD, name), 'utf8').split('\n')) {
      const line = raw.trim();
      if (!line || line.startsWith('#')) continue;
      const section = /^\[(.+)\]$/.exec(line);
      if (section) sections[(current = section[1]!)] = {};
      else {
        const [key, ...value] = line.split('=');
        ((sections[current]![key!] ??= []) as string[]).push(value.join('='));
      }
    }
    return sections;
  };
  const envExample = () =>
    Object.fromEntries(
      readFileSync(path.join(SYSTEMD, 'wallet-service.env.example'), 'utf8')
        .split('\n')
        .filter((l) => l && !l.startsWith('#'))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
  /** ExecStart as it runs here: the built CLI of this checkout instead of /opt/wallet-service. */
  const cliArgs = (execStart: string, instance: string) => {
    const [node, script, ...args] = execStart.replace(/%i/g, instance).split(/\s+/);
    expect(node).toBe('/usr/bin/node');
    expect(script).toBe('/opt/wallet-service/dist/main.js');
    return args;
  };

  it('pass systemd-analyze verify and name only real settings', async () => {
    const read = settingsRead({ ...runnableEnv(envExample()), PUBLIC_URL: envExample().PUBLIC_URL });
    for (const name of Object.keys(envExample())) expect(read.has(name), `${name} is not a setting`).toBe(true);
    const analyze = spawnSync('systemd-analyze', ['--version']);
    if (analyze.error) return console.warn('systemd-analyze is not installed: unit syntax not verified');
    const dir = await mkdtemp(path.join(os.tmpdir(), 'wallet-units-'));
    try {
      for (const name of readdirSync(SYSTEMD).filter((f) => f.endsWith('.service'))) {
        const text = readFileSync(path.join(SYSTEMD, name), 'utf8')
          .replaceAll('/opt/wallet-service', ROOT)
          .replaceAll('/etc/wallet-service', dir);
        await writeFile(path.join(dir, name.replace('@.', '@api.')), text);
      }
      await writeFile(path.join(dir, 'wallet-service.env'), readFileSync(path.join(SYSTEMD, 'wallet-service.env.example')));
      const units = readdirSync(dir).filter((f) => f.endsWith('.service'));
      const out = spawnSync('systemd-analyze', ['verify', '--man=no', ...units.map((u) => path.join(dir, u))], { encoding: 'utf8' });
      expect(out.status, out.stderr).toBe(0);
      expect(out.stderr.trim()).toBe(''); // no unknown keys, no bad values
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it(
    'their ExecStart lines run: migrate, then each role starts and stops on SIGTERM with exit 0 within TimeoutStopSec',
    { timeout: 240_000 },
    async () => {
      const env = runnableEnv({ ...envExample(), HEALTH_PORT: '0' });
      const migrate = unit('wallet-service-migrate.service');
      const migrated = await runToEnd(builtCli(cliArgs(migrate.Service!.ExecStart![0]!, ''), env));
      expect(migrated.code, migrated.stderr).toBe(0);
      const role = unit('wallet-service@.service');
      expect(role.Unit!.Requires).toEqual(['wallet-service-migrate.service']);
      const stopSec = Number(role.Service!.TimeoutStopSec![0]);
      expect(stopSec * 1000).toBeGreaterThanOrEqual(Number(env.SHUTDOWN_TIMEOUT_MS) + 15_000);
      for (const instance of ROLES) {
        await runRole(cliArgs(role.Service!.ExecStart![0]!, instance), env, { liveness: '/healthz', readiness: '/readyz' }, stopSec * 1000);
      }
    },
  );
});

describe('Dockerfile', () => {
  it('builds and runs on the newest Node LTS, the one CI runs the whole suite on', () => {
    const text = readFileSync(path.join(ROOT, 'deploy/Dockerfile'), 'utf8');
    const majors = [...text.matchAll(/^FROM node:(\d+)-/gm)].map((m) => Number(m[1]));
    expect(majors).toHaveLength(2); // the build stage and the image
    const newest = Number(/^NEWEST_LTS=(\d+)$/m.exec(readFileSync(path.join(ROOT, '.ci/run'), 'utf8'))?.[1]);
    expect(majors).toEqual([newest, newest]);
    expect(newest % 2, 'LTS releases are the even majors').toBe(0);
    const engines = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    expect(semver.satisfies(`${newest}.0.0`, engines), `engines ${engines}`).toBe(true);
  });

  it('runs the CLI and copies only what exists', () => {
    const text = readFileSync(path.join(ROOT, 'deploy/Dockerfile'), 'utf8');
    expect(/^ENTRYPOINT (.+)$/m.exec(text)?.[1]).toBe('["node", "dist/main.js"]');
    const cmd = JSON.parse(/^CMD (.+)$/m.exec(text)![1]!) as string[];
    const help = execFileSync(process.execPath, [path.join(ROOT, 'dist/main.js'), 'help'], { encoding: 'utf8' });
    expect(help).toMatch(new RegExp(`^  ${cmd[0]}\\b`, 'm'));
    for (const [, from] of text.matchAll(/^COPY (?!--from)(.+) \S+$/gm)) {
      for (const f of from!.split(' ')) expect(existsSync(path.join(ROOT, f)), f).toBe(true);
    }
  });
});
