import { useState } from 'preact/hooks';
import { ApiError, api } from '../api.ts';
import { describedBy, ErrorNotice, Field, fieldError, Loading, PageHeader } from '../components/ui.tsx';
import { fallbackChains, loadChains, record, text } from '../model.ts';
import { useAction, useApp, useResource } from '../state.tsx';

interface Branding {
  name: string;
  accent: string;
  email: string;
  url: string;
  logoUrl: string | null;
}

function readBranding(body: unknown): Branding {
  const source = record(body);
  return {
    name: text(source, 'brand_name') ?? '',
    accent: text(source, 'accent_color') ?? '',
    email: text(source, 'support_email') ?? '',
    url: text(source, 'support_url') ?? '',
    logoUrl: text(source, 'logo_url'),
  };
}

/** Sends a logo file as the body with its own type (the API checks the bytes; the browser's guess decides nothing). */
async function uploadLogo(file: File, token: string): Promise<unknown> {
  const response = await fetch('/v1/settings/logo', {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': file.type || 'application/octet-stream' },
    body: file,
    credentials: 'omit',
  });
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    const error = record(record(body).error);
    throw new ApiError(
      response.status,
      text(error, 'code') ?? `http_${response.status}`,
      text(error, 'message') ?? 'The logo was not saved.',
      text(error, 'param') ?? undefined,
      text(error, 'request_id') ?? undefined,
      '/settings/logo',
    );
  }
  return body;
}

/** Which chain/asset pairs payers who pick the coin are offered: every pair, or the ones ticked. */
function OfferedCoins() {
  const app = useApp();
  const chains = useResource(() => loadChains(() => api('/chains')), []);
  const [offered, setOffered] = useState<string[] | null | undefined>(undefined);
  const loaded = useResource(async () => {
    const value = record(await api('/settings')).checkout_options;
    const list = Array.isArray(value) ? value.map(String) : null;
    setOffered(list);
    return list;
  }, []);
  const save = useAction();
  const all = (chains.data ?? fallbackChains).flatMap((chain) =>
    chain.assets.map((asset) => ({ pair: `${chain.id}:${asset}`, label: `${asset} on ${chain.name}` })),
  );
  const current = offered === undefined ? loaded.data : offered;
  return (
    <form
      noValidate
      class="card"
      aria-labelledby="offered-title"
      onSubmit={async (event) => {
        event.preventDefault();
        const saved = await save.run(() =>
          api('/settings', { method: 'PATCH', body: { checkout_options: current ?? null } }),
        );
        if (saved !== undefined) app.notify('The coins offered to your customers are saved.');
      }}
    >
      <h2 id="offered-title">Coins offered when the customer picks</h2>
      <label class="radio">
        <input
          type="checkbox"
          checked={current === null}
          onChange={(event) => setOffered(event.currentTarget.checked ? null : all.map((item) => item.pair))}
        />
        Every coin and network this service can take
      </label>
      {current !== null && current !== undefined && (
        <fieldset class="choice offered-coins">
          <legend>Offer only</legend>
          {all.map((item) => (
            <label class="radio" key={item.pair}>
              <input
                type="checkbox"
                checked={current.includes(item.pair)}
                onChange={(event) =>
                  setOffered(
                    event.currentTarget.checked
                      ? [...current, item.pair]
                      : current.filter((pair) => pair !== item.pair),
                  )
                }
              />
              {item.label}
            </label>
          ))}
        </fieldset>
      )}
      {save.error !== null && <ErrorNotice error={save.error} compact />}
      <button type="submit" class="button" disabled={save.busy || current === undefined}>
        {save.busy ? 'Saving…' : 'Save the coins offered'}
      </button>
    </form>
  );
}

export function BrandingPage() {
  const app = useApp();
  const [draft, setDraft] = useState<Branding | null>(null);
  const loaded = useResource(async () => {
    const branding = readBranding(await api('/settings'));
    setDraft(branding);
    return branding;
  }, []);
  const save = useAction();
  const logo = useAction();
  const errorFor = (param: string) => fieldError(save.error, param);
  const current = draft ?? loaded.data;
  return (
    <section>
      <PageHeader
        title="Checkout branding"
        description="What your customers see on the checkout: your name, logo, colour and where to ask for help. Every payment's page shows it."
      />
      {loaded.state === 'loading' && current === null && <Loading label="Loading your branding" />}
      {loaded.error !== null && <ErrorNotice error={loaded.error} onRetry={loaded.reload} />}
      {current !== null && (
        <>
          <form
            noValidate
            class="card"
            aria-labelledby="brand-title"
            onSubmit={async (event) => {
              event.preventDefault();
              const saved = await save.run(() =>
                api('/settings', {
                  method: 'PATCH',
                  body: {
                    brand_name: current.name,
                    accent_color: current.accent,
                    support_email: current.email,
                    support_url: current.url,
                  },
                }),
              );
              if (saved !== undefined) {
                setDraft(readBranding(saved));
                app.notify('Branding saved. Open checkouts show it within seconds.');
              }
            }}
          >
            <h2 id="brand-title">Name, colour and support</h2>
            <div class="form-grid">
              <Field label="Shop name" id="brand-name" error={errorFor('brand_name')}>
                <input
                  {...describedBy('brand-name', { error: errorFor('brand_name') })}
                  type="text"
                  maxLength={80}
                  value={current.name}
                  onInput={(event) => setDraft({ ...current, name: event.currentTarget.value })}
                />
              </Field>
              <Field
                label="Accent colour"
                id="brand-accent"
                error={errorFor('accent_color')}
                hint="As #rrggbb; buttons keep readable text on it."
              >
                <input
                  {...describedBy('brand-accent', { hint: true, error: errorFor('accent_color') })}
                  type="text"
                  placeholder="#4338ca"
                  maxLength={7}
                  value={current.accent}
                  onInput={(event) => setDraft({ ...current, accent: event.currentTarget.value })}
                />
              </Field>
              <Field label="Support email" id="brand-email" error={errorFor('support_email')}>
                <input
                  {...describedBy('brand-email', { error: errorFor('support_email') })}
                  type="email"
                  value={current.email}
                  onInput={(event) => setDraft({ ...current, email: event.currentTarget.value })}
                />
              </Field>
              <Field label="Help page" id="brand-url" error={errorFor('support_url')}>
                <input
                  {...describedBy('brand-url', { error: errorFor('support_url') })}
                  type="url"
                  placeholder="https://shop.example.com/help"
                  value={current.url}
                  onInput={(event) => setDraft({ ...current, url: event.currentTarget.value })}
                />
              </Field>
            </div>
            {save.error !== null && <ErrorNotice error={save.error} compact />}
            <button type="submit" class="button" disabled={save.busy}>
              {save.busy ? 'Saving…' : 'Save branding'}
            </button>
          </form>
          <section class="card" aria-labelledby="logo-title">
            <h2 id="logo-title">Logo</h2>
            {current.logoUrl !== null ? (
              <p>
                <img class="logo-preview" src={current.logoUrl} alt="Your current logo" height={48} />
              </p>
            ) : (
              <p class="muted">No logo yet.</p>
            )}
            <Field
              label="Upload a logo"
              id="brand-logo"
              hint="PNG, JPEG or WebP, at most 256 KB, 16 to 2048 pixels a side. SVG is not accepted."
            >
              <input
                {...describedBy('brand-logo', { hint: true })}
                type="file"
                accept="image/png,image/jpeg,image/webp"
                disabled={logo.busy}
                onChange={async (event) => {
                  const file = event.currentTarget.files?.[0];
                  if (file === undefined) return;
                  const saved = await logo.run(() => uploadLogo(file, app.session.token));
                  if (saved !== undefined) {
                    setDraft(readBranding(saved));
                    app.notify('Logo saved.');
                  }
                }}
              />
            </Field>
            {logo.error !== null && <ErrorNotice error={logo.error} compact />}
          </section>
          <OfferedCoins />
        </>
      )}
    </section>
  );
}
