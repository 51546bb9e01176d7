import type { PaymentEventType } from '../webhooks/events/payload.ts';
import type { PaymentStatus } from './statuses.ts';

/**
 * The payment state machine (README "Payment states"), as one pure function. Received = the sum of final,
 * non-reverted deposits in the payment's asset; tolerances widen "exact".
 *
 * | from                           | when                                               | to         | event             |
 * |--------------------------------|----------------------------------------------------|------------|-------------------|
 * | pending                        | a deposit is seen, not yet final                   | confirming | —                 |
 * | pending, confirming, underpaid | received within tolerance of expected              | completed  | payment.confirmed |
 * | pending, confirming, underpaid | received above expected + tolerance                | overpaid   | payment.overpaid  |
 * | pending, confirming, underpaid | 0 < received < expected − tolerance                | underpaid  | payment.underpaid |
 * | pending                        | the window ends and nothing was seen               | expired    | payment.expired   |
 * | underpaid                      | the window ends                                    | expired    | payment.expired   |
 * | confirming                     | the window ends                                    | confirming | —                 |
 * | confirming                     | its only unfinal deposits are reorganised away     | pending (expired past the window) | (payment.expired) |
 * | completed, overpaid, expired   | later funds                                        | unchanged  | — (counted, then forwarded: payment.completed) |
 *
 * Refinements the table leaves open, decided here:
 * - A top-up that still leaves an underpaid payment short sends payment.underpaid again (received grew).
 * - A deposit whose block came before the window ended is honoured: neither a confirming nor an underpaid payment
 *   expires while such a deposit is still unfinal. Funds that arrive after the window ended never change the status:
 *   they are recorded, counted in received_amount_native and forwarded (late funds).
 * - A payment that becomes underpaid after its window ended (its in-time deposit turned out short) expires in the
 *   same step: payment.underpaid, then payment.expired.
 * The forwarding row (payment.completed) is not a status change and is handled by the forwarder.
 */

type Status = PaymentStatus;

export interface PaymentFacts {
  status: Status;
  /** Base units of the payment's asset. */
  expected: bigint;
  /** Received as last recorded on the payment (before this evaluation). */
  receivedBefore: bigint;
  /**
   * What decides the status: final, non-reverted deposits in the payment's asset whose block came before the window
   * ended. (Later funds are counted in received_amount_native and forwarded, but never change the status.)
   */
  receivedInTime: bigint;
  /** Unfinal, non-reverted deposits (any asset) that arrived before the window ended. */
  unfinalInTime: number;
  /** Whether the payment window has ended. */
  windowEnded: boolean;
  /** Allowed shortfall and excess, in base units of the asset. */
  tolerance: { under: bigint; over: bigint };
}

interface Step {
  event: PaymentEventType;
  /** The payment's status that the event carries. */
  status: Status;
}

export interface Transition {
  status: Status;
  /** Events to record, in order, each with the status at its moment. */
  steps: Step[];
}

function classify(facts: PaymentFacts): Transition {
  const { expected, receivedInTime: received, tolerance } = facts;
  if (received > expected + tolerance.over) {
    return { status: 'overpaid', steps: [{ event: 'payment.overpaid', status: 'overpaid' }] };
  }
  if (received >= expected - tolerance.under) {
    return { status: 'completed', steps: [{ event: 'payment.confirmed', status: 'completed' }] };
  }
  const steps: Step[] = [];
  if (facts.status !== 'underpaid' || received > facts.receivedBefore) {
    steps.push({ event: 'payment.underpaid', status: 'underpaid' });
  }
  if (facts.windowEnded && facts.unfinalInTime === 0) {
    steps.push({ event: 'payment.expired', status: 'expired' });
    return { status: 'expired', steps };
  }
  return { status: 'underpaid', steps };
}

export function nextState(facts: PaymentFacts): Transition {
  const same: Transition = { status: facts.status, steps: [] };
  switch (facts.status) {
    case 'completed':
    case 'overpaid':
    case 'expired':
      return same;
    case 'underpaid':
      return classify(facts);
    case 'pending':
    case 'confirming': {
      if (facts.receivedInTime > 0n) return classify(facts);
      if (facts.unfinalInTime > 0) return { status: 'confirming', steps: [] };
      if (facts.windowEnded) {
        return { status: 'expired', steps: [{ event: 'payment.expired', status: 'expired' }] };
      }
      return { status: 'pending', steps: [] };
    }
  }
}

/** The larger of `percent` % of `expected` (rounded down) and `absolute`, both as base units. */
export function toleranceUnits(
  expected: bigint,
  percent: { num: bigint; den: bigint },
  absolute: bigint,
): bigint {
  const fromPercent = (expected * percent.num) / (percent.den * 100n);
  return fromPercent > absolute ? fromPercent : absolute;
}
