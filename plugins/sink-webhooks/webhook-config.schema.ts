import { EventType, Type, type ConfigProblem, type Static } from '@crateflow/sdk';

/** The longest `timeout_ms` and the most retries the specification allows. */
export const MAX_TIMEOUT_MS = 30_000;
export const MAX_RETRIES = 5;

/** One entry of `webhooks:` in config.yaml, exactly as the specification describes it. */
export const WebhookConfig = Type.Object(
  {
    name: Type.String({ minLength: 1, description: 'unique name; shown in the delivery log and used by POST /webhooks/test' }),
    enabled: Type.Boolean({ default: true, description: 'false keeps the entry but sends nothing to it' }),
    url: Type.String({
      format: 'uri',
      pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
      description: 'http or https URL that receives a POST per event (LAN addresses are fine; link-local 169.254.0.0/16 and fe80::/10 are refused)',
    }),
    secret: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'signs every delivery (X-Webhook-Signature and the Standard Webhooks headers): any string, or a Standard Webhooks key written whsec_<base64>; write ${ENV_NAME} to keep it out of the file',
      }),
    ),
    events: Type.Array(EventType, { minItems: 1, uniqueItems: true, description: 'the events this webhook receives' }),
    timeout_ms: Type.Integer({ minimum: 1, maximum: MAX_TIMEOUT_MS, default: 10_000, description: 'deadline of one attempt, in milliseconds' }),
    retry: Type.Integer({ minimum: 0, maximum: MAX_RETRIES, default: 0, description: 'retries after a failed attempt, 2, 4, 8, 16 and 32 s apart' }),
  },
  { additionalProperties: false },
);
export type WebhookConfig = Static<typeof WebhookConfig>;

/** The whole `webhooks:` block. */
export const WebhooksConfig = Type.Array(WebhookConfig, { default: [], description: 'outbound webhooks' });
export type WebhooksConfig = Static<typeof WebhooksConfig>;

/**
 * Names must be unique (the delivery log and the test endpoint address webhooks by name), which JSON Schema
 * cannot say; returns one message per repeated name, located like the host's schema messages.
 */
export function duplicateNameProblems(webhooks: readonly WebhookConfig[]): ConfigProblem[] {
  const firstIndex = new Map<string, number>();
  const problems: ConfigProblem[] = [];
  webhooks.forEach((webhook, index) => {
    const first = firstIndex.get(webhook.name);
    if (first === undefined) firstIndex.set(webhook.name, index);
    else problems.push({ path: `[${index}].name`, message: `"${webhook.name}" is already the name of entry ${first}; names must be unique` });
  });
  return problems;
}
