/**
 * BENCH_HEAP_PROF=1: where a run allocates (V8 sampling heap profiler, counting objects the
 * GC has already freed too), printed as the top allocation sites.
 */
import { Session } from 'node:inspector/promises';
import { fmt } from './stats.js';

const MB = 1024 * 1024;

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

/**
 * BENCH_HEAP_PROF=1: where the first backfill run allocates (V8 sampling heap profiler,
 * counting objects the GC has already freed too), printed as the top allocation sites.
 */
export async function heapSampled<T>(
  enabled: boolean,
  log: (line: string) => void,
  fn: () => Promise<T>,
  what = 'the first backfill run',
): Promise<T> {
  if (!enabled) return fn();
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 16_384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  } as never);
  try {
    return await fn();
  } finally {
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: SamplingNode } };
    session.disconnect();
    const sites = new Map<string, number>();
    const walk = (n: SamplingNode, stack: string[]) => {
      const f = n.callFrame;
      const url = f.url.replace(/^.*node_modules\//, '').replace(/^.*\/work\/main\//, '');
      const here = `${f.functionName || '(anonymous)'} ${url}:${f.lineNumber + 1}`;
      const path = [...stack, here].slice(-(Number(process.env.HEAP_PROF_DEPTH) || 3));
      if (n.selfSize) sites.set(path.join(' < '), (sites.get(path.join(' < ')) ?? 0) + n.selfSize);
      for (const c of n.children) walk(c, path);
    };
    walk(profile.head, []);
    const total = [...sites.values()].reduce((a, b) => a + b, 0);
    log(`  allocation sampling of ${what}: ${fmt(total / MB, 0)} MB allocated in all; top sites (innermost last):`);
    for (const [site, bytes] of [...sites].sort((a, b) => b[1] - a[1]).slice(0, 25))
      log(`    ${fmt(bytes / MB, 1).padStart(6)} MB  ${site}`);
  }
}
