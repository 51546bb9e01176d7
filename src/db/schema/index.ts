// Every table of the service, one file each. drizzle-kit reads this file to generate migrations.
export * from './chain-blocks.ts';
export * from './chain-cursors.ts';
export * from './deposit-indices.ts';
export * from './deposits.ts';
export * from './events.ts';
export * from './forwards.ts';
export * from './idempotency-keys.ts';
export * from './keypairs.ts';
export * from './merchant-settings.ts';
export * from './merchants.ts';
export * from './payments.ts';
export * from './payout-wallets.ts';
export * from './sim-blocks.ts';
export * from './sim-transfers.ts';
export * from './webhook-attempts.ts';
export * from './webhook-deliveries.ts';
export * from './webhook-endpoints.ts';
