// Every table of the service, one file each. drizzle-kit reads this file to generate migrations.
export * from './deposit-index-counters.ts';
export * from './events.ts';
export * from './idempotency-keys.ts';
export * from './keypairs.ts';
export * from './merchants.ts';
export * from './payments.ts';
export * from './webhook-attempts.ts';
export * from './webhook-deliveries.ts';
export * from './webhook-endpoints.ts';
