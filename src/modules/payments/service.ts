import type { Db } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ConfirmationsOf } from '../chains/confirmations.ts';
import type { AddressDeriver } from '../chains/derivation.ts';
import type { DerivationCheck } from '../chains/derivation-check.ts';
import type { DerivationThread } from '../chains/derivation-thread.ts';
import type { ChainId } from '../chains/registry.ts';
import type { SettingsService } from '../settings/service.ts';
import type { EventsService } from '../webhooks/events/service.ts';
import { createPaymentCreation, type RateProvider } from './create.ts';
import type { DepositLedger } from './deposit-facts.ts';
import { createPaymentLifecycle } from './lifecycle.ts';
import type { PaymentsRepo } from './repo.ts';
import { createPaymentViews } from './views.ts';

export type { RateProvider } from './create.ts';
export type { PaymentRow } from './repo.ts';

export interface PaymentsDeps {
  /** Whether a watcher can see this chain in this mode (test mode always can: the simulated chain). */
  isChainConnected(chain: ChainId, isTest: boolean): boolean;
  db: Db;
  repo: PaymentsRepo;
  clock: Clock;
  deriver: AddressDeriver;
  /** The second, independent derivation every address must agree with before it is handed out. */
  derivationCheck: DerivationCheck;
  /** Batch derivation off the request path (the derivation thread); default: `deriver` on this thread. */
  deriveMany?: DerivationThread['deriveMany'];
  /** How many inserts of creations may run at once before the next ones wait to go together (default 1). */
  insertsInFlight?: number;
  rates: RateProvider;
  publicUrl: string;
  /** Confirmations a deposit of this chain and mode needs (chains/confirmations.ts). */
  confirmationsOf: ConfirmationsOf;
  /** The outbox: every status change writes its events in the same transaction. */
  events: Pick<EventsService, 'recordPaymentEvent' | 'recordPaymentEvents' | 'listEvents'>;
  settings: Pick<SettingsService, 'tolerancesFor' | 'defaultWindowSeconds' | 'payoutWallet'>;
  /** What the chains module recorded about deposits and chain heights (read only). */
  ledger: DepositLedger;
}

/**
 * The payments module's service, one part per job: creation (create.ts), the reads (views.ts) and the life after
 * creation through the state machine (lifecycle.ts), over deposit facts the chains module provides (deposit-facts.ts).
 */
export function createPaymentsService(deps: PaymentsDeps) {
  const views = createPaymentViews(deps);
  const lifecycle = createPaymentLifecycle(deps);
  const creation = createPaymentCreation({ ...deps, toView: views.toView });
  return { ...creation, ...views, ...lifecycle };
}

export type PaymentsService = ReturnType<typeof createPaymentsService>;
