import { Type } from 'typebox';
import { WebhookTarget } from '@crateflow/sdk';

/** `GET /webhooks`: the configured webhooks (the other webhook shapes are the sdk's, shared with the plugin). */
export const WebhookTargetList = Type.Object({ items: Type.Array(WebhookTarget) });
