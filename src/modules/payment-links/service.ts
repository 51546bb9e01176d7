import type { Clock } from '../../lib/clock.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { chains, getAsset, getChain } from '../chains/registry.ts';
import { canonicalAmount, fiatDecimals } from '../payments/amounts.ts';
import { createPaymentSchema } from '../payments/schemas.ts';
import type { PaymentsService } from '../payments/service.ts';
import type { Principal } from '../tenancy/caller.ts';
import { modeForRead, modeForWrite } from '../tenancy/scope.ts';
import type { PaymentLinkRow, PaymentLinksRepo } from './repo.ts';
import type { CreatePaymentLinkInput, PaymentLinkView, UpdatePaymentLinkInput } from './schemas.ts';

export interface PaymentLinksDeps {
  repo: PaymentLinksRepo;
  clock: Clock;
  publicUrl: string;
  payments: Pick<PaymentsService, 'createFromLink' | 'linkTotals'>;
}

/** Fraction digits of a currency: an asset's decimals, or ISO 4217's for a fiat code. */
function currencyDecimals(code: string): number | undefined {
  for (const chain of chains) {
    const asset = getAsset(chain, code);
    if (asset !== undefined) return asset.decimals;
  }
  return fiatDecimals(code);
}

const noTotals = { payments: 0, paid: 0, paidAmount: '0' };

/**
 * Reusable payment links: made by a merchant (API key, or a dashboard session in the mode it names), shared as a
 * public page, each visit that goes on to pay creating a payment with the link's terms (payments' own creation, so
 * every rule of a payment applies), the link's page listing those payments and what they add up to.
 */
export function createPaymentLinksService(deps: PaymentLinksDeps) {
  const { repo, clock } = deps;

  function view(row: PaymentLinkRow, totals = noTotals): PaymentLinkView {
    return {
      id: row.id,
      url: `${deps.publicUrl}/l/${row.id}`,
      is_test: row.isTest,
      title: row.title,
      description: row.description,
      amount: row.amount,
      currency: row.currency,
      chain: row.chain,
      asset: row.asset,
      success_url: row.successUrl,
      cancel_url: row.cancelUrl,
      locale: row.locale,
      active: row.active,
      totals: { payments: totals.payments, paid: totals.paid, paid_amount: totals.paidAmount },
      created_at: row.createdAt.toISOString(),
    };
  }

  async function owned(principal: Principal, id: string): Promise<PaymentLinkRow> {
    const row = await repo.find(id);
    const mode = modeForRead(principal, undefined);
    if (
      row === undefined ||
      row.merchantId !== principal.merchantId ||
      (mode !== undefined && row.isTest !== mode)
    ) {
      throw new AppError('not_found', 'No such payment link.', { param: 'id' });
    }
    return row;
  }

  return {
    async create(principal: Principal, input: CreatePaymentLinkInput): Promise<PaymentLinkView> {
      const isTest = modeForWrite(principal, input.is_test);
      const currency = input.currency.toUpperCase();
      const decimals = currencyDecimals(currency);
      if (decimals === undefined) {
        throw new AppError('parameter_invalid', `Unsupported currency "${input.currency}".`, {
          param: 'currency',
        });
      }
      const amount = input.amount === undefined ? null : canonicalAmount(input.amount, decimals, currency);
      if (input.chain !== undefined && getChain(input.chain.toLowerCase()) === undefined) {
        throw new AppError(
          'unsupported_chain',
          `Unknown chain "${input.chain}"; GET /v1/chains lists them.`,
          {
            param: 'chain',
          },
        );
      }
      for (const [param, value] of [
        ['success_url', input.success_url],
        ['cancel_url', input.cancel_url],
      ] as const) {
        if (value !== undefined && !/^https?:\/\/[^\s]+$/i.test(value)) {
          throw new AppError('parameter_invalid', `${param} must be an absolute http(s) URL.`, { param });
        }
      }
      const now = clock.now();
      const row: PaymentLinkRow = {
        id: newId('plink'),
        merchantId: principal.merchantId,
        isTest,
        title: input.title.trim(),
        description: input.description?.trim() || null,
        amount,
        currency,
        chain: input.chain?.toLowerCase() ?? null,
        asset: input.asset?.toUpperCase() ?? null,
        successUrl: input.success_url ?? null,
        cancelUrl: input.cancel_url ?? null,
        locale: input.locale ?? null,
        active: true,
        createdAt: now,
        updatedAt: now,
      };
      await repo.insert(row);
      return view(row);
    },

    async list(principal: Principal, isTest: boolean | undefined): Promise<PaymentLinkView[]> {
      const rows = await repo.list(principal.merchantId, modeForRead(principal, isTest));
      const totals = await deps.payments.linkTotals(
        principal.merchantId,
        rows.map((row) => row.id),
      );
      return rows.map((row) => view(row, totals.get(row.id)));
    },

    async get(principal: Principal, id: string): Promise<PaymentLinkView> {
      const row = await owned(principal, id);
      const totals = await deps.payments.linkTotals(principal.merchantId, [row.id]);
      return view(row, totals.get(row.id));
    },

    async update(principal: Principal, id: string, input: UpdatePaymentLinkInput): Promise<PaymentLinkView> {
      const row = await owned(principal, id);
      const changes = {
        ...(input.title === undefined ? {} : { title: input.title.trim() }),
        ...(input.description === undefined ? {} : { description: input.description?.trim() || null }),
        ...(input.active === undefined ? {} : { active: input.active }),
        updatedAt: clock.now(),
      };
      await repo.update(row.id, changes);
      return this.get(principal, id);
    },

    /** The public view of a link for its page: its terms, nothing of the merchant's. Undefined when unknown. */
    async publicLink(id: string): Promise<PaymentLinkRow | undefined> {
      return /^plink_[0-9a-z]{1,64}$/.test(id) ? repo.find(id) : undefined;
    },

    /**
     * A visit that goes on to pay (public, no key): a payment with the link's terms and, when the link lets the payer
     * enter it, the payer's amount; with their email when they give it (their receipt, refund links).
     */
    async pay(
      id: string,
      payerAmount: string | undefined,
      customerEmail?: string | undefined,
    ): Promise<{ payment_id: string; checkout_url: string }> {
      const row = await repo.find(id);
      if (row === undefined) throw new AppError('not_found', 'No such payment link.', { param: 'id' });
      if (!row.active) {
        throw new AppError('invalid_state', 'This payment link is no longer active.', { param: 'id' });
      }
      const amount = row.amount ?? payerAmount;
      if (amount === undefined || amount.trim() === '') {
        throw new AppError('parameter_missing', 'Enter the amount to pay.', { param: 'amount' });
      }
      // The page's form is not validated by the API's schema: the same rule, checked here.
      if (
        customerEmail !== undefined &&
        !createPaymentSchema.shape.customer_email.safeParse(customerEmail).success
      ) {
        throw new AppError('parameter_invalid', `"${customerEmail}" is not an email address.`, {
          param: 'customer_email',
        });
      }
      const payment = await deps.payments.createFromLink(row, {
        ...(customerEmail === undefined ? {} : { customer_email: customerEmail }),
        amount: amount.trim(),
        currency: row.currency,
        ...(row.chain === null ? {} : { chain: row.chain }),
        ...(row.asset === null ? {} : { asset: row.asset }),
        ...(row.successUrl === null ? {} : { success_url: row.successUrl }),
        ...(row.cancelUrl === null ? {} : { cancel_url: row.cancelUrl }),
        ...(row.locale === null
          ? {}
          : { locale: row.locale as NonNullable<CreatePaymentLinkInput['locale']> }),
        metadata: { payment_link: row.id },
      });
      return { payment_id: payment.payment_id, checkout_url: payment.checkout_url };
    },
  };
}
