/**
 * Every goal `npm run bench -- --strict` holds the program to, in one place: issue 22's (performance) where it set
 * one, earlier issues' otherwise. Ratios are ours / the bare baseline measured in the same run, unless the name says
 * the baseline is a budget (an absolute goal: its "baseline" column is the budget, not a measurement).
 */
export const goals = {
  /** Authenticated reads by id (GET /v1/webhooks/{id}, GET /v1/payments/{id}): requests/s ≥ 0.8× bare. */
  authenticatedGet: 0.8,
  /** POST /v1/payments: requests/s ≥ 0.8× a bare INSERT route, and its p99 within 100 ms at the bench's load. */
  paymentsPost: 0.8,
  paymentsPostP99Ms: 100,
  /** The public checkout read: requests/s ≥ 0.9× a bare primary-key SELECT route. */
  checkoutGet: 0.9,
  /** Webhook deliveries/s ≥ 0.8× the bare claim→sign→POST→mark loop; commit→receipt p99 ≤ 20 ms at 1,000/s. */
  webhookDeliveries: 0.8,
  webhookP99Ms: 20,
  /** The live event stream (issue 19): commit→stream p99 ≤ 50 ms. */
  eventStreamP99Ms: 50,
  /** The watcher committing a 1,000-deposit block among 100,000 open payments, per engine. */
  watcherTransitionsPerSecond: { postgres: 10_000, pglite: 5_000 },
  watcherRssGrowthMb: 100,
  /** Every chain family's scanner: its own time per block ≤ 0.1× the node's work serving that block. */
  scannerOwnTime: 0.1,
  /** Start to /readyz: a restart ≤ 1.2× a bare PGlite start on the same kind of data directory; a first start ≤ 1.5×. */
  restart: 1.2,
  firstStart: 1.5,
} as const;
