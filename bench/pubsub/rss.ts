import { readFileSync } from 'node:fs';

/**
 * Another process's memory as the kernel counts it (/proc/<pid>/status): the resident set now
 * (VmRSS) and its high-water mark (VmHWM), which catches peaks between two samples.
 */

export interface Rss {
  rss: number;
  peak: number;
}

const kilobytes = (status: string, field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;

export function rssOf(pid: number): Rss {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return { rss: kilobytes(status, 'VmRSS'), peak: kilobytes(status, 'VmHWM') };
  } catch {
    return { rss: Number.NaN, peak: Number.NaN };
  }
}
