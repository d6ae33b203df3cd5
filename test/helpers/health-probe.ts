// /healthz asked from outside at a fixed rate while something runs: how long the service's event loop kept
// other requests waiting (the stall tests of issues 27 and 28).

export interface HealthSamples {
  /** Each probe's time, ascending. */
  latencies: number[];
  /** Probes refused, reset or answered other than 200 (timed like the others). */
  failures: number;
}

/** Starts probing `url` + /healthz every `everyMs` (the sampling rate, not a wait for background work). */
export function startHealthProbe(url: string, everyMs: number): { stop(): Promise<HealthSamples> } {
  const latencies: number[] = [];
  let failures = 0;
  let running = true;
  const probe = (async () => {
    while (running) {
      const start = performance.now();
      const ok = await fetch(`${url}/healthz`).then(
        async (r) => (await r.arrayBuffer(), r.status === 200),
        () => false,
      );
      latencies.push(performance.now() - start);
      if (!ok) failures++;
      await new Promise((res) => setTimeout(res, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await probe;
      return { latencies: latencies.sort((a, b) => a - b), failures };
    },
  };
}

/** The `q` quantile (0..1) of ascending samples. */
export const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;
