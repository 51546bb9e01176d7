/** Display helpers. Amounts are shown exactly as the API sent them (decimal strings); nothing is rounded here. */

export function formatDateTime(iso: string | null | undefined): string {
  if (iso === null || iso === undefined || iso === '') return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
}

/** "in 12 min", "3 h ago" … relative to `now` (milliseconds). */
export function relativeTime(iso: string | null | undefined, now: number = Date.now()): string {
  if (iso === null || iso === undefined) return '';
  const time = new Date(iso).getTime();
  if (Number.isNaN(time)) return '';
  const seconds = Math.round((time - now) / 1000);
  const magnitude = Math.abs(seconds);
  const [value, unit] =
    magnitude < 60
      ? [magnitude, 's']
      : magnitude < 3600
        ? [Math.round(magnitude / 60), 'min']
        : magnitude < 86400
          ? [Math.round(magnitude / 3600), 'h']
          : [Math.round(magnitude / 86400), 'd'];
  if (magnitude < 5) return 'just now';
  return seconds > 0 ? `in ${value} ${unit}` : `${value} ${unit} ago`;
}

export function formatAmount(amount: string | null, unit: string | null): string {
  if (amount === null) return '—';
  return unit === null ? amount : `${amount} ${unit}`;
}

/** An integer's decimal text with thousands grouped ("194570" → "194,570"), digit for digit: no number on the way. */
export function groupDigits(integer: string | null): string {
  if (integer === null) return '—';
  const match = /^(-?)(\d+)$/.exec(integer);
  if (match === null) return integer;
  return `${match[1]}${(match[2] ?? '').replace(/\B(?=(\d{3})+$)/g, ',')}`;
}

/** Shortens long ids and hashes for tables: `0x12ab…89ef`. The full value stays in a title or copy button. */
export function shorten(value: string | null, head = 10, tail = 6): string {
  if (value === null) return '—';
  return value.length <= head + tail + 1 ? value : `${value.slice(0, head)}…${value.slice(-tail)}`;
}

const statusLabels: Record<string, string> = {
  pending: 'Awaiting payment',
  confirming: 'Confirming',
  completed: 'Completed',
  underpaid: 'Underpaid',
  overpaid: 'Overpaid',
  expired: 'Expired',
  succeeded: 'Delivered',
  delivered: 'Delivered',
  failed: 'Failed',
  canceled: 'Canceled',
  scheduled: 'Retry scheduled',
  retrying: 'Retry scheduled',
  in_flight: 'Sending',
  delivering: 'Sending',
  final: 'Final',
  seen: 'Confirming',
  reverted: 'Reverted',
};

const deliveryLabels: Record<string, string> = {
  pending: 'Pending',
  succeeded: 'Delivered',
  failed: 'Failed',
  canceled: 'Canceled',
};

export function statusLabel(status: string | null, kind: 'payment' | 'delivery' = 'payment'): string {
  if (status === null) return 'Unknown';
  if (kind === 'delivery' && deliveryLabels[status] !== undefined) return deliveryLabels[status];
  return statusLabels[status] ?? status.replace(/_/g, ' ').replace(/^\w/, (letter) => letter.toUpperCase());
}

export type Tone = 'good' | 'warn' | 'bad' | 'info' | 'neutral';

export function statusTone(status: string | null): Tone {
  switch (status) {
    case 'completed':
    case 'succeeded':
    case 'delivered':
    case 'final':
      return 'good';
    case 'underpaid':
    case 'overpaid':
    case 'scheduled':
    case 'retrying':
      return 'warn';
    case 'failed':
    case 'reverted':
      return 'bad';
    case 'confirming':
    case 'mempool':
    case 'seen':
    case 'in_flight':
    case 'delivering':
      return 'info';
    default:
      return 'neutral';
  }
}

const eventDescriptions: Record<string, string> = {
  'payment.confirmed': 'Payment confirmed on chain',
  'payment.completed': 'Funds forwarded to your payout wallet',
  'payment.expired': 'Payment window ended',
  'payment.underpaid': 'Less than expected was received',
  'payment.overpaid': 'More than expected was received',
  'payment.created': 'Payment created',
  'webhook.test': 'Test event',
  'payout_wallet.updated': 'Payout wallets changed',
  'webhook_endpoint.failing': 'A webhook endpoint keeps failing: deliveries slowed',
  'webhook_endpoint.recovered': 'A failing webhook endpoint recovered',
};

export function describeEvent(type: string): string {
  return eventDescriptions[type] ?? type;
}
