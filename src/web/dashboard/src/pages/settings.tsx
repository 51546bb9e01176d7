import { useState } from 'preact/hooks';
import { ApiError, api } from '../api.ts';
import {
  describedBy,
  ErrorNotice,
  ExternalLink,
  Field,
  fieldError,
  Loading,
  Notice,
  PageHeader,
} from '../components/ui.tsx';
import { groupDigits } from '../format.ts';
import {
  type ChainInfo,
  fallbackChains,
  type Json,
  loadChains,
  type ResourceStake,
  readFeeWallets,
  readSession,
  readSweepCosts,
  record,
  titleCase,
} from '../model.ts';
import { useAction, useApp, useResource } from '../state.tsx';

/** The chain → address map, wherever the API put it in its answer. */
function readWallets(body: unknown, chainIds: string[]): Record<string, string> {
  const source = record(body);
  const candidates = [source.payout_wallets, source.wallets, source.data, source];
  for (const candidate of candidates) {
    const map = record(candidate);
    const wallets: Record<string, string> = {};
    for (const [chain, value] of Object.entries(map)) {
      const address = typeof value === 'string' ? value : record(value).address;
      if (chainIds.includes(chain) && typeof address === 'string') wallets[chain] = address;
    }
    if (Object.keys(wallets).length > 0) return wallets;
  }
  return {};
}

function PayoutWallets({ chains, onSaved }: { chains: ChainInfo[]; onSaved: () => void }) {
  const app = useApp();
  const isTest = app.mode === 'test';
  const chainIds = chains.map((chain) => chain.id);
  const [draft, setDraft] = useState<Record<string, string>>({});
  const loaded = useResource(async () => {
    const wallets = readWallets(
      await api('/settings/payout-wallets', { query: { is_test: isTest } }),
      chainIds,
    );
    setDraft(wallets);
    return wallets;
  }, [isTest, chainIds.join(',')]);
  const save = useAction();
  // Where funds go changes only with a password entered in the last 10 minutes: the server says when to ask again.
  const [password, setPassword] = useState('');
  const needsPassword = save.error instanceof ApiError && save.error.code === 'reauthentication_required';

  return (
    <form
      noValidate
      class="card"
      aria-labelledby="wallets-title"
      onSubmit={async (event) => {
        event.preventDefault();
        const body: Record<string, string> = {};
        for (const [chain, address] of Object.entries(draft)) {
          if (address.trim() !== '') body[chain] = address.trim();
        }
        const saved = await save.run(async () => {
          if (needsPassword) {
            const fresh = readSession(
              await api('/auth/reauthenticate', { method: 'POST', body: { password } }),
            );
            app.renew(fresh);
            setPassword('');
          }
          return api('/settings/payout-wallets', { method: 'PUT', query: { is_test: isTest }, body });
        });
        if (saved !== undefined) {
          const wallets = readWallets(saved, chainIds);
          setDraft(Object.keys(wallets).length > 0 ? wallets : body);
          app.notify(`${isTest ? 'Test' : 'Live'} payout wallets saved.`);
          onSaved();
        }
      }}
    >
      <h2 id="wallets-title">{isTest ? 'Test' : 'Live'} payout wallets</h2>
      <p class="muted">
        Confirmed funds are forwarded to these addresses, one per network.{' '}
        {isTest
          ? 'Test payments forward on the test networks (or the simulated chain), so use test network addresses.'
          : 'Live payments on a network without a payout wallet are refused.'}{' '}
        Leave a network empty to have no wallet there.
      </p>
      {loaded.state === 'loading' && <Loading label="Loading your payout wallets…" />}
      {loaded.state === 'error' && <ErrorNotice error={loaded.error} onRetry={() => void loaded.reload()} />}
      {loaded.state === 'ready' && (
        <>
          <div class="form-grid form-grid-wide">
            {chains.map((chain) => {
              const id = `wallet-${chain.id}`;
              const error = fieldError(
                save.error,
                chain.id,
                `${chain.id}.address`,
                `payout_wallets.${chain.id}`,
              );
              return (
                <Field key={chain.id} label={chain.name} id={id} error={error}>
                  <input
                    {...describedBy(id, { error })}
                    class="mono"
                    type="text"
                    spellcheck={false}
                    autocomplete="off"
                    placeholder={`Your ${chain.name} address`}
                    value={draft[chain.id] ?? ''}
                    onInput={(event) => {
                      const value = event.currentTarget.value;
                      setDraft((current) => ({ ...current, [chain.id]: value }));
                    }}
                  />
                </Field>
              );
            })}
          </div>
          {needsPassword ? (
            <Field label="Your password, to confirm this change" id="wallets-password" error={null}>
              <input
                id="wallets-password"
                type="password"
                autocomplete="current-password"
                value={password}
                onInput={(event) => setPassword(event.currentTarget.value)}
              />
            </Field>
          ) : (
            save.error !== null &&
            fieldError(save.error, ...chainIds) === null && <ErrorNotice error={save.error} compact />
          )}
          <button type="submit" class="button" disabled={save.busy}>
            {save.busy
              ? 'Saving…'
              : needsPassword
                ? 'Confirm and save payout wallets'
                : 'Save payout wallets'}
          </button>
        </>
      )}
    </form>
  );
}

type Scalar = string | number | boolean | null;

interface SettingField {
  path: string[];
  value: Scalar;
}

const settingLabels: Record<string, { label: string; hint?: string }> = {
  underpayment_tolerance_percent: {
    label: 'Underpayment tolerance (%)',
    hint: 'A payment short by at most this share still counts as paid.',
  },
  underpayment_tolerance_amount: {
    label: 'Underpayment tolerance (amount)',
    hint: "A payment short by at most this much, in the payment's own currency, still counts as paid.",
  },
  overpayment_tolerance_percent: {
    label: 'Overpayment tolerance (%)',
    hint: 'A payment over by at most this share counts as exact.',
  },
  overpayment_tolerance_amount: {
    label: 'Overpayment tolerance (amount)',
    hint: "A payment over by at most this much, in the payment's own currency, counts as exact.",
  },
  default_expires_in: {
    label: 'Default time to pay (seconds)',
    hint: 'For payments created without expires_in: 1800 is 30 minutes.',
  },
  payment_window_seconds: { label: 'Default time to pay (seconds)' },
};

const hiddenSettings = new Set([
  'merchant_id',
  'id',
  'object',
  'created_at',
  'updated_at',
  'is_test',
  'payout_wallets',
]);

/** Every scalar setting the API returns, one level of nesting deep, so the form follows the API's own names. */
function settingFields(body: unknown): SettingField[] {
  const fields: SettingField[] = [];
  const visit = (source: Json, path: string[]) => {
    for (const [name, value] of Object.entries(source)) {
      if (hiddenSettings.has(name)) continue;
      if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) {
        fields.push({ path: [...path, name], value: value as Scalar });
      } else if (path.length === 0 && typeof value === 'object' && !Array.isArray(value)) {
        visit(record(value), [name]);
      }
    }
  };
  visit(record(record(body).data ?? body), []);
  return fields;
}

function labelOf(path: string[]): { label: string; hint?: string } {
  const name = path.at(-1) ?? '';
  const joined = path.join('_');
  return (
    settingLabels[joined] ?? settingLabels[name] ?? { label: titleCase(path.join(' ').replace(/_/g, ' ')) }
  );
}

function nest(changes: Array<{ path: string[]; value: Scalar }>): Json {
  const body: Json = {};
  for (const { path, value } of changes) {
    let target = body;
    for (const part of path.slice(0, -1)) {
      target[part] = record(target[part]);
      target = target[part] as Json;
    }
    const last = path.at(-1);
    if (last !== undefined) target[last] = value;
  }
  return body;
}

function Tolerances() {
  const app = useApp();
  const [draft, setDraft] = useState<Record<string, string>>({});
  const loaded = useResource(async () => {
    const fields = settingFields(await api('/settings'));
    setDraft(
      Object.fromEntries(
        fields.map((field) => [field.path.join('.'), field.value === null ? '' : String(field.value)]),
      ),
    );
    return fields;
  }, []);
  const save = useAction();
  const fields = loaded.data ?? [];

  return (
    <form
      noValidate
      class="card"
      aria-labelledby="tolerances-title"
      onSubmit={async (event) => {
        event.preventDefault();
        const changes = fields
          .filter(
            (field) =>
              (draft[field.path.join('.')] ?? '') !== (field.value === null ? '' : String(field.value)),
          )
          .map((field) => {
            const raw = (draft[field.path.join('.')] ?? '').trim();
            // Keep each value's JSON type: numbers stay numbers, decimal strings stay strings (no float on amounts).
            const decimalText = typeof field.value === 'string' && /^-?\d+(\.\d+)?$/.test(field.value);
            const value: Scalar =
              raw === ''
                ? decimalText
                  ? '0'
                  : null
                : typeof field.value === 'number' && /^-?\d+(\.\d+)?$/.test(raw)
                  ? Number(raw)
                  : typeof field.value === 'boolean'
                    ? raw === 'true'
                    : raw;
            return { path: field.path, value };
          });
        if (changes.length === 0) {
          app.notify('Nothing to save: no setting changed.');
          return;
        }
        const saved = await save.run(() => api('/settings', { method: 'PATCH', body: nest(changes) }));
        if (saved !== undefined) {
          app.notify('Payment settings saved.');
          void loaded.reload();
        }
      }}
    >
      <h2 id="tolerances-title">Payment tolerances and time to pay</h2>
      <p class="muted">
        How exact a payment must be. A payer's wallet or exchange fee can leave a payment a little short; a
        small tolerance turns that into a completed payment instead of an underpaid one. These apply to test
        and live alike.
      </p>
      {loaded.state === 'loading' && <Loading label="Loading your payment settings…" />}
      {loaded.state === 'error' && <ErrorNotice error={loaded.error} onRetry={() => void loaded.reload()} />}
      {loaded.state === 'ready' && fields.length === 0 && (
        <p class="muted">This server offers no payment settings.</p>
      )}
      {fields.length > 0 && (
        <>
          <div class="form-grid">
            {fields.map((field) => {
              const key = field.path.join('.');
              const id = `setting-${field.path.join('-')}`;
              const { label, hint } = labelOf(field.path);
              const error = fieldError(save.error, key, field.path.at(-1) ?? '');
              return (
                <Field
                  key={key}
                  label={label}
                  id={id}
                  error={error}
                  {...(hint === undefined ? {} : { hint })}
                >
                  {typeof field.value === 'boolean' ? (
                    <select
                      {...describedBy(id, { hint: hint !== undefined, error })}
                      value={draft[key] ?? ''}
                      onChange={(event) => {
                        const value = event.currentTarget.value;
                        setDraft((current) => ({ ...current, [key]: value }));
                      }}
                    >
                      <option value="true">Yes</option>
                      <option value="false">No</option>
                    </select>
                  ) : (
                    <input
                      {...describedBy(id, { hint: hint !== undefined, error })}
                      type="text"
                      inputMode={typeof field.value === 'number' ? 'decimal' : undefined}
                      value={draft[key] ?? ''}
                      onInput={(event) => {
                        const value = event.currentTarget.value;
                        setDraft((current) => ({ ...current, [key]: value }));
                      }}
                    />
                  )}
                </Field>
              );
            })}
          </div>
          {save.error !== null && <ErrorNotice error={save.error} compact />}
          <button type="submit" class="button" disabled={save.busy}>
            {save.busy ? 'Saving…' : 'Save payment settings'}
          </button>
        </>
      )}
    </form>
  );
}

interface WalletChange {
  id: string;
  isTest: boolean;
  chain: string;
  oldAddress: string | null;
  newAddress: string | null;
  actor: string;
  ip: string | null;
  createdAt: string;
}

function readChanges(body: unknown): WalletChange[] {
  const data = record(body).data;
  if (!Array.isArray(data)) return [];
  return data.map((item) => {
    const row = record(item);
    const str = (name: string) => (typeof row[name] === 'string' ? (row[name] as string) : null);
    return {
      id: str('id') ?? '',
      isTest: row.is_test === true,
      chain: str('chain') ?? '',
      oldAddress: str('old_address'),
      newAddress: str('new_address'),
      actor: str('actor') ?? '',
      ip: str('ip'),
      createdAt: str('created_at') ?? '',
    };
  });
}

/** Every change of payout wallets, both modes: a change nobody here made is seen at once. */
function WalletChanges({ version }: { version: number }) {
  const changes = useResource(
    async () => readChanges(await api('/settings/payout-wallets/changes', { query: { limit: 50 } })),
    [version],
  );
  return (
    <section class="card" aria-labelledby="wallet-changes-title">
      <h2 id="wallet-changes-title">Payout wallet changes</h2>
      {changes.state === 'loading' && <Loading label="Loading the changes…" />}
      {changes.state === 'error' && (
        <ErrorNotice error={changes.error} onRetry={() => void changes.reload()} />
      )}
      {changes.state === 'ready' &&
        (changes.data.length === 0 ? (
          <p class="muted">No payout wallet has been changed yet.</p>
        ) : (
          <table data-testid="wallet-changes">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Mode</th>
                <th scope="col">Network</th>
                <th scope="col">From</th>
                <th scope="col">To</th>
                <th scope="col">By</th>
              </tr>
            </thead>
            <tbody>
              {changes.data.map((change) => (
                <tr key={change.id}>
                  <td>{new Date(change.createdAt).toLocaleString()}</td>
                  <td>{change.isTest ? 'Test' : 'Live'}</td>
                  <td>{titleCase(change.chain)}</td>
                  <td class="mono">{change.oldAddress ?? '—'}</td>
                  <td class="mono">{change.newAddress ?? '—'}</td>
                  <td>
                    {change.actor}
                    {change.ip !== null && <span class="muted"> from {change.ip}</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
    </section>
  );
}

/** An operator-only view: its answer, or null when the API says this session is not an operator's (403). */
async function operatorOnly<T>(path: string, read: (body: unknown) => T, query?: Record<string, string>) {
  try {
    return read(await api(path, query === undefined ? {} : { query }));
  } catch (error) {
    if (error instanceof ApiError && error.code === 'forbidden') return null;
    throw error;
  }
}

const modeLabel = (wallet: { chain: string; isTest: boolean }) =>
  `${titleCase(wallet.chain)} (${wallet.isTest ? 'test' : 'live'})`;

/** A Tron resource wallet's stake, in a few words: staked, lent now, and the sweeps it covers. */
function StakeSummary({ stake, asset }: { stake: ResourceStake; asset: string }) {
  return (
    <div class="small" data-testid="resource-stake">
      <p>
        Staked for energy: {stake.energyStaked ?? '—'} {asset}
        {stake.energyLent !== null && stake.energyLent !== '0' && (
          <span class="muted"> ({stake.energyLent} lent to sweeps now)</span>
        )}
        {stake.bandwidthStaked !== null && stake.bandwidthStaked !== '0' && (
          <>
            {' '}
            · for bandwidth: {stake.bandwidthStaked} {asset}
          </>
        )}
      </p>
      <p>
        {groupDigits(stake.energyAvailable)} energy free: about {stake.sweepsCovered ?? '—'} USDT sweeps of{' '}
        {groupDigits(stake.energyPerSweep)}
        {stake.short && (
          <span class="badge badge-warn" data-status="short">
            Short
          </span>
        )}
      </p>
    </div>
  );
}

/**
 * The instance's own wallets that pay sweep fees (Solana's fee payer, EVM gas wallets, Tron's fee or resource wallet),
 * for its operators: each with its balance and a warning when sweeps wait for funds, and Tron's resource wallet with
 * its staked energy and a warning when it is short for the next sweep. Everyone else's dashboard shows nothing here
 * (the API says 403).
 */
function FeeWallets() {
  const wallets = useResource(() => operatorOnly('/operator/fee-wallets', readFeeWallets), []);
  if (wallets.state === 'ready' && (wallets.data === null || wallets.data.length === 0)) return null;
  const ready = wallets.state === 'ready' ? (wallets.data ?? []) : [];
  const low = ready.filter((wallet) => wallet.low);
  const short = ready.filter((wallet) => wallet.stake?.short === true);
  return (
    <section class="card" aria-labelledby="fee-wallets-title">
      <h2 id="fee-wallets-title">Network fee wallets</h2>
      <p class="muted">
        This instance pays the network fees of sweeps from these wallets: keep them funded in the network’s
        own coin. Only the instance’s operators see this.
      </p>
      {wallets.state === 'loading' && <Loading label="Loading the fee wallets…" />}
      {wallets.state === 'error' && (
        <ErrorNotice error={wallets.error} onRetry={() => void wallets.reload()} />
      )}
      {low.length > 0 && (
        <Notice tone="warn" title="Fund these wallets">
          <p>{low.map(modeLabel).join(', ')}: sweeps wait, or will fail, until the balance is topped up.</p>
        </Notice>
      )}
      {short.length > 0 && (
        <Notice tone="warn" title="Stake more TRX for energy">
          <p>
            {short.map(modeLabel).join(', ')}: the resource wallet’s free energy is short for the next USDT
            sweep, so sweeps burn TRX (within MAX_BURN_TRX) until more TRX is staked for energy.
          </p>
        </Notice>
      )}
      {wallets.state === 'ready' && wallets.data !== null && (
        <table data-testid="fee-wallets">
          <thead>
            <tr>
              <th scope="col">Network</th>
              <th scope="col">Pays</th>
              <th scope="col">Address</th>
              <th scope="col">Balance</th>
            </tr>
          </thead>
          <tbody>
            {wallets.data.map((wallet) => (
              <tr key={`${wallet.chain}:${wallet.isTest}:${wallet.address}`}>
                <td>
                  {titleCase(wallet.chain)} <span class="muted">{wallet.isTest ? 'test' : 'live'}</span>
                </td>
                <td>{wallet.role}</td>
                <td class="mono">
                  <ExternalLink href={wallet.explorerUrl}>{wallet.address}</ExternalLink>
                </td>
                <td>
                  {wallet.balance === null ? 'unknown' : `${wallet.balance} ${wallet.asset}`}
                  {wallet.low && (
                    <span class="badge badge-warn" data-status="low">
                      Low
                    </span>
                  )}
                  {wallet.lowBelow !== null && (
                    <p class="muted small">
                      Low below {wallet.lowBelow} {wallet.asset}
                    </p>
                  )}
                  {wallet.stake !== null && <StakeSummary stake={wallet.stake} asset={wallet.asset} />}
                  {wallet.tokens.map((token) => (
                    <p class="small" key={token.asset}>
                      {token.balance === null ? 'unknown' : token.balance} {token.asset}
                    </p>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** This month in the form of an <input type="month">: YYYY-MM, UTC as the API counts. */
const thisMonth = () => new Date().toISOString().slice(0, 7);

/**
 * What the instance's sweeps cost in a month, per network and mode, for its operators: how many, the fees they paid
 * (on Tron the TRX they burnt), and on Tron the energy they used and how much of it the staked TRX lent.
 */
function SweepCosts() {
  const [month, setMonth] = useState(thisMonth);
  const costs = useResource(
    () => operatorOnly('/operator/sweep-costs', readSweepCosts, /^\d{4}-\d{2}$/.test(month) ? { month } : {}),
    [month],
  );
  if (costs.state === 'ready' && costs.data === null) return null;
  return (
    <section class="card" aria-labelledby="sweep-costs-title">
      <h2 id="sweep-costs-title">What sweeps cost</h2>
      <p class="muted">
        The network fees the instance’s wallets paid for sweeps that became final in the month, as the chain
        charged them. On Tron the fees are TRX burnt; energy lent by the resource wallet’s stake burns none.
      </p>
      <div class="month-picker">
        <Field label="Month" id="sweep-costs-month" error={null}>
          <input
            id="sweep-costs-month"
            type="month"
            value={month}
            onInput={(event) => setMonth(event.currentTarget.value)}
          />
        </Field>
      </div>
      {costs.state === 'loading' && <Loading label="Loading what sweeps cost…" />}
      {costs.state === 'error' && <ErrorNotice error={costs.error} onRetry={() => void costs.reload()} />}
      {costs.state === 'ready' &&
        costs.data !== null &&
        (costs.data.costs.length === 0 ? (
          <p class="muted">No sweep became final in {costs.data.month ?? month}.</p>
        ) : (
          <table data-testid="sweep-costs">
            <thead>
              <tr>
                <th scope="col">Network</th>
                <th scope="col">Sweeps</th>
                <th scope="col">Fees paid</th>
                <th scope="col">Energy used</th>
                <th scope="col">Of it lent by stake</th>
              </tr>
            </thead>
            <tbody>
              {costs.data.costs.map((cost) => (
                <tr key={`${cost.chain}:${cost.isTest}`}>
                  <td>
                    {titleCase(cost.chain)} <span class="muted">{cost.isTest ? 'test' : 'live'}</span>
                  </td>
                  <td>{cost.sweeps}</td>
                  <td>
                    {cost.fee ?? '—'} {cost.asset}
                    {cost.chain === 'tron' && <span class="muted"> burnt</span>}
                  </td>
                  <td>{cost.energyUsed === null ? '—' : groupDigits(cost.energyUsed)}</td>
                  <td>{cost.energyDelegated === null ? '—' : groupDigits(cost.energyDelegated)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
    </section>
  );
}

export function SettingsPage() {
  const chainsResource = useResource(() => loadChains(() => api('/chains')), []);
  const chains = chainsResource.state === 'loading' ? null : (chainsResource.data ?? fallbackChains);
  const [changesVersion, setChangesVersion] = useState(0);
  return (
    <section>
      <PageHeader title="Settings" description="Where your funds go, and how exact payments must be." />
      {chains === null ? (
        <Loading label="Loading networks…" />
      ) : (
        <PayoutWallets chains={chains} onSaved={() => setChangesVersion((v) => v + 1)} />
      )}
      <WalletChanges version={changesVersion} />
      <Tolerances />
      <FeeWallets />
      <SweepCosts />
    </section>
  );
}
