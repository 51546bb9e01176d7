import type { DepositLedger } from '../payments/deposit-facts.ts';
import { chainsRepo } from './repo.ts';

/**
 * What the chains module tells payments about deposits and chain heights (the port payments declares): reads of the
 * tables the watchers and forwarders write, so that payments never reads them itself.
 */
export const depositLedger: DepositLedger = {
  depositFacts: chainsRepo.depositFacts,
  depositsOfPayment: chainsRepo.depositsOfPayment,
  confirmationSummaries: chainsRepo.confirmationSummaries,
  cursorHeights: chainsRepo.cursorHeights,
};
