import { defineActivity } from '#core/activity/activity_vocabulary'

/** What the access module writes to the Activity log: accounts and API keys (source `auth`). */
export const authActivity = defineActivity({
  sources: { auth: 'Accounts and API keys' },
  kinds: { account: 'Dashboard accounts', apikey: 'API keys' },
})
