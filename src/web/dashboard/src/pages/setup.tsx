import { api } from '../api.ts';
import { ErrorNotice, Loading, Notice, PageHeader } from '../components/ui.tsx';
import { dataOf, record, text } from '../model.ts';
import { Link } from '../router.tsx';
import { useApp, useResource } from '../state.tsx';

interface ChainReadiness {
  chain: string;
  name: string;
  node: string;
  nodeProblem: string | null;
  payoutWallet: boolean;
  feeWallet: string;
  ready: boolean;
  missing: string[];
}

interface Readiness {
  seedConfigured: boolean;
  chains: ChainReadiness[];
}

function readReadiness(body: unknown): Readiness {
  const source = record(body);
  return {
    seedConfigured: source.seed_configured === true,
    chains: (Array.isArray(source.chains) ? source.chains : []).map((value) => {
      const chain = record(value);
      return {
        chain: text(chain, 'chain') ?? '',
        name: text(chain, 'name') ?? '',
        node: text(chain, 'node') ?? 'not_configured',
        nodeProblem: text(chain, 'node_problem'),
        payoutWallet: chain.payout_wallet === true,
        feeWallet: text(chain, 'fee_wallet') ?? 'none',
        ready: chain.ready === true,
        missing: Array.isArray(chain.missing) ? chain.missing.map(String) : [],
      };
    }),
  };
}

/** The mode's per-chain readiness (the live checklist, or test mode's). */
function loadReadiness(isTest: boolean): Promise<Readiness> {
  return api('/settings/readiness', { query: { is_test: isTest } }).then(readReadiness);
}

const missingText: Record<string, string> = {
  seed: 'the server has no mnemonic for this mode (SVC_MNEMONIC)',
  node: 'no node is connected (SVC_CHAIN_<NAME>_RPC_URL)',
  node_healthy: 'its node is not answering or is behind',
  payout_wallet: 'no payout wallet is set',
  fee_wallet: "the instance's fee wallet is low",
};

/** What keeps a chain from taking payments, in words. */
function whyNotReady(chain: ChainReadiness): string {
  return chain.missing.map((item) => missingText[item] ?? item).join('; ');
}

function Mark({ ok, label }: { ok: boolean; label: string }) {
  return (
    <span class={`check ${ok ? 'check-ok' : 'check-missing'}`}>
      <span aria-hidden="true">{ok ? '✓' : '✗'}</span> {label}
    </span>
  );
}

export function SetupPage() {
  const app = useApp();
  const isTest = app.mode === 'test';
  const steps = useResource(async () => {
    const [keypairs, endpoints, readiness] = await Promise.all([
      api('/keypairs'),
      api('/webhooks', { query: { is_test: isTest } }),
      loadReadiness(isTest),
    ]);
    return {
      keys: dataOf(keypairs).filter((pair) => text(record(pair), 'revoked_at') === null).length,
      endpoints: dataOf(endpoints).length,
      readiness,
    };
  }, [isTest]);
  const data = steps.data;
  return (
    <section>
      <PageHeader
        title="Setup checklist"
        description={`What ${isTest ? 'test' : 'live'} payments need, and what is missing. Switch the mode at the top to see the other.`}
      />
      {steps.state === 'loading' && data === null && <Loading label="Checking the setup" />}
      {steps.error !== null && <ErrorNotice error={steps.error} onRetry={steps.reload} />}
      {data !== null && (
        <>
          <ol class="card checklist" aria-label="Getting started">
            <li>
              <Mark ok label="An account" />
            </li>
            <li>
              <Mark ok={data.keys > 0} label="API keys for your server" />{' '}
              {data.keys === 0 && <Link to="/keys">Generate a keypair</Link>}
            </li>
            <li>
              <Mark ok={data.endpoints > 0} label={`A ${isTest ? 'test' : 'live'} webhook endpoint`} />{' '}
              {data.endpoints === 0 && <Link to="/webhooks">Add one</Link>}
            </li>
            <li>
              <Mark
                ok={data.readiness.chains.some((chain) => chain.ready)}
                label={`At least one chain ready for ${isTest ? 'test' : 'live'} payments`}
              />
            </li>
          </ol>
          {!data.readiness.seedConfigured && (
            <Notice tone="warn">
              <p>
                This server has no mnemonic for {isTest ? 'test' : 'live'} mode: no payment can be taken in it
                until its operator sets one.
              </p>
            </Notice>
          )}
          <div class="table-wrap">
            <table class="table" data-testid="readiness">
              <caption class="visually-hidden">Readiness of each chain</caption>
              <thead>
                <tr>
                  <th scope="col">Chain</th>
                  <th scope="col">Node</th>
                  <th scope="col">Payout wallet</th>
                  <th scope="col">Fee wallet</th>
                  <th scope="col">Ready</th>
                </tr>
              </thead>
              <tbody>
                {data.readiness.chains.map((chain) => (
                  <tr key={chain.chain} data-chain={chain.chain} data-ready={chain.ready}>
                    <th scope="row">{chain.name}</th>
                    <td>
                      <Mark
                        ok={chain.node === 'ok'}
                        label={
                          chain.node === 'ok'
                            ? 'Connected'
                            : chain.node === 'unhealthy'
                              ? 'Not answering'
                              : 'Not configured'
                        }
                      />
                    </td>
                    <td>
                      {isTest ? (
                        <span class="muted">Not needed</span>
                      ) : (
                        <Mark ok={chain.payoutWallet} label={chain.payoutWallet ? 'Set' : 'Missing'} />
                      )}
                    </td>
                    <td>
                      {chain.feeWallet === 'none' ? (
                        <span class="muted">Not needed</span>
                      ) : (
                        <Mark
                          ok={chain.feeWallet === 'funded'}
                          label={chain.feeWallet === 'funded' ? 'Funded' : 'Low'}
                        />
                      )}
                    </td>
                    <td>
                      {chain.ready ? (
                        <Mark ok label="Ready" />
                      ) : (
                        <span class="check check-missing">Not ready: {whyNotReady(chain)}</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {!isTest && (
            <p class="hint">
              Payout wallets are set on the <Link to="/settings">Settings</Link> page; nodes and the fee
              wallets are the operator's (see the README, "Live payments on …").
            </p>
          )}
        </>
      )}
    </section>
  );
}

/**
 * A warning beside live keys and live payments: which chains can take live payments now, and for a chosen chain what
 * keeps it from being ready. Nothing while every chain is ready.
 */
export function LiveReadinessNotice({ chain }: { chain?: string }) {
  const readiness = useResource(() => loadReadiness(false), []);
  const data = readiness.data;
  if (data === null) return null;
  const ready = data.chains.filter((item) => item.ready);
  const chosen = chain === undefined ? undefined : data.chains.find((item) => item.chain === chain);
  if (chosen?.ready === true || (chosen === undefined && ready.length === data.chains.length)) return null;
  return (
    <Notice tone="warn">
      <p data-testid="live-readiness">
        {chosen !== undefined ? (
          <>
            <strong>{chosen.name} is not ready for live payments:</strong> {whyNotReady(chosen)}. A live
            payment there would not be taken or swept.{' '}
          </>
        ) : ready.length === 0 ? (
          <>
            <strong>No chain is ready for live payments yet:</strong> a live key cannot take a payment.{' '}
          </>
        ) : (
          <>
            <strong>Live payments are ready on {ready.map((item) => item.name).join(', ')} only.</strong> A
            live key used on another chain is refused.{' '}
          </>
        )}
        See the <Link to="/setup">setup checklist</Link>.
      </p>
    </Notice>
  );
}
