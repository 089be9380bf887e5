import { inject } from '@adonisjs/core'
import { Secrets } from '#core/secrets/secrets'
import { maskPhone } from '#core/logging/redaction'
import { DeliveryRecorder } from '#modules/webhooks/services/delivery_recorder'
import { DestinationPolicy } from '#modules/webhooks/services/destination_policy'
import { DeliveryWorker } from '#modules/webhooks/services/delivery_worker'

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
    private policy: DestinationPolicy,
    private worker: DeliveryWorker
  ) {}

  /** Why a rule may not call this URL, judged as a webhook's is when saved; null: allowed. */
  refusal(url: string): string | null {
    return this.policy.refusalOfUrl(url)
  }


  /**
   * The rule changed, rotated its secret or was deleted (`null`, or it calls no URL any more):
   * its calls still waiting for an attempt follow it, as a webhook's follow the webhook. They
   * go to its current URL signed with its current secret, or are dropped.
   */
  async follow(ruleId: string, rule: { url: string; secret: string } | null): Promise<void> {
    await this.worker.retargetRuleCalls(ruleId, rule && { url: rule.url, secretSealed: this.secrets.seal(rule.secret) })
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
