/**
 * What the campaigns module offers other modules (docs/modules.md): its templates (automation
 * replies with them too; how a text is filled in is core's `#core/sms/template_text`).
 */
export { TemplateLibrary } from '#modules/campaigns/services/template_library'
