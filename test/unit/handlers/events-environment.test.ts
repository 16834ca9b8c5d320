// The task events' and webhooks' settings as the three functions read them from the environment the construct writes:
// off without an event table, webhooks off on request, the trusted origins checked, every required name said when
// missing; and the sealing key derived from its secret's value. Nothing here reaches AWS: the secret and the queue load
// on first use.
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  sealingKeyFromSecret,
  sealingKeyOf,
  taskEventsConfigFromEnvironment,
  trustedOriginsOf,
} from '../../../lambda/handlers/events-environment.js';

/** Everything the construct sets on a function with webhooks on. */
const WEBHOOKS_ON: NodeJS.ProcessEnv = {
  EVENT_TABLE_NAME: 'events',
  WEBHOOK_SEALING_KEY_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:key',
  WEBHOOK_DELIVERY_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/deliveries.fifo',
  WEBHOOK_TRUSTED_CALLBACK_ORIGINS: 'https://hooks.internal, http://10.0.0.5:8080',
};

const without = (name: string): NodeJS.ProcessEnv => {
  const { [name]: _dropped, ...rest } = WEBHOOKS_ON;
  return rest;
};

describe('taskEventsConfigFromEnvironment', () => {
  it('turns task events off without an event table, whatever else is set', () => {
    expect(taskEventsConfigFromEnvironment({})).toBeUndefined();
    expect(taskEventsConfigFromEnvironment(without('EVENT_TABLE_NAME'))).toBeUndefined();
    expect(taskEventsConfigFromEnvironment({ ...WEBHOOKS_ON, EVENT_TABLE_NAME: '' })).toBeUndefined();
  });

  it('keeps the event log but no webhooks when WEBHOOKS_ENABLED is false, needing nothing else', () => {
    expect(taskEventsConfigFromEnvironment({ EVENT_TABLE_NAME: 'events', WEBHOOKS_ENABLED: 'false' })).toEqual({
      eventTableName: 'events',
    });
    expect(taskEventsConfigFromEnvironment({ ...WEBHOOKS_ON, WEBHOOKS_ENABLED: 'false' })).toEqual({
      eventTableName: 'events',
    });
  });

  it.each([undefined, 'true', ''])('turns webhooks on when WEBHOOKS_ENABLED is %j', (enabled) => {
    const env = enabled === undefined ? WEBHOOKS_ON : { ...WEBHOOKS_ON, WEBHOOKS_ENABLED: enabled };
    const config = taskEventsConfigFromEnvironment(env);
    expect(config?.eventTableName).toBe('events');
    expect(config?.webhooks?.policy).toEqual({ trustedOrigins: ['https://hooks.internal', 'http://10.0.0.5:8080'] });
    expect(config?.webhooks?.sealingKey).toBeTypeOf('function');
    expect(config?.webhooks?.queue.send).toBeTypeOf('function');
  });

  it('trusts no origin when none is listed, and never loopback', () => {
    const config = taskEventsConfigFromEnvironment(without('WEBHOOK_TRUSTED_CALLBACK_ORIGINS'));
    expect(config?.webhooks?.policy).toEqual({ trustedOrigins: [] });
  });

  it.each(['WEBHOOK_SEALING_KEY_SECRET_ARN', 'WEBHOOK_DELIVERY_QUEUE_URL'])(
    'throws naming %s when webhooks are on without it',
    (name) => {
      expect(() => taskEventsConfigFromEnvironment(without(name))).toThrow(`Environment variable ${name} is required`);
      expect(() => taskEventsConfigFromEnvironment({ ...WEBHOOKS_ON, [name]: '' })).toThrow(name);
    },
  );

  it('throws naming WEBHOOK_TRUSTED_CALLBACK_ORIGINS for an entry that is not an origin', () => {
    expect(() =>
      taskEventsConfigFromEnvironment({ ...WEBHOOKS_ON, WEBHOOK_TRUSTED_CALLBACK_ORIGINS: 'https://hooks.internal/x' }),
    ).toThrow(/WEBHOOK_TRUSTED_CALLBACK_ORIGINS/);
  });
});

describe('trustedOriginsOf', () => {
  it('reads a comma-separated list, trimming entries and skipping empty ones', () => {
    expect(trustedOriginsOf(' https://hooks.internal ,, http://10.0.0.5:8080, ')).toEqual([
      'https://hooks.internal',
      'http://10.0.0.5:8080',
    ]);
    expect(trustedOriginsOf(undefined)).toEqual([]);
    expect(trustedOriginsOf('')).toEqual([]);
  });

  it.each([
    'https://hooks.internal/path',
    'hooks.internal',
    'ftp://hooks.internal',
    'https://hooks.internal:443',
    'https://Hooks.internal',
    'https://hooks.internal/',
  ])('refuses a trusted origin written as %s, naming the variable and the entry', (origin) => {
    expect(() => trustedOriginsOf(`https://ok.example, ${origin}`)).toThrow(
      `WEBHOOK_TRUSTED_CALLBACK_ORIGINS holds '${origin}'`,
    );
  });
});

describe('sealingKeyOf', () => {
  it('derives a 32-byte sealing key from a base64 key or, hashed, from any other secret value', () => {
    const raw = randomBytes(32);
    expect(sealingKeyOf(raw.toString('base64'))).toEqual(raw);
    const generated = 'a1B2'.repeat(16);
    expect(sealingKeyOf(generated)).toEqual(createHash('sha256').update(generated).digest());
    expect(sealingKeyOf(generated)).toHaveLength(32);
  });

  it('hashes a base64 value of any other length', () => {
    const short = randomBytes(16).toString('base64');
    expect(sealingKeyOf(short)).toEqual(createHash('sha256').update(short, 'utf8').digest());
  });
});

describe('sealingKeyFromSecret', () => {
  it('throws naming the variable when the secret ARN is missing', () => {
    expect(() => sealingKeyFromSecret({})).toThrow('Environment variable WEBHOOK_SEALING_KEY_SECRET_ARN is required');
  });
});
