import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { DeliveryList } from '../components/deliveries.tsx';
import {
  ConfirmDialog,
  describedBy,
  Empty,
  ErrorNotice,
  Field,
  fieldError,
  Loading,
  PageHeader,
  Time,
} from '../components/ui.tsx';
import {
  type Delivery,
  type Endpoint,
  integer,
  type Page,
  readDelivery,
  readEndpoint,
  readPage,
  record,
} from '../model.ts';
import { Link, navigate } from '../router.tsx';
import { useAction, useApp, useResource } from '../state.tsx';
import {
  EnabledToggle,
  type RevealedSecret,
  readRevealedSecret,
  SecretOnce,
  TrippedNotice,
} from './webhooks.tsx';

const sinceChoices = [
  { value: '24h', label: 'the last 24 hours', ms: 24 * 3600 * 1000 },
  { value: '3d', label: 'the last 3 days', ms: 3 * 24 * 3600 * 1000 },
  { value: '7d', label: 'the last 7 days', ms: 7 * 24 * 3600 * 1000 },
  { value: '30d', label: 'the last 30 days', ms: 30 * 24 * 3600 * 1000 },
] as const;

function EditEndpoint({ endpoint, onSaved }: { endpoint: Endpoint; onSaved: (next: Endpoint) => void }) {
  const [open, setOpen] = useState(false);
  const [url, setUrl] = useState(endpoint.url);
  const [description, setDescription] = useState(endpoint.description ?? '');
  const action = useAction();
  const urlError = fieldError(action.error, 'url');
  if (!open) {
    return (
      <button type="button" class="button button-small button-secondary" onClick={() => setOpen(true)}>
        Edit URL or description
      </button>
    );
  }
  return (
    <form
      noValidate
      class="card"
      onSubmit={async (event) => {
        event.preventDefault();
        const body = await action.run(() =>
          api(`/webhooks/${encodeURIComponent(endpoint.id)}`, {
            method: 'PATCH',
            body: { url: url.trim(), description: description.trim() === '' ? null : description.trim() },
          }),
        );
        if (body !== undefined) {
          onSaved(readEndpoint(body));
          setOpen(false);
        }
      }}
    >
      <div class="form-grid">
        <Field label="Endpoint URL" id="edit-url" error={urlError}>
          <input
            {...describedBy('edit-url', { error: urlError })}
            type="url"
            required
            value={url}
            onInput={(event) => setUrl(event.currentTarget.value)}
          />
        </Field>
        <Field label="Description" id="edit-description">
          <input
            id="edit-description"
            type="text"
            maxLength={500}
            value={description}
            onInput={(event) => setDescription(event.currentTarget.value)}
          />
        </Field>
      </div>
      {action.error !== null && urlError === null && <ErrorNotice error={action.error} compact />}
      <div class="button-row">
        <button type="submit" class="button" disabled={action.busy}>
          {action.busy ? 'Saving…' : 'Save'}
        </button>
        <button type="button" class="button button-secondary" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function Deliveries({ endpoint }: { endpoint: Endpoint }) {
  const app = useApp();
  const [pages, setPages] = useState<Page<Delivery>[]>([]);
  const [since, setSince] = useState<(typeof sinceChoices)[number]['value']>('24h');
  const first = useResource(
    async (isCurrent) => {
      const page = readPage(
        await api(`/webhooks/${encodeURIComponent(endpoint.id)}/deliveries`),
        readDelivery,
        (delivery) => delivery.id,
      );
      if (isCurrent()) setPages([page]);
      return page;
    },
    [endpoint.id],
  );
  const more = useAction();
  const bulk = useAction();
  const test = useAction();
  const deliveries = pages.flatMap((page) => page.items);
  const next = pages.at(-1)?.next ?? null;
  const refreshSoon = () => window.setTimeout(() => void first.reload(), 1200);

  return (
    <section aria-labelledby="deliveries-title">
      <div class="section-header">
        <h2 id="deliveries-title">Deliveries</h2>
        <div class="button-row">
          <button
            type="button"
            class="button button-secondary button-small"
            onClick={() => void first.reload()}
            disabled={first.state === 'loading'}
          >
            Refresh
          </button>
          <button
            type="button"
            class="button button-small"
            disabled={test.busy || !endpoint.enabled}
            title={endpoint.enabled ? undefined : 'Enable the endpoint to send it events'}
            onClick={async () => {
              const sent = await test.run(async () => {
                await api(`/webhooks/${encodeURIComponent(endpoint.id)}/test`, { method: 'POST' });
                return true;
              });
              if (sent) {
                app.notify('Test event sent. Its delivery appears below in a moment.');
                refreshSoon();
              }
            }}
          >
            {test.busy ? 'Sending…' : 'Send test event'}
          </button>
        </div>
      </div>
      {test.error !== null && <ErrorNotice error={test.error} />}

      <form
        class="redeliver-failed"
        onSubmit={async (event) => {
          event.preventDefault();
          const choice = sinceChoices.find((option) => option.value === since) ?? sinceChoices[0];
          const done = await bulk.run(async () => ({
            body: record(
              await api(`/webhooks/${encodeURIComponent(endpoint.id)}/redeliver-failed`, {
                method: 'POST',
                body: { since: new Date(Date.now() - choice.ms).toISOString() },
              }),
            ),
          }));
          if (done !== undefined) {
            const count = integer(done.body, 'redelivered', 'count');
            app.notify(
              count === 0
                ? `No failed delivery in ${choice.label}: nothing to send again.`
                : count === null
                  ? `Every failed delivery of ${choice.label} is being sent again.`
                  : `${count} failed ${count === 1 ? 'delivery is' : 'deliveries are'} being sent again.`,
            );
            refreshSoon();
          }
        }}
      >
        <label for="redeliver-since">Send again every failed delivery of</label>
        <select
          id="redeliver-since"
          value={since}
          onChange={(event) => setSince(event.currentTarget.value as typeof since)}
        >
          {sinceChoices.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
        <button type="submit" class="button button-secondary button-small" disabled={bulk.busy}>
          {bulk.busy ? 'Sending…' : 'Redeliver all failed'}
        </button>
      </form>
      {bulk.error !== null && <ErrorNotice error={bulk.error} />}

      {first.state === 'loading' && <Loading label="Loading deliveries…" />}
      {first.state === 'error' && <ErrorNotice error={first.error} onRetry={() => void first.reload()} />}
      {first.state !== 'loading' && first.data !== null && deliveries.length === 0 && (
        <Empty title="No deliveries yet">
          <p>
            Each payment event sent to this endpoint is listed here with every attempt. Send a test event to
            try your receiver.
          </p>
        </Empty>
      )}
      {deliveries.length > 0 && <DeliveryList deliveries={deliveries} onChanged={refreshSoon} />}
      {next !== null && (
        <button
          type="button"
          class="button button-secondary"
          disabled={more.busy}
          onClick={async () => {
            const page = await more.run(async () =>
              readPage(
                await api(`/webhooks/${encodeURIComponent(endpoint.id)}/deliveries`, { query: next }),
                readDelivery,
                (delivery) => delivery.id,
              ),
            );
            if (page !== undefined) setPages((current) => [...current, page]);
          }}
        >
          {more.busy ? 'Loading…' : 'Show older deliveries'}
        </button>
      )}
      {more.error !== null && <ErrorNotice error={more.error} compact />}
    </section>
  );
}

export function WebhookDetailPage({ id }: { id: string }) {
  const app = useApp();
  const loaded = useResource(
    async () => readEndpoint(await api(`/webhooks/${encodeURIComponent(id)}`)),
    [id],
  );
  const [override, setOverride] = useState<Endpoint | null>(null);
  const [revealed, setRevealed] = useState<RevealedSecret | null>(null);
  const [confirm, setConfirm] = useState<'rotate' | 'delete' | null>(null);
  const endpoint = override ?? loaded.data;

  if (endpoint === null) {
    return (
      <section>
        <PageHeader title="Webhook endpoint" />
        {loaded.state === 'loading' && <Loading label="Loading the endpoint…" />}
        {loaded.state === 'error' && (
          <ErrorNotice error={loaded.error} onRetry={() => void loaded.reload()} />
        )}
        <p>
          <Link to="/webhooks">Back to webhooks</Link>
        </p>
      </section>
    );
  }

  const otherMode = endpoint.isTest !== (app.mode === 'test');
  return (
    <section>
      <p class="breadcrumb">
        <Link to="/webhooks">Webhooks</Link> <span aria-hidden="true">›</span> {endpoint.id}
      </p>
      <PageHeader
        title="Webhook endpoint"
        description={<span class="endpoint-url-big break">{endpoint.url}</span>}
      />
      {otherMode && (
        <div class="notice notice-info">
          <p>
            This is a {endpoint.isTest ? 'test' : 'live'} endpoint; you are in {app.mode} mode. It only
            receives {endpoint.isTest ? 'test' : 'live'} events.
          </p>
        </div>
      )}
      {revealed !== null && <SecretOnce revealed={revealed} onDone={() => setRevealed(null)} />}
      <div class="card">
        <dl class="facts">
          <dt>Mode</dt>
          <dd>
            <span class={`badge ${endpoint.isTest ? 'badge-warn' : 'badge-info'}`}>
              {endpoint.isTest ? 'Test' : 'Live'}
            </span>
          </dd>
          <dt>Deliveries</dt>
          <dd>
            <EnabledToggle endpoint={endpoint} onChanged={setOverride} />
          </dd>
          <dt>Description</dt>
          <dd>{endpoint.description ?? <span class="muted">None</span>}</dd>
          <dt>Id</dt>
          <dd>
            <code>{endpoint.id}</code>
          </dd>
          <dt>Added</dt>
          <dd>
            <Time iso={endpoint.createdAt} />
          </dd>
        </dl>
        <div class="button-row">
          <EditEndpoint endpoint={endpoint} onSaved={setOverride} />
          <button
            type="button"
            class="button button-small button-secondary"
            onClick={() => setConfirm('rotate')}
          >
            Rotate signing secret
          </button>
          <button
            type="button"
            class="button button-small button-danger-outline"
            onClick={() => setConfirm('delete')}
          >
            Delete endpoint
          </button>
        </div>
      </div>

      <TrippedNotice endpoint={endpoint} />

      <Deliveries endpoint={endpoint} />

      {confirm === 'rotate' && (
        <ConfirmDialog
          title="Rotate the signing secret?"
          confirmLabel="Rotate secret"
          onClose={() => setConfirm(null)}
          onConfirm={async () => {
            const body = await api(`/webhooks/${encodeURIComponent(endpoint.id)}/rotate-secret`, {
              method: 'POST',
            });
            setRevealed(readRevealedSecret(body));
          }}
        >
          <p>
            A new secret starts signing deliveries now. The current one keeps signing them too for 24 hours,
            so you have time to update your receiver.
          </p>
        </ConfirmDialog>
      )}
      {confirm === 'delete' && (
        <ConfirmDialog
          title="Delete this endpoint?"
          confirmLabel="Delete endpoint"
          danger
          onClose={() => setConfirm(null)}
          onConfirm={async () => {
            await api(`/webhooks/${encodeURIComponent(endpoint.id)}`, { method: 'DELETE' });
            app.notify('Endpoint deleted. It receives nothing more.');
            navigate('/webhooks');
          }}
        >
          <p>
            <code class="break">{endpoint.url}</code> will receive nothing more, including retries that are
            still scheduled. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
