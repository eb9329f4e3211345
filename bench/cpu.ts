/**
 * CPU accounting from /proc (Linux), so every run can say how much of the machine was ours
 * and how much went to other work (other engineers' tests share these 2 cores).
 * Groups: this Node process (all its threads: the server, and autocannon when it runs
 * inline or in a worker thread), its children by kind (PostgreSQL, anvil, a load
 * generator child process), and the machine's total busy time.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const TICK_MS = 10; // USER_HZ = 100 on Linux

export type CpuGroup = 'node' | 'postgres' | 'anvil' | 'loadgen' | 'otherChildren' | 'machine';
export type CpuSnapshot = Record<CpuGroup, number>;

interface ProcStat {
  ppid: number;
  ticks: number;
  childTicks: number;
  cmd: string;
}

function procStat(pid: string): ProcStat | null {
  try {
    const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]), childTicks: Number(f[13]) + Number(f[14]), cmd };
  } catch {
    return null; // exited meanwhile, or not ours to read
  }
}

function machineBusyTicks(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal
  return f[0]! + f[1]! + f[2]! + f[5]! + f[6]! + f[7]!;
}

export function cpuSnapshot(): CpuSnapshot {
  const snap: CpuSnapshot = { node: 0, postgres: 0, anvil: 0, loadgen: 0, otherChildren: 0, machine: machineBusyTicks() };
  const all = new Map<number, ProcStat>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const s = procStat(entry);
    if (s) all.set(Number(entry), s);
  }
  const ours = (pid: number): boolean => {
    for (let p = pid, depth = 0; p > 1 && depth < 8; depth++) {
      if (p === process.pid) return true;
      p = all.get(p)?.ppid ?? 0;
    }
    return false;
  };
  for (const [pid, s] of all) {
    if (pid === process.pid) {
      snap.node += s.ticks;
      snap.loadgen += s.childTicks; // reaped children: the forked load generators
    } else if (ours(pid)) {
      if (s.cmd.includes('anvil')) snap.anvil += s.ticks;
      // With the backends that exited meanwhile (reaped by the postmaster: its children's
      // time), e.g. the sessions of an indexer process that closed its pool before the snapshot.
      else if (s.cmd.startsWith('postgres') || s.cmd.includes('/bin/postgres')) snap.postgres += s.ticks + s.childTicks;
      else if (s.cmd.includes('loadgen-child')) snap.loadgen += s.ticks;
      else snap.otherChildren += s.ticks;
    }
  }
  return snap;
}

export interface CpuShare {
  /** Percent of one core over the interval (the machine has 200% with 2 cores). */
  node: number;
  postgres: number;
  anvil: number;
  loadgen: number;
  /** Our other child processes (a benchmark's own worker or indexer process). */
  other: number;
  /** Busy time of everything outside this process tree: the noise. */
  foreign: number;
  machine: number;
  /** Event loop utilisation of the server's (main) thread, percent. */
  elu?: number;
}

export function cpuShare(before: CpuSnapshot, after: CpuSnapshot, wallMs: number): CpuShare {
  const pct = (k: CpuGroup) => ((after[k] - before[k]) * TICK_MS * 100) / wallMs;
  const mine = pct('node') + pct('postgres') + pct('anvil') + pct('loadgen') + pct('otherChildren');
  return {
    node: pct('node'),
    postgres: pct('postgres'),
    anvil: pct('anvil'),
    loadgen: pct('loadgen'),
    other: pct('otherChildren'),
    foreign: Math.max(0, pct('machine') - mine),
    machine: pct('machine'),
  };
}

/** Runs `fn` and reports the CPU split over its duration. */
export async function withCpu<T>(fn: () => Promise<T>): Promise<{ result: T; cpu: CpuShare }> {
  const before = cpuSnapshot();
  const elu = performance.eventLoopUtilization();
  const t = performance.now();
  const result = await fn();
  const wall = performance.now() - t;
  return { result, cpu: { ...cpuShare(before, cpuSnapshot(), wall), elu: performance.eventLoopUtilization(elu).utilization * 100 } };
}

export function fmtCpu(c: CpuShare): string {
  const r = (n: number) => n.toFixed(0);
  const elu = c.elu === undefined ? '' : ` (server loop busy ${r(c.elu)}%)`;
  return `cpu% node ${r(c.node)}${elu} pg ${r(c.postgres)} anvil ${r(c.anvil)}${c.loadgen >= 1 ? ` loadgen ${r(c.loadgen)}` : ''} | foreign ${r(c.foreign)}`;
}
