import { createHash } from 'node:crypto';
import type { Db } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import {
  compareRatios,
  fractionDigits,
  isPlainDecimal,
  type Ratio,
  ratioFromDecimal,
} from '../../lib/money.ts';
import type { AccountsService } from '../accounts/service.ts';
import { validateAddress } from '../chains/addresses.ts';
import { getAsset, getChain } from '../chains/registry.ts';
import type { Notices } from '../notices/service.ts';
import type { Principal } from '../tenancy/caller.ts';
import { modeForWrite } from '../tenancy/scope.ts';
import type { EventsService } from '../webhooks/events/service.ts';
import { checkLogo } from './logo.ts';
import type { MerchantSettingsRow, PayoutWalletChangeRow, SettingsRepo } from './repo.ts';
import type { MerchantSettingsView, PatchMerchantSettings, PayoutWalletChangeView } from './schemas.ts';

/** A merchant's tolerances, ready for the state machine: percents as exact ratios, amounts in payment currency. */
export interface Tolerances {
  underPercent: Ratio;
  underAmount: string;
  overPercent: Ratio;
  overAmount: string;
}

const MIN_WINDOW_SECONDS = 60;
const MAX_WINDOW_SECONDS = 7 * 24 * 3600;
const DEFAULT_WINDOW_SECONDS = 30 * 60;
const MAX_TOLERANCE_PERCENT: Ratio = { num: 50n, den: 1n };

export const exactTolerances: Tolerances = {
  underPercent: { num: 0n, den: 1n },
  underAmount: '0',
  overPercent: { num: 0n, den: 1n },
  overAmount: '0',
};

/**
 * The underpayment a merchant who set no tolerance accepts: 0.1 % of the expected amount. Amounts are rounded to what
 * wallets show, but some still pay a hair less (an exchange withdrawal rounding down, a payer typing four decimals of
 * six); a payment that short is complete rather than underpaid. `PATCH /v1/settings` sets it to anything from 0.
 */
const DEFAULT_UNDERPAYMENT_TOLERANCE_PERCENT = '0.1';

const defaultTolerances: Tolerances = {
  ...exactTolerances,
  underPercent: ratioFromDecimal(DEFAULT_UNDERPAYMENT_TOLERANCE_PERCENT),
};

export interface SettingsDeps {
  db: Db;
  repo: SettingsRepo;
  clock: Clock;
  /** Announces payout-wallet changes (`payout_wallet.updated`) in the transaction that makes them. */
  events: Pick<EventsService, 'recordPayoutWalletEvent'>;
  /** Names the account that made a change in its audit trail. */
  accounts: Pick<AccountsService, 'getMerchant'>;
  /** Mails the merchant about a change of payout wallets, once it has committed (notices; optional). */
  notifyPayoutWalletChange?: Notices['payoutWalletChanged'] | undefined;
}

/** How recently the password must have been entered for a session to change where funds go. */
const REAUTH_WINDOW_SECONDS = 10 * 60;

/** Where a request came from, for the audit trail. */
export interface RequestOrigin {
  ip: string | undefined;
}

/**
 * Only a dashboard session whose password was entered within REAUTH_WINDOW_SECONDS may change where funds go: a
 * leaked API key, or a token left open in a browser, must not be able to redirect unswept payments.
 */
function requireRecentPassword(principal: Principal, now: Date): void {
  if (principal.via !== 'jwt') {
    throw new AppError(
      'forbidden',
      'Payout wallets are changed from the dashboard only: an API key cannot change where funds go.',
    );
  }
  const authTime = principal.authTime;
  if (authTime === undefined || now.getTime() / 1000 - authTime > REAUTH_WINDOW_SECONDS) {
    throw new AppError(
      'reauthentication_required',
      'Enter your password again (POST /v1/auth/reauthenticate) and retry with the fresh token: changing payout ' +
        'wallets needs a password entered in the last 10 minutes.',
    );
  }
}

function changeView(row: PayoutWalletChangeRow): PayoutWalletChangeView {
  return {
    id: row.id,
    is_test: row.isTest,
    chain: row.chain,
    old_address: row.oldAddress,
    new_address: row.newAddress,
    actor: row.actor,
    ip: row.ip,
    created_at: row.createdAt.toISOString(),
  };
}

function checkPercent(value: string, param: string): string {
  if (
    !isPlainDecimal(value) ||
    fractionDigits(value) > 6 ||
    compareRatios(ratioFromDecimal(value), MAX_TOLERANCE_PERCENT) > 0
  ) {
    throw new AppError('parameter_invalid', `${param} must be a decimal string from "0" to "50" (percent).`, {
      param,
    });
  }
  return ratioCanonical(value);
}

function checkAmount(value: string, param: string): string {
  if (!isPlainDecimal(value) || fractionDigits(value) > 18) {
    throw new AppError(
      'parameter_invalid',
      `${param} must be a non-negative decimal string (at most 18 decimals).`,
      {
        param,
      },
    );
  }
  return ratioCanonical(value);
}

/** "1.50" → "1.5", "00" is refused by the pattern already. */
function ratioCanonical(value: string): string {
  if (!value.includes('.')) return value;
  const trimmed = value.replace(/0+$/, '').replace(/\.$/, '');
  return trimmed === '' ? '0' : trimmed;
}

/** How long a process reuses a merchant's default window (read on every payment creation). */
const WINDOW_CACHE_MS = 1000;

/** What the checkout shows of a merchant. */
export interface Branding {
  name: string | null;
  accentColor: string | null;
  supportEmail: string | null;
  supportUrl: string | null;
  logoUrl: string | null;
}

/** How long a process reuses a merchant's branding on its checkouts (a change here applies at once). */
const BRANDING_CACHE_MS = 10_000;

const logoPath = (sha256: string) => `/pay/logos/${sha256}`;

type LogoInfo = { sha256: string };

function requireSession(principal: Principal): void {
  if (principal.via !== 'jwt') {
    throw new AppError(
      'forbidden',
      'Branding is changed from the dashboard: use a bearer token, not an API key.',
    );
  }
}

const hexColor = /^#[0-9a-fA-F]{6}$/;

/** The branding fields of a settings patch, checked: a colour `#rrggbb`, an email, an https (or http) URL; "" clears. */
function checkBranding(patch: PatchMerchantSettings) {
  const out: Partial<Record<'brand_name' | 'accent_color' | 'support_email' | 'support_url', string | null>> =
    {};
  const clear = (value: string) => (value.trim() === '' ? null : value.trim());
  if (patch.brand_name !== undefined) out.brand_name = clear(patch.brand_name);
  if (patch.accent_color !== undefined) {
    const value = clear(patch.accent_color);
    if (value !== null && !hexColor.test(value)) {
      throw new AppError('parameter_invalid', 'accent_color must be a colour as #rrggbb.', {
        param: 'accent_color',
      });
    }
    out.accent_color = value?.toLowerCase() ?? null;
  }
  if (patch.support_email !== undefined) {
    const value = clear(patch.support_email);
    if (value !== null && !/^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/.test(value)) {
      throw new AppError('parameter_invalid', 'support_email must be an email address.', {
        param: 'support_email',
      });
    }
    out.support_email = value;
  }
  if (patch.support_url !== undefined) {
    const value = clear(patch.support_url);
    if (value !== null) {
      let url: URL | undefined;
      try {
        url = new URL(value);
      } catch {
        url = undefined;
      }
      if (
        url === undefined ||
        !['https:', 'http:'].includes(url.protocol) ||
        url.username !== '' ||
        url.password !== ''
      ) {
        throw new AppError('parameter_invalid', 'support_url must be an absolute http(s) URL.', {
          param: 'support_url',
        });
      }
      out.support_url = url.href;
    } else out.support_url = null;
  }
  return out;
}

/** Checkout options as `chain:ASSET` pairs of the registry, each once; an empty list offers nothing, so it is refused. */
function checkOptions(options: string[] | null): string[] | null {
  if (options === null) return null;
  const out = new Set<string>();
  for (const option of options) {
    const [chainId = '', code = ''] = option.split(':');
    const chain = getChain(chainId.toLowerCase());
    const asset = chain === undefined ? undefined : getAsset(chain, code);
    if (chain === undefined || asset === undefined) {
      throw new AppError('parameter_invalid', `"${option}" is not a chain:ASSET pair of GET /v1/chains.`, {
        param: 'checkout_options',
      });
    }
    out.add(`${chain.id}:${asset.code}`);
  }
  if (out.size === 0) {
    throw new AppError('parameter_invalid', 'Offer at least one pair, or null for every pair.', {
      param: 'checkout_options',
    });
  }
  return [...out];
}

export function createSettingsService({
  db,
  repo,
  clock,
  events,
  accounts,
  notifyPayoutWalletChange,
}: SettingsDeps) {
  const brandingCache = new Map<string, { branding: Branding | null; until: number }>();
  const windowCache = new Map<string, { seconds: number; until: number }>();
  /**
   * The lookup in flight per merchant: when the entry expires under load, the creations arriving meanwhile share it
   * instead of each sending its own query (a burst of identical queries every second, queued in the pool ahead of
   * the inserts). A change made here bumps the generation, so an answer read before it is neither kept nor shared.
   */
  const windowLookups = new Map<string, Promise<number>>();
  let windowGeneration = 0;

  function view(row: MerchantSettingsRow | undefined, logo?: LogoInfo): MerchantSettingsView {
    return {
      brand_name: row?.brandName ?? null,
      accent_color: row?.accentColor ?? null,
      support_email: row?.supportEmail ?? null,
      support_url: row?.supportUrl ?? null,
      logo_url: logo === undefined ? null : logoPath(logo.sha256),
      checkout_options: row?.checkoutOptions ?? null,
      underpayment_tolerance_percent:
        row?.underpaymentTolerancePercent ?? DEFAULT_UNDERPAYMENT_TOLERANCE_PERCENT,
      underpayment_tolerance_amount: row?.underpaymentToleranceAmount ?? '0',
      overpayment_tolerance_percent: row?.overpaymentTolerancePercent ?? '0',
      overpayment_tolerance_amount: row?.overpaymentToleranceAmount ?? '0',
      default_expires_in: row?.defaultWindowSeconds ?? DEFAULT_WINDOW_SECONDS,
      auto_refund_overpaid: row?.autoRefundOverpaid ?? false,
      updated_at: row?.updatedAt.toISOString() ?? null,
    };
  }

  async function settingsRow(merchantId: string): Promise<MerchantSettingsRow | undefined> {
    const [row] = await repo.findSettings(db, [merchantId]);
    return row;
  }

  return {
    async get(principal: Principal): Promise<MerchantSettingsView> {
      const [row, logo] = await Promise.all([
        settingsRow(principal.merchantId),
        repo.findLogo(principal.merchantId),
      ]);
      return view(row, logo);
    },

    /** Settings are the merchant's, for both modes: only a dashboard session (JWT) may change them. */
    async update(principal: Principal, patch: PatchMerchantSettings): Promise<MerchantSettingsView> {
      if (principal.via !== 'jwt') {
        throw new AppError(
          'forbidden',
          'Settings are changed from the dashboard: use a bearer token, not an API key.',
        );
      }
      const [currentRow, logo] = await Promise.all([
        settingsRow(principal.merchantId),
        repo.findLogo(principal.merchantId),
      ]);
      const current = view(currentRow, logo);
      const next = {
        ...current,
        ...checkBranding(patch),
        ...(patch.checkout_options === undefined
          ? {}
          : { checkout_options: checkOptions(patch.checkout_options) }),
      };
      if (patch.underpayment_tolerance_percent !== undefined) {
        next.underpayment_tolerance_percent = checkPercent(
          patch.underpayment_tolerance_percent,
          'underpayment_tolerance_percent',
        );
      }
      if (patch.overpayment_tolerance_percent !== undefined) {
        next.overpayment_tolerance_percent = checkPercent(
          patch.overpayment_tolerance_percent,
          'overpayment_tolerance_percent',
        );
      }
      if (patch.underpayment_tolerance_amount !== undefined) {
        next.underpayment_tolerance_amount = checkAmount(
          patch.underpayment_tolerance_amount,
          'underpayment_tolerance_amount',
        );
      }
      if (patch.overpayment_tolerance_amount !== undefined) {
        next.overpayment_tolerance_amount = checkAmount(
          patch.overpayment_tolerance_amount,
          'overpayment_tolerance_amount',
        );
      }
      if (patch.default_expires_in !== undefined) {
        if (patch.default_expires_in < MIN_WINDOW_SECONDS || patch.default_expires_in > MAX_WINDOW_SECONDS) {
          throw new AppError(
            'parameter_invalid',
            `default_expires_in must be between ${MIN_WINDOW_SECONDS} and ${MAX_WINDOW_SECONDS} seconds.`,
            { param: 'default_expires_in' },
          );
        }
        next.default_expires_in = patch.default_expires_in;
      }
      const row: MerchantSettingsRow = {
        merchantId: principal.merchantId,
        underpaymentTolerancePercent: next.underpayment_tolerance_percent,
        underpaymentToleranceAmount: next.underpayment_tolerance_amount,
        overpaymentTolerancePercent: next.overpayment_tolerance_percent,
        overpaymentToleranceAmount: next.overpayment_tolerance_amount,
        defaultWindowSeconds: next.default_expires_in,
        autoRefundOverpaid: patch.auto_refund_overpaid ?? next.auto_refund_overpaid,
        brandName: next.brand_name,
        accentColor: next.accent_color,
        supportEmail: next.support_email,
        supportUrl: next.support_url,
        checkoutOptions: next.checkout_options,
        updatedAt: clock.now(),
      };
      await repo.upsertSettings(row);
      brandingCache.delete(principal.merchantId);
      windowGeneration += 1;
      windowLookups.delete(principal.merchantId);
      windowCache.delete(principal.merchantId);
      return view(row, logo);
    },

    /** Sets the checkout's logo (a dashboard session only): strictly checked, never SVG (logo.ts). */
    async setLogo(principal: Principal, bytes: Buffer, contentType: string): Promise<MerchantSettingsView> {
      requireSession(principal);
      const checked = checkLogo(bytes, contentType);
      await repo.upsertLogo({
        merchantId: principal.merchantId,
        contentType: checked.contentType,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        width: checked.width,
        height: checked.height,
        imageBase64: bytes.toString('base64'),
        updatedAt: clock.now(),
      });
      brandingCache.delete(principal.merchantId);
      return this.get(principal);
    },

    async deleteLogo(principal: Principal): Promise<MerchantSettingsView> {
      requireSession(principal);
      await repo.deleteLogo(principal.merchantId);
      brandingCache.delete(principal.merchantId);
      return this.get(principal);
    },

    /** A logo by its address (`/pay/logos/{sha256}`), for the public checkout: its bytes and their type. */
    async logoBySha(sha256: string): Promise<{ contentType: string; bytes: Buffer } | undefined> {
      if (!/^[0-9a-f]{64}$/.test(sha256)) return undefined;
      const row = await repo.findLogoBySha(sha256);
      return row === undefined
        ? undefined
        : { contentType: row.contentType, bytes: Buffer.from(row.imageBase64, 'base64') };
    },

    /**
     * What the checkout shows of a merchant (null when it set nothing). Reused for BRANDING_CACHE_MS in this process:
     * the checkout's view is read every 2 s by every open page, and this must not add a query to each read.
     */
    async brandingFor(merchantId: string): Promise<Branding | null> {
      const cached = brandingCache.get(merchantId);
      if (cached !== undefined && cached.until > Date.now()) return cached.branding;
      const [row, logo] = await Promise.all([settingsRow(merchantId), repo.findLogo(merchantId)]);
      const branding: Branding | null =
        row?.brandName == null &&
        row?.accentColor == null &&
        row?.supportEmail == null &&
        row?.supportUrl == null &&
        logo === undefined
          ? null
          : {
              name: row?.brandName ?? null,
              accentColor: row?.accentColor ?? null,
              supportEmail: row?.supportEmail ?? null,
              supportUrl: row?.supportUrl ?? null,
              logoUrl: logo === undefined ? null : logoPath(logo.sha256),
            };
      if (brandingCache.size > 10_000) brandingCache.clear();
      brandingCache.set(merchantId, { branding, until: Date.now() + BRANDING_CACHE_MS });
      return branding;
    },

    async getPayoutWallets(
      principal: Principal,
      isTest: boolean | undefined,
    ): Promise<Record<string, string>> {
      const mode = modeForWrite(principal, isTest);
      const rows = await repo.listWallets(db, principal.merchantId, mode);
      return Object.fromEntries(rows.map((row) => [row.chain, row.address]));
    },

    async putPayoutWallets(
      principal: Principal,
      isTest: boolean | undefined,
      wallets: Record<string, string>,
      origin: RequestOrigin,
    ): Promise<Record<string, string>> {
      const now = clock.now();
      requireRecentPassword(principal, now);
      const mode = modeForWrite(principal, isTest);
      const rows = Object.entries(wallets).map(([chainId, address]) => {
        const chain = getChain(chainId);
        if (chain === undefined) {
          throw new AppError('unsupported_chain', `Unknown chain "${chainId}"; GET /v1/chains lists them.`, {
            param: chainId,
          });
        }
        if (!validateAddress(chain.id, mode, address)) {
          throw new AppError(
            'parameter_invalid',
            `"${address}" is not a valid ${chain.name} ${mode ? chain.testnet.name : chain.mainnet.name} address.`,
            { param: chainId },
          );
        }
        return {
          merchantId: principal.merchantId,
          isTest: mode,
          chain: chain.id,
          address,
          createdAt: now,
          updatedAt: now,
        };
      });
      const actor = (await accounts.getMerchant(principal.merchantId)).email;
      const made = await db.transaction(async (tx) => {
        await repo.lockWallets(tx, principal.merchantId);
        const before = new Map(
          (await repo.listWallets(tx, principal.merchantId, mode)).map((row) => [row.chain, row.address]),
        );
        const after = new Map<string, string>(rows.map((row) => [row.chain, row.address]));
        const changes = [...new Set([...before.keys(), ...after.keys()])]
          .sort()
          .map((chain) => ({
            chain,
            old_address: before.get(chain) ?? null,
            new_address: after.get(chain) ?? null,
          }))
          .filter((change) => change.old_address !== change.new_address);
        await repo.replaceWallets(tx, principal.merchantId, mode, rows);
        if (changes.length === 0) return changes;
        await repo.insertChanges(
          tx,
          changes.map((change) => ({
            id: newId('pwc'),
            merchantId: principal.merchantId,
            isTest: mode,
            chain: change.chain,
            oldAddress: change.old_address,
            newAddress: change.new_address,
            actor,
            ip: origin.ip ?? null,
            createdAt: now,
          })),
        );
        await events.recordPayoutWalletEvent(tx, {
          merchantId: principal.merchantId,
          isTest: mode,
          changes,
          changedBy: actor,
          occurredAt: now,
        });
        return changes;
      });
      await notifyPayoutWalletChange?.(principal.merchantId, {
        isTest: mode,
        changedBy: actor,
        ip: origin.ip,
        changes: made,
      });
      return Object.fromEntries(
        rows.sort((a, b) => (a.chain < b.chain ? -1 : 1)).map((row) => [row.chain, row.address]),
      );
    },

    /** The audit trail of payout wallets, both modes, newest first (dashboard sessions only). */
    async payoutWalletChanges(principal: Principal, limit: number): Promise<PayoutWalletChangeView[]> {
      if (principal.via !== 'jwt') {
        throw new AppError('forbidden', 'The payout-wallet history is read from the dashboard.');
      }
      return (await repo.listChanges(principal.merchantId, limit)).map(changeView);
    },

    /** The payout address of a merchant for a mode and chain, or null. */
    async payoutWallet(tx: Db, merchantId: string, isTest: boolean, chain: string): Promise<string | null> {
      return (await repo.findWallet(tx, merchantId, isTest, chain))?.address ?? null;
    },

    /** The `chain:ASSET` pairs a merchant offers payers who pick the coin (null: every pair available). */
    async checkoutOptions(merchantId: string): Promise<string[] | null> {
      return (await settingsRow(merchantId))?.checkoutOptions ?? null;
    },

    /** The chains a merchant has a payout wallet for in a mode. */
    async payoutWalletChains(merchantId: string, isTest: boolean): Promise<string[]> {
      return (await repo.listWallets(db, merchantId, isTest)).map((row) => row.chain);
    },

    /** Tolerances of several merchants (the default for those that set none). */
    async tolerancesFor(tx: Db, merchantIds: string[]): Promise<Map<string, Tolerances>> {
      const rows = await repo.findSettings(tx, [...new Set(merchantIds)]);
      const out = new Map<string, Tolerances>();
      for (const id of merchantIds) out.set(id, defaultTolerances);
      for (const row of rows) {
        out.set(row.merchantId, {
          underPercent: ratioFromDecimal(row.underpaymentTolerancePercent),
          underAmount: row.underpaymentToleranceAmount,
          overPercent: ratioFromDecimal(row.overpaymentTolerancePercent),
          overAmount: row.overpaymentToleranceAmount,
        });
      }
      return out;
    },

    /**
     * The window of a merchant's new payments without `expires_in`. Reused for a second in this process (a change
     * made through another process applies within that second; one made here, at once).
     */
    /** Whether the merchant refunds overpaid excess on its own (`auto_refund_overpaid`). */
    async autoRefundsOverpaid(merchantId: string): Promise<boolean> {
      return (await settingsRow(merchantId))?.autoRefundOverpaid ?? false;
    },

    async defaultWindowSeconds(merchantId: string): Promise<number> {
      const cached = windowCache.get(merchantId);
      if (cached !== undefined && cached.until > Date.now()) return cached.seconds;
      const pending = windowLookups.get(merchantId);
      if (pending !== undefined) return pending;
      const generation = windowGeneration;
      const lookup = settingsRow(merchantId)
        .then((row) => {
          const seconds = row?.defaultWindowSeconds ?? DEFAULT_WINDOW_SECONDS;
          if (generation === windowGeneration) {
            if (windowCache.size > 10_000) windowCache.clear();
            windowCache.set(merchantId, { seconds, until: Date.now() + WINDOW_CACHE_MS });
          }
          return seconds;
        })
        .finally(() => {
          if (windowLookups.get(merchantId) === lookup) windowLookups.delete(merchantId);
        });
      windowLookups.set(merchantId, lookup);
      return lookup;
    },
  };
}

export type SettingsService = ReturnType<typeof createSettingsService>;
