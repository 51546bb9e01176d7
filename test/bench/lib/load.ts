import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  headers?: Record<string, string>;
  method?: 'GET' | 'POST';
  body?: string;
  /** Seconds; the run always stops by itself after this. */
  duration: number;
  connections: number;
}

export interface LoadResult {
  /** Successful (2xx) responses per second over the whole run. */
  requestsPerSecond: number;
  p50: number;
  p99: number;
  mean: number;
  total: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

/** One bounded autocannon run against a server on this machine. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    headers: options.headers ?? {},
    ...(options.method === undefined ? {} : { method: options.method }),
    ...(options.body === undefined ? {} : { body: options.body }),
    duration: options.duration,
    connections: options.connections,
    timeout: 10,
  });
  return {
    requestsPerSecond: result['2xx'] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    mean: result.latency.mean,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/** Merges runs of the same target (e.g. the A and the second A of an A-B-B-A sequence). */
export function mergeLoads(results: readonly LoadResult[]): LoadResult {
  const sum = (pick: (r: LoadResult) => number) => results.reduce((total, r) => total + pick(r), 0);
  const mean = (pick: (r: LoadResult) => number) => sum(pick) / results.length;
  return {
    requestsPerSecond: mean((r) => r.requestsPerSecond),
    p50: mean((r) => r.p50),
    // The worse of the runs' p99: a tail that shows up in one half is a real tail.
    p99: Math.max(...results.map((r) => r.p99)),
    mean: mean((r) => r.mean),
    total: sum((r) => r.total),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
  };
}
