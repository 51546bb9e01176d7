import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import {
  CopyField,
  describedBy,
  Empty,
  ErrorNotice,
  Field,
  fieldError,
  Loading,
  Notice,
  PageHeader,
  ShownOnce,
  Time,
} from '../components/ui.tsx';
import { dataOf, type Endpoint, readEndpoint, record, text } from '../model.ts';
import { Link } from '../router.tsx';
import { useAction, useApp, useResource } from '../state.tsx';

export interface RevealedSecret {
  endpointId: string;
  url: string;
  secret: string;
  previousExpiresAt: string | null;
}

export function readRevealedSecret(body: unknown): RevealedSecret {
  const source = record(body);
  return {
    endpointId: text(source, 'id') ?? '',
    url: text(source, 'url') ?? '',
    secret: text(source, 'signing_secret', 'secret') ?? '',
    previousExpiresAt: text(source, 'previous_secret_expires_at'),
  };
}

/** The signing secret right after creation or rotation: the only time the API returns it. */
export function SecretOnce({ revealed, onDone }: { revealed: RevealedSecret; onDone: () => void }) {
  return (
    <ShownOnce
      title={
        revealed.previousExpiresAt === null ? 'Endpoint added: its signing secret' : 'New signing secret'
      }
      onDone={onDone}
    >
      <p>
        For <code class="break">{revealed.url}</code>
      </p>
      <CopyField label="Signing secret" value={revealed.secret} testId="signing-secret" />
      <p class="hint">
        Your receiver checks the <code>X-Service-Signature</code> header: <code>sha256=</code> followed by the
        hex HMAC-SHA256 of the raw request body, keyed with this secret.
        {revealed.previousExpiresAt !== null && (
          <>
            {' '}
            The previous secret keeps signing deliveries until <Time iso={revealed.previousExpiresAt} />, so
            you can switch your receiver over without missing anything.
          </>
        )}
      </p>
    </ShownOnce>
  );
}

async function setEnabled(endpoint: Endpoint, enabled: boolean): Promise<Endpoint> {
  return readEndpoint(
    await api(`/webhooks/${encodeURIComponent(endpoint.id)}`, { method: 'PATCH', body: { enabled } }),
  );
}

function AddEndpointForm({
  isTest,
  onAdded,
}: {
  isTest: boolean;
  onAdded: (revealed: RevealedSecret) => void;
}) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const action = useAction();
  const urlError = fieldError(action.error, 'url');
  const descriptionError = fieldError(action.error, 'description');
  return (
    <form
      noValidate
      class="card form-inline-card"
      aria-labelledby="add-endpoint-title"
      onSubmit={async (event) => {
        event.preventDefault();
        const body = await action.run(() =>
          api('/webhooks', {
            method: 'POST',
            body: {
              url: url.trim(),
              is_test: isTest,
              ...(description.trim() === '' ? {} : { description: description.trim() }),
            },
          }),
        );
        if (body !== undefined) {
          setUrl('');
          setDescription('');
          onAdded(readRevealedSecret(body));
        }
      }}
    >
      <h2 id="add-endpoint-title">Add a {isTest ? 'test' : 'live'} endpoint</h2>
      <div class="form-grid">
        <Field
          label="Endpoint URL"
          id="endpoint-url"
          error={urlError}
          hint={
            isTest
              ? 'Where test events are POSTed, e.g. https://example.com/webhooks/svc.'
              : 'Where live events are POSTed. Live endpoints must use https.'
          }
        >
          <input
            {...describedBy('endpoint-url', { hint: true, error: urlError })}
            type="url"
            name="url"
            required
            placeholder="https://example.com/webhooks/svc"
            value={url}
            onInput={(event) => setUrl(event.currentTarget.value)}
          />
        </Field>
        <Field label="Description (optional)" id="endpoint-description" error={descriptionError}>
          <input
            {...describedBy('endpoint-description', { error: descriptionError })}
            type="text"
            name="description"
            maxLength={500}
            value={description}
            onInput={(event) => setDescription(event.currentTarget.value)}
          />
        </Field>
      </div>
      {action.error !== null && urlError === null && descriptionError === null && (
        <ErrorNotice error={action.error} compact />
      )}
      <button type="submit" class="button" disabled={action.busy}>
        {action.busy ? 'Adding…' : 'Add endpoint'}
      </button>
    </form>
  );
}

function EnabledToggle({ endpoint, onChanged }: { endpoint: Endpoint; onChanged: (next: Endpoint) => void }) {
  const action = useAction();
  const app = useApp();
  return (
    <>
      <button
        type="button"
        role="switch"
        aria-checked={endpoint.enabled}
        aria-label={`Deliveries to ${endpoint.url}`}
        class={`toggle${endpoint.enabled ? ' toggle-on' : ''}`}
        disabled={action.busy}
        onClick={async () => {
          const next = await action.run(() => setEnabled(endpoint, !endpoint.enabled));
          if (next !== undefined) {
            onChanged(next);
            app.notify(
              next.enabled
                ? 'Endpoint enabled: it receives events again.'
                : 'Endpoint disabled: it receives nothing until you enable it.',
            );
          }
        }}
      >
        <span class="toggle-knob" aria-hidden="true" />
        <span class="toggle-text">{endpoint.enabled ? 'Enabled' : 'Disabled'}</span>
      </button>
      {action.error !== null && <ErrorNotice error={action.error} compact />}
    </>
  );
}

export function WebhooksPage() {
  const app = useApp();
  const isTest = app.mode === 'test';
  const endpoints = useResource(
    async () => dataOf(await api('/webhooks', { query: { is_test: isTest } })).map(readEndpoint),
    [isTest],
  );
  const [revealed, setRevealed] = useState<RevealedSecret | null>(null);
  const [local, setLocal] = useState<Record<string, Endpoint>>({});
  const rows = (endpoints.data ?? []).map((endpoint) => local[endpoint.id] ?? endpoint);

  return (
    <section>
      <PageHeader
        title="Webhooks"
        description={
          <>
            Your endpoints receive a signed POST whenever a {isTest ? 'test' : 'live'} payment changes status.
            Test and live endpoints are separate; switch mode at the top to see the others.
          </>
        }
      />
      {revealed !== null && <SecretOnce revealed={revealed} onDone={() => setRevealed(null)} />}
      {revealed === null && (
        <AddEndpointForm
          isTest={isTest}
          onAdded={(secret) => {
            setRevealed(secret);
            void endpoints.reload();
          }}
        />
      )}

      <h2>{isTest ? 'Test' : 'Live'} endpoints</h2>
      {endpoints.state === 'loading' && <Loading label="Loading your endpoints…" />}
      {endpoints.state === 'error' && (
        <ErrorNotice error={endpoints.error} onRetry={() => void endpoints.reload()} />
      )}
      {endpoints.data !== null && rows.length === 0 && (
        <Empty title={`No ${isTest ? 'test' : 'live'} endpoints yet`}>
          <p>Add the URL of your server above to be told about every payment's progress.</p>
        </Empty>
      )}
      {rows.length > 0 && (
        <ul class="card-list" data-testid="endpoints">
          {rows.map((endpoint) => (
            <li key={endpoint.id} class={`card endpoint-card${endpoint.enabled ? '' : ' card-muted'}`}>
              <div class="endpoint-main">
                <Link to={`/webhooks/${encodeURIComponent(endpoint.id)}`} class="endpoint-url">
                  {endpoint.url}
                </Link>
                <p class="muted small">
                  {endpoint.description !== null && endpoint.description !== '' && (
                    <>{endpoint.description} · </>
                  )}
                  <code>{endpoint.id}</code> · added <Time iso={endpoint.createdAt} />
                </p>
                <TrippedNotice endpoint={endpoint} />
              </div>
              <div class="endpoint-side">
                <EnabledToggle
                  endpoint={endpoint}
                  onChanged={(next) => setLocal((current) => ({ ...current, [next.id]: next }))}
                />
                <Link
                  to={`/webhooks/${encodeURIComponent(endpoint.id)}`}
                  class="button button-small button-secondary"
                >
                  Deliveries and settings
                </Link>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The endpoint keeps failing: its circuit breaker holds deliveries back and probes one at a time. */
function TrippedNotice({ endpoint }: { endpoint: Endpoint }) {
  if (endpoint.trippedAt === null) return null;
  return (
    <Notice tone="warn" title="This endpoint keeps failing">
      <p data-testid="endpoint-tripped">
        {endpoint.consecutiveFailures} attempts in a row have failed since <Time iso={endpoint.trippedAt} />.
        Deliveries to it are held back and retried one at a time, less and less often, until one succeeds;
        then the rest go out at once. Check that your server answers with a 2xx within the time limit.
      </p>
    </Notice>
  );
}

export { EnabledToggle, TrippedNotice };
