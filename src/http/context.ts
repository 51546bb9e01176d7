import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import type { Services } from '../services.ts';
import type { makeAuth } from './auth.ts';

/** What every module's routes receive: the services, the auth hook factory and the config. */
export interface RouteContext {
  services: Services;
  requireAuth: ReturnType<typeof makeAuth>;
  config: Config;
  database: Database;
}
