/**
 * The documented defaults of core's settings fields (app/core/settings/settings_catalogue.ts,
 * providers/core_provider.ts): a contract with operators, checked by
 * tests/functional/platform/settings.spec.ts against GET /settings. One file per owner; a new
 * module keeps its own in tests/functional/<module>/settings_defaults.ts.
 */
export default {
  general: { gatewayName: 'SMS gateway' },
  sending: { timezone: 'UTC' },
  reception: { localPrefix: null },
  notifications: {
    storageFullAlert: true,
    adminPhones: [],
    adminEmails: [],
    smtpHost: null,
    smtpPort: 587,
    smtpSecurity: 'starttls',
    smtpUsername: null,
    smtpPassword: null,
    smtpFrom: null,
  },
}
