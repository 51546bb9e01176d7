/** Every status a payment can have: the one list the state machine, the API schemas and the checkout derive from. */
export const paymentStatuses = [
  'pending',
  'confirming',
  'completed',
  'underpaid',
  'overpaid',
  'expired',
] as const;
export type PaymentStatus = (typeof paymentStatuses)[number];

/** Statuses that no deposit or window can change any more. */
export const settledStatuses: readonly PaymentStatus[] = ['completed', 'overpaid', 'expired'];
