import { createPaymentCreation, type PaymentCreationDeps } from './create.ts';
import { createPaymentLifecycle, type PaymentLifecycleDeps } from './lifecycle.ts';
import { createPaymentViews, type PaymentViewsDeps } from './views.ts';

export type { RateProvider } from './create.ts';
export type { PaymentRow } from './repo.ts';

/** Everything the parts need: each part takes its own slice. */
export type PaymentsDeps = Omit<PaymentCreationDeps, 'toView'> & PaymentViewsDeps & PaymentLifecycleDeps;

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
