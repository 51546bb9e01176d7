// Every table of the service, one file each. drizzle-kit reads this file to generate migrations.
export * from './keypairs.ts';
export * from './merchants.ts';
export * from './webhook-endpoints.ts';
