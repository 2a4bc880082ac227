import { testNotifierContract } from '@crateflow/sdk/testing';
import telegram from '@crateflow/notify-telegram';
import { DEFAULT_CHAT_ID, startFakeTelegram } from '../../fakes/fake-telegram.js';

testNotifierContract(telegram, {
  service: () => startFakeTelegram(),
  config: (fake) => ({ bot_token: fake.token, chat_ids: [DEFAULT_CHAT_ID], api_url: fake.apiUrl, poll_timeout_s: 1 }),
  delivered: (fake) => fake.sent.length,
});
