import type { DepositLedger } from '../payments/deposit-facts.ts';
import { chainsRepo } from './repo.ts';

/**
 * What the chains module tells payments about deposits and chain heights (the port payments declares): reads of the
 * tables the watchers and forwarders write, so that payments never reads them itself.
 */
export const depositLedger: DepositLedger = {
  depositFacts: chainsRepo.depositFacts,
  depositsOfPayment: chainsRepo.depositsOfPayment,
  depositsOfPaymentPart: chainsRepo.depositsOfPaymentPart,
  confirmationSummaries: chainsRepo.confirmationSummaries,
  cursorHeights: chainsRepo.cursorHeights,
};

/**
 * What the chains module lets refunds do with deposits: hold a payment's unswept deposits while a refund sends from
 * their address (the forwarder leaves them alone), and release them, recording what the refund took.
 */
export const refundLedger = {
  holdDepositsForRefund: chainsRepo.holdDepositsForRefund,
  releaseRefundHold: chainsRepo.releaseRefundHold,
  depositOutputs: chainsRepo.depositOutputs,
  cursorHeights: chainsRepo.cursorHeights,
};
export type RefundLedger = typeof refundLedger;

/** What exports read of the chain side: deposits of a page of payments, and a merchant's sweeps. */
export const exportLedger = {
  depositsOfPayments: chainsRepo.depositsOfPayments,
  forwardsPage: chainsRepo.forwardsPage,
  sweepFeesByMonth: chainsRepo.sweepFeesByMonth,
};
