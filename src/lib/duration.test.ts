import { describe, expect, it } from 'vitest';
import { testConfig } from '../../test/support/harness.ts';
import { ConfigError } from '../config.ts';
import { DurationFormatError, formatDuration, parseDuration, parseDurationList } from './duration.ts';

describe('durations', () => {
  it('parses units', () => {
    expect(parseDurationList('250ms,1s,1m,2h')).toEqual([250, 1000, 60_000, 7_200_000]);
    expect(parseDuration(' 1.5s ')).toBe(1500);
    expect(parseDuration('1d')).toBe(86_400_000);
    expect(formatDuration(60_000)).toBe('1m');
    expect(formatDuration(1500)).toBe('1500ms');
  });

  it('refuses numbers without units and other shapes', () => {
    for (const bad of ['250', '1 m', 'm', '-1s', '1w', '']) {
      expect(() => parseDuration(bad)).toThrow(DurationFormatError);
    }
  });

  it('configures the webhook schedule and the private-target allowance', () => {
    const defaults = testConfig();
    expect(defaults.webhookRetryScheduleMs).toEqual([60_000, 600_000, 6_000_000, 60_000_000]);
    expect(defaults.webhookTimeoutMs).toBe(5000);
    expect(defaults.allowPrivateWebhookTargets).toBe(true);
    expect(testConfig({ SVC_WEBHOOK_RETRY_SCHEDULE: '250ms,1s,1m,2h' }).webhookRetryScheduleMs).toEqual([
      250, 1000, 60_000, 7_200_000,
    ]);
    expect(
      testConfig({ DATABASE_URL: 'postgres://u@h/db', SVC_JWT_SECRET: 'x'.repeat(32) })
        .allowPrivateWebhookTargets,
    ).toBe(false);
    expect(
      testConfig({
        DATABASE_URL: 'postgres://u@h/db',
        SVC_JWT_SECRET: 'x'.repeat(32),
        SVC_ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
      }).allowPrivateWebhookTargets,
    ).toBe(true);
    expect(() => testConfig({ SVC_WEBHOOK_RETRY_SCHEDULE: '1m,10m' })).toThrow(ConfigError);
    expect(() => testConfig({ SVC_WEBHOOK_RETRY_SCHEDULE: '1m,10m,100,1000m' })).toThrow(
      /SVC_WEBHOOK_RETRY_SCHEDULE/,
    );
  });
});
