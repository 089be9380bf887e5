/**
 * What the webhooks module offers other modules (docs/modules.md, module boundaries): the calls
 * of automation rules to their own URL, signed and retried like webhook calls.
 */
export { RuleCalls, type RuleCall } from '#modules/webhooks/services/rule_calls'
