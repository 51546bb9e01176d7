import type { Db } from '../../db/client.ts';
import type { AddressDeriver } from '../chains/derivation.ts';
import type { DerivationCheck } from '../chains/derivation-check.ts';
import { type DerivationThread, deriveOnThisThread } from '../chains/derivation-thread.ts';
import { createAddressPool } from './address-pool.ts';
import { createPaymentCreation, type PaymentCreationDeps } from './create.ts';
import { createPaymentLifecycle, type PaymentLifecycleDeps } from './lifecycle.ts';
import { createPricing, type PricingDeps } from './pricing.ts';
import type { PaymentsRepo } from './repo.ts';
import { createPaymentSelection, type PaymentSelectionDeps } from './select.ts';
import { createPaymentViews, type PaymentViewsDeps } from './views.ts';

export type { RateProvider } from './pricing.ts';
export type { PaymentRow } from './repo.ts';
export { isPicked } from './repo.ts';

/** Everything the parts need: each part takes its own slice. */
export type PaymentsDeps = Omit<PaymentCreationDeps, 'toView' | 'addresses' | 'pricing'> &
  Omit<PaymentViewsDeps, 'pricing'> &
  PaymentLifecycleDeps &
  Omit<PaymentSelectionDeps, 'addresses' | 'pricing'> &
  PricingDeps & {
    db: Db;
    repo: PaymentsRepo;
    deriver: AddressDeriver;
    /** The second, independent derivation every address must agree with before it is handed out. */
    derivationCheck: DerivationCheck;
    /** Batch derivation off the request path (the derivation thread); default: `deriver` on this thread. */
    deriveMany?: DerivationThread['deriveMany'];
  };

/**
 * The payments module's service, one part per job: creation (create.ts), the payer's pick of a chain (select.ts), the
 * reads (views.ts) and the life after creation through the state machine (lifecycle.ts), over deposit facts the
 * chains module provides (deposit-facts.ts). Creation and the pick share one address pool, so every address of either
 * is confirmed by the second derivation the same way.
 */
export function createPaymentsService(deps: PaymentsDeps) {
  const { db, repo } = deps;
  const onThisThread = deriveOnThisThread(deps.deriver, deps.derivationCheck);
  const addresses = createAddressPool({
    fetchIndices: (space, isTest, count) => repo.allocateDerivationIndices(db, space, isTest, count),
    deriveMany: deps.deriveMany ?? (async (...args) => onThisThread(...args)),
  });
  const pricing = createPricing(deps);
  const views = createPaymentViews({ ...deps, pricing });
  const lifecycle = createPaymentLifecycle(deps);
  const creation = createPaymentCreation({ ...deps, addresses, pricing, toView: views.toView });
  const selection = createPaymentSelection({ ...deps, addresses, pricing });
  return { ...creation, ...views, ...lifecycle, ...selection };
}

export type PaymentsService = ReturnType<typeof createPaymentsService>;
