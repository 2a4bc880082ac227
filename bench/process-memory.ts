import { readFile } from 'node:fs/promises';

/** The pid and its descendants, parents first (Linux: /proc/<pid>/task/<pid>/children). */
export async function processTree(pid: number): Promise<number[]> {
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8');
  const children = text.split(/\s+/).filter(Boolean).map(Number);
  const below = await Promise.all(children.map(processTree));
  return [pid, ...below.flat()];
}

/** utime + stime of a process (all its threads), from /proc/<pid>/stat, in ms (Linux clock ticks are 10 ms). */
export async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name start at field 3 (state); utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Resident memory of one process (VmRSS in /proc/<pid>/status), in MiB. */
export async function residentMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  if (!kb) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(kb) / 1024;
}
