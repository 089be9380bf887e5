import { defineActivity } from '#core/activity/activity_vocabulary'

/**
 * What the access module writes to the Activity log: accounts and API keys (source `auth`), and
 * the license's changes of state and keys entered (source `license`, license/license_service.ts).
 */
export const authActivity = defineActivity({
  sources: { auth: 'Accounts and API keys', license: 'License' },
  kinds: { account: 'Dashboard accounts', apikey: 'API keys', license: 'License' },
})
