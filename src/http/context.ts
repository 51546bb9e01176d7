import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import type { Services } from '../services.ts';
import type { makeAuth } from './auth.ts';
import type { RateLimitCheck } from './rate-limit.ts';

/** What every module's routes receive: the services, the auth hook factory and the config. */
export interface RouteContext {
  services: Services;
  requireAuth: ReturnType<typeof makeAuth>;
  config: Config;
  database: Database;
  /** The public checkout simulate's own limits: per client IP and per payment (SVC_CHECKOUT_SIMULATE_RATE_LIMIT). */
  checkoutSimulateLimit: RateLimitCheck;
  /** Payments made from the public page of a payment link: per client IP (SVC_PAYMENT_LINK_RATE_LIMIT). */
  paymentLinkLimit: RateLimitCheck;
}
