// The subscriptions module: PostHog's subscriptions (an insight or a dashboard delivered on
// a schedule to a webhook, Slack or email), delivered once per occurrence across a cluster,
// and `hedgerow subscription run ID`.
import { nodeModule } from '../modules/index.js';
import { DATA_DIR, JSON_FLAG, print, type CommandEntry } from '../modules/command.js';
import type { SubscriptionsTablesUsed } from './start.js';

const commands: CommandEntry[] = [{
  path: ['subscription', 'run'], summary: 'deliver a subscription now (the running service sends it at its next look)',
  args: [{ name: 'ID', doc: 'the subscription\'s id' }], settings: DATA_DIR, flags: [JSON_FLAG],
  async run({ args, config, service }) {
    const { runSubscriptionCommand } = await import('./cli.js');
    return print(await runSubscriptionCommand(args, { ...config, open: service.openDataDir(config) }));
  },
}];

export const subscriptionsModule = nodeModule<undefined, SubscriptionsTablesUsed>({
  name: 'subscriptions',
  commands,
  writes: async () => (await import('./commands.js')).subscriptionCommands,
  start: async (ctx, use) => (await import('./start.js')).startSubscriptions(ctx, use),
});
