// CPU time of the bench's processes, for the CPU a request costs each of them (cpu_ms_per_request).
import fs from 'node:fs';

/**
 * CPU milliseconds a process has used so far, user and system, from /proc/PID/stat (Linux; its clock ticks are
 * 10 ms, USER_HZ 100). This process's own is process.cpuUsage(), which is finer.
 */
export function cpuMs(pid: number): number {
  if (pid === process.pid) {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  }
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name, which may hold spaces and parentheses, start after its last parenthesis:
  // state is field 3, utime 14 and stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The CPU milliseconds of each named process now. */
export function cpuOf(processes: ReadonlyMap<string, number>): Record<string, number> {
  return Object.fromEntries([...processes].map(([name, pid]) => [name, cpuMs(pid)]));
}

/** What each process spent between two readings, per `units` (requests, or thousands of IDs), to 3 decimals. */
export function cpuPer(before: Record<string, number>, after: Record<string, number>, units: number): Record<string, number> {
  return Object.fromEntries(Object.keys(after).map((name) => [name, Number((((after[name] ?? 0) - (before[name] ?? 0)) / units).toFixed(3))]));
}
