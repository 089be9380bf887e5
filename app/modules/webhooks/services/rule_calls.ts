import { inject } from '@adonisjs/core'
import { Secrets } from '#core/secrets/secrets'
import { maskPhone } from '#core/logging/redaction'
import { DeliveryRecorder } from '#modules/webhooks/services/delivery_recorder'
import { DestinationPolicy } from '#modules/webhooks/services/destination_policy'

export interface RuleCall {
  ruleId: string
  ruleName: string
  /** The rule's URL and secret: set on the rule, not on a webhook. */
  url: string
  secret: string
  conversationId: string
  /** The sender's full number; only its masked form leaves the gateway. */
  senderPhone: string
  occurredOn: Date
}

/**
 * Calls a rule's URL (docs/webhooks.md, Rule calls): the one service the automation rules call.
 * Signed like a webhook call, retried on the same schedule, logged as `rule.triggered`; never
 * switched off automatically and never replayable.
 */
@inject()
export class RuleCalls {
  constructor(
    private recorder: DeliveryRecorder,
    private secrets: Secrets,
    private policy: DestinationPolicy
  ) {}

  /** Why a rule may not call this URL, judged as a webhook's is when saved; null: allowed. */
  refusal(url: string): string | null {
    return this.policy.refusalOfUrl(url)
  }


  /** Records the call; it leaves with the other deliveries. Resolves once it is stored. */
  async call(call: RuleCall): Promise<void> {
    const body = JSON.stringify({
      ruleId: call.ruleId,
      ruleName: call.ruleName,
      conversationId: call.conversationId,
      maskedPhone: maskPhone(call.senderPhone),
      occurredOn: call.occurredOn.toISOString(),
    })
    await this.recorder.record([
      {
        webhookId: null,
        rule: { id: call.ruleId, name: call.ruleName, url: call.url, secretSealed: this.secrets.seal(call.secret) },
        event: 'rule.triggered',
        body,
      },
    ])
  }
}
