import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import {
  ConfirmDialog,
  CopyField,
  Empty,
  ErrorNotice,
  Loading,
  Notice,
  PageHeader,
  ShownOnce,
  Time,
} from '../components/ui.tsx';
import { type CreatedKeypair, dataOf, type Keypair, readCreatedKeypair, readKeypair } from '../model.ts';
import { useAction, useApp, useResource } from '../state.tsx';
import { LiveReadinessNotice } from './setup.tsx';

async function generateKeypair(): Promise<CreatedKeypair> {
  return readCreatedKeypair(await api('/keypairs', { method: 'POST' }));
}

/** The two keys of a new pair, shown exactly once. */
function NewKeypair({ keypair, onDone }: { keypair: CreatedKeypair; onDone: () => void }) {
  return (
    <ShownOnce title="Your new keypair" onDone={onDone} doneLabel="I have saved both keys">
      <CopyField label="Test key" value={keypair.testKey} testId="new-test-key" />
      <CopyField label="Live key" value={keypair.liveKey} testId="new-live-key" />
      <p class="hint">
        Put them in your server's environment (for example <code>SVC_API_KEY</code>), never in a browser or a
        public repository. Your server sends one in the <code>x-api-key</code> header.
      </p>
    </ShownOnce>
  );
}

function KeyCell({ prefix, last4 }: { prefix: string; last4: string }) {
  return (
    <code class="key-redacted" title="Only the start and the last 4 characters are kept for display">
      {prefix}…{last4}
    </code>
  );
}

export function KeysPage() {
  const app = useApp();
  const keypairs = useResource(async () => dataOf(await api('/keypairs')).map(readKeypair), []);
  const [created, setCreated] = useState<CreatedKeypair | null>(null);
  const [revoking, setRevoking] = useState<Keypair | null>(null);
  const generate = useAction();

  const onGenerate = async () => {
    const pair = await generate.run(generateKeypair);
    if (pair !== undefined) {
      setCreated(pair);
      void keypairs.reload();
    }
  };

  const active = (keypairs.data ?? []).filter((pair) => !pair.revoked).length;

  return (
    <section>
      <PageHeader
        title="API keys"
        description={
          <>
            Each keypair has a <strong>test key</strong> (<code>svc_test_…</code>) for trying things out, and
            a <strong>live key</strong> (<code>svc_live_…</code>) for real payments. Your server sends one in
            the <code>x-api-key</code> header.
          </>
        }
        actions={
          <button
            type="button"
            class="button"
            onClick={onGenerate}
            disabled={generate.busy || created !== null}
          >
            {generate.busy ? 'Generating…' : 'Generate keypair'}
          </button>
        }
      />
      {generate.error !== null && <ErrorNotice error={generate.error} />}
      <LiveReadinessNotice />
      {created !== null && <NewKeypair keypair={created} onDone={() => setCreated(null)} />}

      <h2>Your keypairs</h2>
      {keypairs.state === 'loading' && <Loading label="Loading your keypairs…" />}
      {keypairs.state === 'error' && (
        <ErrorNotice error={keypairs.error} onRetry={() => void keypairs.reload()} />
      )}
      {keypairs.data !== null && keypairs.data.length === 0 && (
        <Empty title="You have no API keys yet">
          <p>Generate a keypair to let your server create payments and manage webhooks.</p>
        </Empty>
      )}
      {keypairs.data !== null && keypairs.data.length > 0 && (
        <>
          {active === 0 && (
            <Notice tone="warn">
              <p>
                All your keypairs are revoked, so your server cannot call the API. Generate a new keypair.
              </p>
            </Notice>
          )}
          <div class="table-wrap">
            <table class="table" data-testid="keypairs">
              <caption class="visually-hidden">Keypairs, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Keypair</th>
                  <th scope="col">Test key</th>
                  <th scope="col">Live key</th>
                  <th scope="col">Created</th>
                  <th scope="col">Status</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {keypairs.data.map((pair) => (
                  <tr key={pair.id} class={pair.revoked ? 'row-muted' : ''} data-keypair={pair.id}>
                    <td>
                      <code>{pair.id}</code>
                    </td>
                    <td>
                      <KeyCell {...pair.test} />
                    </td>
                    <td>
                      <KeyCell {...pair.live} />
                    </td>
                    <td>
                      <Time iso={pair.createdAt} />
                    </td>
                    <td>
                      {pair.revoked ? (
                        <span class="badge badge-bad">
                          Revoked
                          {pair.revokedAt !== null && (
                            <>
                              {' '}
                              · <Time iso={pair.revokedAt} />
                            </>
                          )}
                        </span>
                      ) : (
                        <span class="badge badge-good">Active</span>
                      )}
                    </td>
                    <td class="cell-actions">
                      {!pair.revoked && (
                        <button
                          type="button"
                          class="button button-small button-danger-outline"
                          onClick={() => setRevoking(pair)}
                          aria-label={`Revoke keypair ${pair.id}`}
                        >
                          Revoke
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      <p class="hint">
        Full keys are shown only once, when generated. If a key leaks, revoke its pair here and generate a new
        one.
      </p>

      {revoking !== null && (
        <ConfirmDialog
          title="Revoke this keypair?"
          confirmLabel="Revoke both keys"
          danger
          onClose={() => setRevoking(null)}
          onConfirm={async () => {
            await api(`/keypairs/${encodeURIComponent(revoking.id)}/revoke`, { method: 'POST' });
            app.notify(`Keypair ${revoking.id} revoked. Both of its keys stopped working.`);
            await keypairs.reload();
          }}
        >
          <p>
            Both keys of <code>{revoking.id}</code> stop working at once: the test key{' '}
            <KeyCell {...revoking.test} /> and the live key <KeyCell {...revoking.live} />.
          </p>
          <p>Any server still using them will be refused. This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
