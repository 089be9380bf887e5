import { hostname } from 'node:os'
import nodemailer from 'nodemailer'
import type { SettingsStore } from '#core/settings/settings_store'

export type MailOutcome = { sent: true; recipients: number } | { sent: false; reason: string }

/**
 * E-mails an administrator alert through the SMTP server of Settings > Notifications to every
 * administrator address (nodemailer). Nothing is sent when no server or no address is set.
 */
export class AlertMailer {
  constructor(private settings: () => Promise<SettingsStore>) {}

  async send(subject: string, text: string): Promise<MailOutcome> {
    const store = await this.settings()
    const notifications = await store.get('notifications')
    if (!notifications.smtpHost) return { sent: false, reason: 'no SMTP server configured' }
    if (!notifications.adminEmails.length) return { sent: false, reason: 'no administrator address' }
    const password = await store.revealSecret('notifications', 'smtpPassword')
    const transport = nodemailer.createTransport({
      host: notifications.smtpHost,
      port: notifications.smtpPort,
      secure: notifications.smtpSecurity === 'tls',
      requireTLS: notifications.smtpSecurity === 'starttls',
      ignoreTLS: notifications.smtpSecurity === 'none',
      auth: notifications.smtpUsername ? { user: notifications.smtpUsername, pass: password ?? '' } : undefined,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    })
    try {
      await transport.sendMail({
        from: notifications.smtpFrom ?? `sms-gateway@${hostname()}`,
        to: [...notifications.adminEmails],
        subject,
        text,
      })
      return { sent: true, recipients: notifications.adminEmails.length }
    } finally {
      transport.close()
    }
  }
}
