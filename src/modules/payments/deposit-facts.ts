import type { Db } from '../../db/client.ts';
import type { ReadPart, RowRefs } from '../../db/json-rows.ts';
import { isPicked, type PickedColumns, type StoredPaymentRow } from './repo.ts';

/**
 * What payments read of the chain side (deposits the watchers recorded, the height each chain's watcher reached),
 * through a port the chains module implements: payments never read the chain tables themselves.
 */
export interface DepositFacts {
  /** Final, non-reverted deposits in the payment's asset. */
  received: bigint;
  /** The same, limited to blocks before the window ended. */
  receivedInTime: bigint;
  /** Unfinal, non-reverted deposits whose block came before the window ended. */
  unfinalInTime: number;
  /** Hash of the latest non-reverted deposit. */
  latestTxHash: string | null;
}

export interface ConfirmationSummary {
  /** Block of the newest unfinal deposit (the one with the fewest confirmations), if any. */
  newestUnfinalBlock: number | null;
  anyFinal: boolean;
}

/** One deposit as payments show it. */
interface DepositRecord {
  id: string;
  txHash: string;
  outputIndex: number;
  asset: string;
  amount: string;
  blockNumber: number;
  blockHash: string;
  state: string;
  simulated: boolean;
  seenAt: Date;
  finalAt: Date | null;
  revertedAt: Date | null;
  leftAsDustAt: Date | null;
}

export interface DepositLedger {
  /** What the state machine needs of each payment's deposits, read inside the settling transaction `tx`. */
  depositFacts(
    tx: Db,
    payments: Array<{ id: string; asset: string; expiresAt: Date }>,
  ): Promise<Map<string, DepositFacts>>;
  depositsOfPayment(db: Db, paymentId: string): Promise<DepositRecord[]>;
  /**
   * The same, with the height its chain's watcher reached in the payment's mode (undefined without deposits), as a
   * part of a statement that reads the payment (`payment` refers to its row): one statement, one snapshot.
   */
  depositsOfPaymentPart(
    payment: RowRefs<'id' | 'chain' | 'isTest'>,
  ): ReadPart<{ deposits: DepositRecord[]; height: number | undefined }>;
  confirmationSummaries(db: Db, paymentIds: string[]): Promise<Map<string, ConfirmationSummary>>;
  /** The height each chain's watcher reached, keyed `chain:isTest`. */
  cursorHeights(db: Db): Promise<Map<string, number>>;
}

export const noDeposits: DepositFacts = {
  received: 0n,
  receivedInTime: 0n,
  unfinalInTime: 0,
  latestTxHash: null,
};

/** How many confirmations a payment shows: its least-confirmed unfinal deposit's, or all once final. */
interface SeenInput {
  newestUnfinalBlock: number | null;
  anyFinal: boolean;
  height: number | undefined;
}

function confirmationsSeen(summary: SeenInput | undefined, required: number): number {
  if (summary === undefined) return 0;
  if (summary.newestUnfinalBlock !== null && summary.height !== undefined) {
    return Math.max(0, Math.min(required, summary.height - summary.newestUnfinalBlock + 1));
  }
  return summary.anyFinal ? required : 0;
}

/**
 * Confirmations seen of one payment from its deposits already read (as confirmationSummaries and seenOf count them):
 * none while pending, else its least-confirmed unfinal deposit's, or all once one is final.
 */
export function seenOfDeposits(
  status: string,
  deposits: ReadonlyArray<Pick<DepositRecord, 'state' | 'blockNumber'>>,
  height: number | undefined,
  required: number,
): number {
  if (status === 'pending' || deposits.length === 0) return 0;
  let newestUnfinalBlock: number | null = null;
  let anyFinal = false;
  for (const deposit of deposits) {
    if (deposit.state === 'seen') newestUnfinalBlock = Math.max(newestUnfinalBlock ?? 0, deposit.blockNumber);
    if (deposit.state === 'final') anyFinal = true;
  }
  return confirmationsSeen({ newestUnfinalBlock, anyFinal, height }, required);
}

/** What counting a payment's confirmations reads of its row. */
type SeenRow = Pick<StoredPaymentRow, 'id' | 'status' | 'isTest' | PickedColumns>;

/** Confirmations seen of each payment, from its deposits and the watcher's height. */
export function createConfirmationCounter(deps: {
  db: Db;
  ledger: DepositLedger;
  confirmationsOf: (chain: string, isTest: boolean) => number;
}) {
  const { db } = deps;
  return async function seenOf(allRows: SeenRow[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    // A pending payment has no live deposit (seeing one makes it confirming), so it has nothing to count: the
    // common case of a fresh payment and of the checkout's polling costs no query here.
    const rows = allRows.filter((row) => row.status !== 'pending').filter(isPicked);
    if (rows.length === 0) return out;
    const [summaries, heights] = await Promise.all([
      deps.ledger.confirmationSummaries(
        db,
        rows.map((row) => row.id),
      ),
      deps.ledger.cursorHeights(db),
    ]);
    for (const row of rows) {
      const summary = summaries.get(row.id);
      const required = deps.confirmationsOf(row.chain, row.isTest);
      out.set(
        row.id,
        confirmationsSeen(
          summary === undefined
            ? undefined
            : { ...summary, height: heights.get(`${row.chain}:${row.isTest}`) },
          required,
        ),
      );
    }
    return out;
  };
}
