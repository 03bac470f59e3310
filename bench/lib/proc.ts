// Readings of ANOTHER process from Linux's /proc, so a bench can watch a server it does not run in:
// resident memory (VmRSS, and VmHWM, the peak), CPU time (user + system), and a process's children.
// Each returns undefined (or []) when /proc is not there or the process is gone; nothing here throws.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcMemory {
  /** VmRSS: resident set size now, in bytes. */
  rss: number;
  /** VmHWM: the largest resident set size so far, in bytes. */
  peakRss: number;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** VmRSS and VmHWM of `pid` (bytes), from /proc/<pid>/status. */
export function memoryOf(pid: number): ProcMemory | undefined {
  const status = read(`/proc/${pid}/status`);
  if (!status) return undefined;
  const kib = (field: string) => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) * 1024 : undefined;
  };
  const rss = kib('VmRSS');
  const peakRss = kib('VmHWM');
  return rss === undefined || peakRss === undefined ? undefined : { rss, peakRss };
}

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
function statFields(pid: number): string[] | undefined {
  const stat = read(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  const end = stat.lastIndexOf(')');
  return end < 0 ? undefined : stat.slice(end + 2).split(' ');
}

/** CPU time `pid` has used so far (user + system), in ms. Resolution: one clock tick (10 ms at 100 Hz). */
export function cpuMsOf(pid: number): number | undefined {
  const fields = statFields(pid);
  // After the name: state(3) ppid(4) … utime(14) stime(15), numbered from 1 with pid and name as 1 and 2.
  const utime = Number(fields?.[11]);
  const stime = Number(fields?.[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return ((utime + stime) * 1000) / clockTicks();
}

/**
 * CPU time of `parent`, of its children now, and of the children it has already waited for (cutime and
 * cstime), in ms. The difference of two readings is what the whole tree used in between, also children
 * that started or ended meanwhile (PostgreSQL's postmaster reaps its backends and autovacuum workers).
 */
export function treeCpuMsOf(parent: number): number | undefined {
  const fields = statFields(parent);
  // utime(14), stime(15), cutime(16), cstime(17), numbered as in cpuMsOf: one read of the parent's stat.
  const ticks = Number(fields?.[11]) + Number(fields?.[12]) + Number(fields?.[13]) + Number(fields?.[14]);
  if (!Number.isFinite(ticks)) return undefined;
  return (ticks * 1000) / clockTicks() + cpuMsOfAll(childrenOf(parent));
}

/** Summed CPU time of several processes (those that are gone count 0), in ms. */
export function cpuMsOfAll(pids: readonly number[]): number {
  let total = 0;
  for (const pid of pids) total += cpuMsOf(pid) ?? 0;
  return total;
}

/** The direct children of `pid` (scans /proc; [] when there is no /proc). */
export function childrenOf(pid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const children: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (fields && Number(fields[1]) === pid) children.push(Number(entry));
  }
  return children;
}

/**
 * CPU time the whole machine has spent busy (everything but idle and iowait) and in total, summed over all
 * CPUs, in ms, from the first line of /proc/stat. The busy share of an interval, minus what the processes a
 * bench knows about used, is what OTHER processes took: the noise.
 */
export function machineCpuMs(): { busy: number; total: number } | undefined {
  const stat = read('/proc/stat');
  const line = stat?.split('\n', 1)[0];
  if (!line?.startsWith('cpu ')) return undefined;
  // user nice system idle iowait irq softirq steal (guest time is already inside user/nice)
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line.trim().split(/\s+/).slice(1).map(Number);
  const busy = user + nice + system + irq + softirq + steal;
  const toMs = 1000 / clockTicks();
  return { busy: busy * toMs, total: (busy + idle + iowait) * toMs };
}
